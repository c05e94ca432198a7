"""The platform's one error hierarchy, and the one place each kind becomes an HTTP answer.

Services raise these (or their apps' subclasses: GradingError is Invalid, GradingNotAllowed also NotAllowed,
OverBudget is TooMany...) and never think of HTTP. `api_exception_handler` (DRF) and `ArenaErrorMiddleware`
(the pages) turn them into 403 not allowed, 404 not found, 400 invalid, 409 conflict, 429 too many, as JSON
`{"detail": message}` under /api/ and as a page elsewhere. A refusal that is several kinds at once is the first
of that order (a GradingNotAllowed is a 403).

Django's own refusals (PermissionDenied, Http404, a bad request, a failed CSRF check, a server error) come
through the same door: `error_response` is the one page (core/error.html, the site's look, why and where to go)
or JSON body every error status gets; urls.py names its handlers (handler400/403/404/500) and settings its
CSRF_FAILURE_VIEW.
"""

import logging

from django.http import HttpResponseServerError, JsonResponse
from django.shortcuts import render
from django.template import loader

logger = logging.getLogger(__name__)


class ArenaError(Exception):
    """A refusal a person should read: the message says why."""

    status = 400


class NotAllowed(ArenaError):
    """The user's role does not allow this."""

    status = 403


class NotFound(ArenaError):
    """No such thing, or none the user may know of."""

    status = 404


class Invalid(ArenaError, ValueError):
    """Input the rules refuse."""

    status = 400


class Conflict(ArenaError):
    """The thing is not in a state that allows this (already started, already over)."""

    status = 409


class TooMany(ArenaError):
    """Over a limit; `retry_after` seconds until it may work."""

    status = 429
    retry_after: float = 60

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        if retry_after is not None:
            self.retry_after = retry_after


ORDER = (NotAllowed, NotFound, Conflict, TooMany, Invalid)


def status_of(exc: ArenaError) -> int:
    return next((kind.status for kind in ORDER if isinstance(exc, kind)), exc.status)


def _headers(exc: ArenaError) -> dict:
    return {"Retry-After": str(max(1, round(exc.retry_after)))} if isinstance(exc, TooMany) else {}


def api_exception_handler(exc, context):
    """DRF's handler, plus the platform's errors mapped by kind."""
    # Imported here: the apps' models import this module, and DRF's views module must not load before them.
    from rest_framework.response import Response
    from rest_framework.views import exception_handler

    if isinstance(exc, ArenaError):
        return Response({"detail": str(exc)}, status=status_of(exc), headers=_headers(exc))
    return exception_handler(exc, context)


def is_api(request) -> bool:
    return request.path.startswith("/api/")


# Per status: the page's title, what happened when the refusal names nothing, and where to go from there.
ERROR_PAGES = {
    400: ("Bad request", "The request could not be read: a form or link sent something the site does not accept.",
          "Go back, check what was typed and send it again."),
    403: ("Not allowed", "Your account is not allowed to do this.",
          "If you think it should be, ask your course's instructor (or the site's operators for an account's "
          "permissions)."),
    404: ("Page not found", "There is nothing here, or it is not yours to see.",
          "Check the address, or start again from your page."),
    409: ("Not now", "This is not possible in the state the thing is in.", "Reload the page to see where it stands."),
    429: ("Too many requests", "Too many requests in a short time.", "Wait a moment, then try again."),
    500: ("Something went wrong on our side",
          "The error has been logged for the operators. Your bots, uploads and matches are safe.",
          "Try again in a moment."),
}


def error_response(request, status: int, message: str = "", headers: dict | None = None):
    """The answer for an error `status`: JSON `{"detail": ...}` under /api/, the site's error page elsewhere.
    `message` says why in the person's words (a refusal's own message); without one, the status's usual
    reason."""
    title, reason, next_step = ERROR_PAGES.get(status, ERROR_PAGES[400])
    if is_api(request):
        response = JsonResponse({"detail": message or reason}, status=status)
    else:
        context = {"title": title, "why": message or reason, "next_step": next_step, "status": status}
        response = render(request, "core/error.html", context, status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def _message_of(exception) -> str:
    """What a PermissionDenied or Http404 says, when app code said something (not the URL resolver's report
    of the patterns it tried, nor a lookup's "No Bot matches the given query.")."""
    message = exception.args[0] if exception is not None and exception.args else ""
    if not isinstance(message, str) or message.endswith("matches the given query."):
        return ""
    return message[:1].upper() + message[1:]


def bad_request(request, exception=None):
    return error_response(request, 400)


def permission_denied(request, exception=None):
    return error_response(request, 403, _message_of(exception))


def page_not_found(request, exception=None):
    where = request.path if len(request.path) <= 200 else request.path[:200] + "…"
    return error_response(request, 404, _message_of(exception)
                          or f"There is nothing at {where}, or it is not yours to see.")


def csrf_failure(request, reason=""):
    """A form sent without its page's security token (an old tab, a session that ended, cookies refused)."""
    return error_response(request, 403, "The form was sent from a page that is out of date (or cookies are "
                                        "off), so it was not accepted. Reload the page and send it again.")


def server_error(request):
    """The 500 answer. The request context reads the session and the user from the database, which may be the
    very thing that is down: then the page is rendered from the template alone, still with the site's look."""
    try:
        return error_response(request, 500)
    except Exception:  # noqa: BLE001 - the error page has to answer whatever broke
        logger.exception("the 500 page could not use the request context")
        title, reason, next_step = ERROR_PAGES[500]
        page = loader.get_template("core/error.html").render(
            {"title": title, "why": reason, "next_step": next_step, "status": 500})
        return JsonResponse({"detail": reason}, status=500) if is_api(request) else HttpResponseServerError(page)


class ArenaErrorMiddleware:
    """The pages' mapping of the platform's errors (a view that lets one through gets its status, not a 500)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exc):
        if not isinstance(exc, ArenaError):
            return None
        return error_response(request, status_of(exc), str(exc), _headers(exc))
