"""The site's front page, and the 500 page with the site's header (which must never fail itself)."""

import logging

from django.http import HttpResponseServerError, JsonResponse
from django.shortcuts import render
from django.template import loader
from games import available_games

from arena.accounts.access import public_matches, visible_matches
from arena.accounts.models import Course
from arena.bots.forms import BotForm
from arena.bots.models import Bot
from arena.grading.selectors import coming_deadlines
from arena.matches.models import Match

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


def home(request, bot_form: BotForm | None = None):
    context = {"games": sorted(available_games().values(), key=lambda g: g.name),
               "ladder_matches": (public_matches(Match.objects.without_replay()).order_by("-finished_at")
                                  .prefetch_related("seats__bot__owner")[:10])}
    if request.user.is_authenticated:
        context["bots"] = Bot.objects.owned_by(request.user).prefetch_related("versions")
        context["bot_form"] = bot_form or BotForm()
        recent = Match.objects.without_replay().filter(seats__bot__owner=request.user).distinct()
        context["recent"] = visible_matches(recent, request.user).prefetch_related("seats__bot__owner")[:10]
        context["courses"] = Course.objects.for_user(request.user).order_by("code")
        context["deadlines"] = coming_deadlines(request.user)
    return render(request, "core/home.html", context, status=400 if bot_form else 200)
