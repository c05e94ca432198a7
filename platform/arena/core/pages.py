"""The 500 page with the site's header; it must never fail itself."""

import logging

from django.http import HttpResponseServerError, JsonResponse
from django.template import loader

logger = logging.getLogger(__name__)


def server_error(request):
    """Under /api/ a JSON body, as every API answer; elsewhere 500.html with the request's context (the
    navigation), or without it if that fails too.

    The request context reads the session and the user from the database, which may be the very thing
    that is down: then the page is rendered from the template alone, still with the site's look.
    """
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Server error: the operators have been told."}, status=500)
    template = loader.get_template("500.html")
    try:
        return HttpResponseServerError(template.render({}, request))
    except Exception:  # noqa: BLE001 - the error page has to answer whatever broke
        logger.exception("the 500 page could not use the request context")
        return HttpResponseServerError(template.render({}))
