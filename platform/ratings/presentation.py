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


def rating_chart_data(*, game: str | None = None, bot: Bot | None = None) -> dict | None:
    """Rating after each rated match, aligned for a chart: {"x": [unix seconds], "series": [{label, bot, values}]}.

    Every bot's values have one entry per x (None where that bot did not play at that moment), which is
    the shape uPlot draws, gaps spanned. None when there is no rated match to show.
    """
    seats = rated_seats()
    seats = seats.filter(bot=bot) if bot is not None else seats.filter(bot__game=game)
    points = list(seats.values_list("bot_id", "match__finished_at", "rating_after"))
    if not points:
        return None
    times = sorted({finished.timestamp() for _, finished, _ in points})
    column = {time: index for index, time in enumerate(times)}
    values: dict[int, list] = {}
    for bot_id, finished, after in points:
        values.setdefault(bot_id, [None] * len(times))[column[finished.timestamp()]] = round(after, 1)
    labels = {b.pk: b.label for b in Bot.objects.filter(pk__in=values).select_related("owner")}
    return {
        "x": times,
        "initial": settings.ARENA_ELO_INITIAL,
        "series": [{"bot": bot_id, "label": labels[bot_id], "values": series}
                   for bot_id, series in sorted(values.items(), key=lambda item: labels[item[0]])],
    }
