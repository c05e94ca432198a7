"""The ladder as people read it: rated bots ranked, provisional ones apart, and rating histories for charts.

The ranking itself (ratings.services.ladder, also served by the API) is unchanged; this only decides how
the site shows it. A rating that rests on fewer than ARENA_PROVISIONAL_GAMES rated matches says little, so
such bots are listed apart, without a rank, instead of above bots that have played.
"""

from django.conf import settings

from bots.models import Bot

from .services import rated_seats, ladder


def standings(game: str) -> dict[str, list[dict]]:
    """{"rated": rows ranked 1.. among bots with enough rated matches, "provisional": the others}.

    Provisional rows come most-played first (closest to a rating), then by rating; their rank is None.
    """
    needed = settings.ARENA_PROVISIONAL_GAMES
    rows = ladder(game)
    rated = [row for row in rows if row["played"] >= needed]
    provisional = sorted((row for row in rows if row["played"] < needed),
                         key=lambda row: (-row["played"], -row["rating"], row["bot"].pk))
    for rank, row in enumerate(rated, start=1):
        row["rank"] = rank
    for row in provisional:
        row["rank"] = None
    return {"rated": rated, "provisional": provisional}


def rating_chart_data(*, game: str | None = None, bot: Bot | None = None, bots: list[Bot] | None = None) -> dict | None:
    """Each bot's rating from the start through each rated match it played, for a chart whose x axis is
    "rated matches played": {"x": [0, 1, ...], "series": [{bot, label, values}]}.

    `bots` keeps the lines of those bots only. Every series starts at the initial rating (x = 0) and has one value per x, None past its last match:
    the shape uPlot draws. None when there is no rated match to show.
    """
    seats = rated_seats()
    if bot is not None:
        seats = seats.filter(bot=bot)
    elif bots is not None:  # a page of the ladder: only its bots' lines
        seats = seats.filter(bot__in=bots)
    else:
        seats = seats.filter(bot__game=game)
    initial = settings.ARENA_ELO_INITIAL
    ratings: dict[int, list[float]] = {}
    for bot_id, after in seats.values_list("bot_id", "rating_after"):
        ratings.setdefault(bot_id, [initial]).append(round(after, 1))
    if not ratings:
        return None
    longest = max(len(values) for values in ratings.values())
    labels = {b.pk: b.label for b in Bot.objects.filter(pk__in=ratings).select_related("owner")}
    return {
        "x": list(range(longest)),
        "series": [{"bot": bot_id, "label": labels[bot_id], "values": values + [None] * (longest - len(values))}
                   for bot_id, values in sorted(ratings.items(), key=lambda item: labels[item[0]])],
    }
