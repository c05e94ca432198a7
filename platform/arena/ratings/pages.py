"""The ladder pages."""

from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from games import get_game

from arena.bots.models import Bot
from arena.core.pagination import ASCII_NUMBER

from .presentation import LADDER_CACHE_SECONDS, places, standings, standings_page
from .services import initial_value


LADDER_PAGE_ROWS = 50


def ladder_page(request, game):
    try:
        game_obj = get_game(game)
    except KeyError as exc:
        raise Http404(str(exc)) from exc
    # A page of rows at a time (ranked first, then provisional), and the chart of the bots on it.
    number = request.GET.get("page", "")
    shown = standings_page(game, int(number) if ASCII_NUMBER.fullmatch(number) else 1, LADDER_PAGE_ROWS)
    rows = shown["rows"]
    context = {"game": game_obj, "page": shown["page"], "cache_seconds": LADDER_CACHE_SECONDS,
               "tables_key": (shown["key"], _ladder_viewer(request.user, rows)),
               "standings": {"rated": [row for row in rows if row.rank],
                             "provisional": [row for row in rows if not row.rank]},
               "mine": _own_places(request.user, game), "chart": shown["chart"],
               "model": {"mu": settings.ARENA_RATING_MU, "sigma": settings.ARENA_RATING_SIGMA,
                         "k": settings.ARENA_RATING_K, "initial": initial_value(),
                         "provisional_sigma": settings.ARENA_PROVISIONAL_SIGMA,
                         "per_minute": settings.ARENA_LADDER_MATCHES_PER_MINUTE}}
    return render(request, "ratings/ladder.html", context)


def _ladder_viewer(user, rows) -> str:
    """Who the ladder's tables are drawn for, as far as they differ (a Challenge button on every bot that is
    not the viewer's own): one rendering serves every signed-in viewer without a bot on the page."""
    if not user.is_authenticated:
        return "anonymous"
    return f"owner-{user.pk}" if any(row.bot.owner_id == user.pk for row in rows) else "signed-in"


def _own_places(user, game: str) -> list[dict]:
    """Where the viewer's own bots stand on the ladder of `game`: rank and page, to jump to."""
    # Most viewers have no bot of the game: a plain query says so (building standings() costs more).
    if not Bot.objects.owned_by(user).for_game(game).exists():
        return []
    ordered = standings(game)
    own = list(ordered.filter(owner=user))
    found = places(ordered, own)
    return [{"bot": bot, "rank": None if bot.provisional else found[bot.pk],
             "page": (found[bot.pk] - 1) // LADDER_PAGE_ROWS + 1} for bot in own]
