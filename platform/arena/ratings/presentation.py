"""The ladder as people read it: rated bots ranked, provisional ones apart, and rating histories for charts.

The ranking itself (ratings.services.ranked_bots, also served by the API) is unchanged; this only decides
how the site shows it. A rating whose sigma is still above ARENA_PROVISIONAL_SIGMA says little, so such bots
are listed apart, without a rank.
"""

import time

from django.core.cache import cache
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Case, Count, F, Q, Value, When
from django.utils.html import json_script
from django.utils.safestring import SafeString

from arena.bots.models import Bot
from arena.matches.models import Match

from .services import LadderBot, LadderRow, initial_value, ladder_rows, ranked_bots, rated_seats


def standings(game: str):
    """The ladder as the site shows it, as a queryset to page through: bots whose sigma is down to
    ARENA_PROVISIONAL_SIGMA first, best rating first (ranked 1..); then the provisional ones, most-played
    first (closest to a rating), then by rating. Each bot is annotated with `provisional`."""
    return ranked_bots(game).annotate(
        provisional_played=Case(When(provisional=True, then=F("rated_played")), default=Value(0)),
    ).order_by(*(("-" if descending else "") + key for key, descending in STANDINGS_ORDER))


# The keys of standings(), each (annotation or field, descending).
STANDINGS_ORDER = (("provisional", False), ("provisional_played", True), ("current", True), ("id", False))


def standing_rows(bots, first_place: int) -> list[LadderRow]:
    """Rows for `bots`, a slice of standings() starting at `first_place`: ranked bots keep their place as
    rank (they all come before the provisional ones), provisional ones have rank None."""
    return [row.unranked() if row.provisional else row for row in ladder_rows(bots, first_rank=first_place)]


# Many viewers read the same ladder page; it is kept this long, or until a rated match of the game finishes.
LADDER_CACHE_SECONDS = 10


def standings_page(game: str, number: int, rows_per_page: int) -> dict:
    """Page `number` of standings(game) (the last page if past it), as plain data that the cache keeps:
    {"rows": ..., "chart": rating_chart() of those bots, "page": a Page of the row numbers, to navigate,
    "key": new whenever the page is worked out again, for fragments made from it}.
    Each row is a LadderRow: plain data, no account data in the cache."""
    generation = cache.get(_generation_key(game), 0)
    # standings() is built only on a miss: building its query is a fifth of a cached page's time
    count = cache.get_or_set(f"ladder:{game}:{generation}:count", lambda: standings(game).count(),
                             LADDER_CACHE_SECONDS)
    pages = Paginator(range(count), rows_per_page)
    number = min(max(number, 1), pages.num_pages)  # one cached copy a real page, whatever was asked

    def work_out() -> dict:
        first = (number - 1) * rows_per_page
        rows = standing_rows(standings(game)[first:first + rows_per_page], first + 1)
        return {"rows": rows, "chart": rating_chart([row.bot for row in rows]), "page": pages.page(number)}

    return _worked_out_once(f"ladder:{game}:{rows_per_page}:{number}", generation, work_out)


def _worked_out_once(key: str, generation: int, work_out) -> dict:
    """work_out()'s dict, cached under `key` for LADDER_CACHE_SECONDS or until the ladder's `generation`
    changes. Once the copy is out of date, one request works it out again while the others are still
    served the copy before: a crowd of viewers (a rated match just finished, or the copy just expired)
    never all work out the same page at once, each slowing down the others."""
    entry, now = cache.get(key), time.time()
    if entry and entry["generation"] == generation and now - entry["made"] < LADDER_CACHE_SECONDS:
        return entry
    working = f"{key}:working"
    holds = cache.add(working, 1, timeout=WORKING_SECONDS)
    if entry and not holds:
        return entry
    try:  # with no copy at all yet, every request works the page out
        entry = {**work_out(), "generation": generation, "made": now, "key": f"{key}:{generation}:{now}"}
        cache.set(key, entry, timeout=GENERATION_SECONDS)
    finally:
        if holds:
            cache.delete(working)
    return entry


# How long a request that died while working a page out keeps others from doing it (serving the copy before).
WORKING_SECONDS = 30


def forget_ladder(sender, match, **kwargs) -> None:
    """The match_finished receiver: a rated match changes its game's ladder, and so may a validation (a bot
    that passed joins it), so the cached pages are forgotten now and again once the result commits (a page
    worked out in between would still show the ladder before it). Other matches (a tournament's unrated
    games, finishing many times a second) leave the ladder as it was, and its cache in place."""
    if not (match.rated or match.purpose == Match.Purpose.VALIDATION):
        return
    _next_generation(match.game)
    transaction.on_commit(lambda: _next_generation(match.game))


def _generation_key(game: str) -> str:
    return f"ladder-generation:{game}"


def _next_generation(game: str) -> None:
    try:
        cache.incr(_generation_key(game))
    except ValueError:  # not there yet, or expired: any value but the one the cached pages were made under
        cache.set(_generation_key(game), 1, timeout=GENERATION_SECONDS)


# A generation outlives every page cached under it; once it expires the count starts again at 0, whose
# pages expired long before (and the cache does not keep one key per game forever).
GENERATION_SECONDS = 3600


def places(ordered, bots) -> dict[int, int]:
    """{bot id: its 1-based place in `ordered`} for `bots` (rows of `ordered`, carrying its annotations),
    counted in one query whatever their number: a bot's place is one more than the rows before it."""
    if not bots:
        return {}
    counts = ordered.aggregate(**{str(bot.pk): Count("pk", filter=_before(bot)) for bot in bots})
    return {int(pk): before + 1 for pk, before in counts.items()}


def _before(bot) -> Q:
    """The rows that come before `bot` in STANDINGS_ORDER: smaller on the first key where they differ."""
    before, tied = Q(pk__in=[]), Q()
    for key, descending in STANDINGS_ORDER:
        value = getattr(bot, key)
        before |= tied & Q(**{f"{key}__{'gt' if descending else 'lt'}": value})
        tied &= Q(**{key: value})
    return before


def rating_chart(bots: list[Bot] | list[LadderBot]) -> SafeString | None:
    """The rating chart's data for a page, as the <script type="application/json"> that its script reads
    (made once here, so that a cached ladder page does not encode its thousands of points each time)."""
    data = rating_chart_data(bots)
    return None if data is None else json_script(data, "rating-chart-data")


def rating_chart_data(bots: list[Bot] | list[LadderBot]) -> dict | None:
    """Each of `bots`' rating from the start through each rated match it played, for a chart whose x axis
    is "rated matches played": {"x": [0, 1, ...], "series": [{bot, label, values}]}.

    Every series starts at the initial rating (x = 0) and has one value per x, None past its last match:
    the shape uPlot draws. None when there is no rated match to show.
    """
    initial = round(initial_value(), 1)
    ratings: dict[int, list[float]] = {}
    for bot_id, after in rated_seats().filter(bot__in=[bot.pk for bot in bots]).values_list("bot_id", "rating_after"):
        ratings.setdefault(bot_id, [initial]).append(round(after, 1))
    if not ratings:
        return None
    longest = max(len(values) for values in ratings.values())
    labels = {bot.pk: bot.label for bot in bots}
    return {
        "x": list(range(longest)),
        "series": [{"bot": bot_id, "label": labels[bot_id], "values": values + [None] * (longest - len(values))}
                   for bot_id, values in sorted(ratings.items(), key=lambda item: labels[item[0]])],
    }
