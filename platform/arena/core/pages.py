"""The site's front page."""

from django.shortcuts import render
from games import available_games

from arena.accounts.access import public_matches, visible_matches
from arena.accounts.models import Course
from arena.bots.forms import BotForm
from arena.bots.models import Bot
from arena.grading.selectors import coming_deadlines
from arena.matches.models import Match


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
