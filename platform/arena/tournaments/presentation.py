"""What a tournament looks like to one user: entrants, every series (future bracket slots included),
standings, progress and the bracket's layout. The pages and the API both show this, so they agree."""

from dataclasses import dataclass

from django.utils import timezone

from arena.matches.batches import INCOMPLETE
from arena.matches.models import Match

from .models import Series, Tournament
from .services import accepted_entrants, draft_format, format_of, played_outcomes, series_score

BOX_WIDTH, BOX_HEIGHT, COLUMN_GAP, ROW_GAP = 190, 46, 46, 14
# The tie-breaks' names as written (docs/tournaments.md), by their keys in the standings.
TIEBREAK_NAMES = {"buchholz": "Buchholz", "sonneborn_berger": "Sonneborn-Berger"}
ELIMINATION = (Tournament.Format.SINGLE_ELIMINATION, Tournament.Format.DOUBLE_ELIMINATION)


def overview(tournament: Tournament, user) -> dict:
    entrants = list(tournament.entrants.select_related("bot__owner", "version").order_by("seed", "id"))
    labels = {e.seed: e.bot.label for e in entrants if e.seed is not None}
    results = tournament.results_visible_to(user)
    view = {
        "results_visible": results,
        "entrants": [{"pk": e.pk, "seed": e.seed, "bot": e.bot_id, "label": e.bot.label,
                      "version": e.version.number if e.version else None, "withdrawn": e.withdrawn,
                      "consent": e.consent}
                     for e in entrants],
        "series": [], "rounds": [], "standings": [], "bracket": None,
        "progress": progress(tournament),
        "champion": None,
    }
    if tournament.status == Tournament.Status.DRAFT or not results:
        return view
    rules = format_of(tournament)
    outcomes = played_outcomes(tournament)
    rows = {row.key: row for row in tournament.series.prefetch_related("games__match__seats")}
    view["series"] = [_series(tournament, spec, rows.get(spec.key), labels) for spec in rules.series(outcomes)]
    rounds: dict[tuple, list] = {}
    for item in view["series"]:
        rounds.setdefault((BRACKET_ORDER.index(item["bracket"]), item["round"]), []).append(item)
    last_round = max((number for (_, number) in rounds), default=0)
    view["rounds"] = [{"round": number, "name": round_name(tournament.format, items[0], last_round), "series": items}
                      for (_, number), items in sorted(rounds.items())]
    view["standings"] = [{"seed": row.entrant, "label": labels.get(row.entrant, "?"), "place": row.place,
                          "points": row.points, "tiebreaks": row.tiebreaks} for row in rules.standings(outcomes)]
    view["tiebreak_names"] = [TIEBREAK_NAMES[key] for key in (view["standings"][0]["tiebreaks"] if view["standings"] else {})]
    if tournament.format in ELIMINATION:
        view["bracket"] = bracket_layout(view["series"])
    if tournament.status == Tournament.Status.FINISHED:
        # Round robin and Swiss can end with first place shared after every tie-break: say so.
        view["champion"] = " and ".join(row["label"] for row in view["standings"] if row["place"] == 1)
    return view


BRACKET_ORDER = ("winners", None, "losers", "final")


def round_name(format: str, item: dict, last_round: int) -> str:
    """A round as people say it: "Winners' round 2", "Losers' round 3", "Grand final", "Grand final reset",
    "Final" (single elimination), "Final table" (heats), else "Round N"."""
    number, bracket = item["round"], item["bracket"]
    if bracket == "final":
        if format == Tournament.Format.HEATS:
            return "Final table"
        return "Grand final reset" if item["key"] == "GF2" else "Grand final"
    if format == Tournament.Format.DOUBLE_ELIMINATION:
        return f"{'Winners' if bracket == 'winners' else 'Losers'}' round {number}"
    if format == Tournament.Format.SINGLE_ELIMINATION and number == last_round:
        return "Final"
    return f"Round {number}"


def _series(tournament: Tournament, spec, row: Series | None, labels: dict) -> dict:
    item = {
        "key": spec.key, "round": spec.round, "bracket": spec.bracket, "bye": spec.bye, "advance": spec.advance,
        "winner_to": spec.winner_to, "loser_to": spec.loser_to,
        "entrants": [{"seed": seed, "label": labels.get(seed, "?") if seed is not None else None}
                     for seed in spec.entrants],
        "status": "waiting", "note": "", "walkover": False, "placings": None, "points": None, "winner": None,
        "games": [], "game_points": None, "tiebreak": "",
    }
    if row is None:
        return item
    item.update(status=row.status, walkover=row.walkover, winner=row.winner,
                placings={int(k): v for k, v in row.placings.items()} if row.placings else None,
                points={int(k): v for k, v in row.points.items()} if row.points else None)
    item["games"] = [_game(game) for game in row.games.all()]
    score = series_score(tournament, row)
    if score is not None:
        item["game_points"], item["tiebreak"] = score.game_points, score.tiebreak
        for entrant in item["entrants"]:
            entrant["game_points"] = score.game_points.get(entrant["seed"])
            entrant["place"] = item["placings"].get(entrant["seed"])
    if row.status == Series.Status.PLAYING:
        statuses = {g["status"] for g in item["games"]}
        # A set-aside game holds its series until the staff play it again (services' docstring).
        item["status"] = ("held" if Match.Status.SET_ASIDE in statuses else
                          "running" if statuses - {Match.Status.QUEUED} else "queued")
        item["note"] = INCOMPLETE if item["status"] == "held" else ""
    return item


def _game(game) -> dict:
    match = game.match
    seats = sorted(match.seats.all(), key=lambda seat: seat.seat)
    finished = match.status == Match.Status.FINISHED
    return {
        "index": game.index, "match": match.pk, "status": match.status, "seats": game.seats,
        "scores": [seat.score for seat in seats] if finished else None,
        "statuses": [seat.status for seat in seats] if finished else None,
        "winners": [game.seats[s] for s in match.winners] if finished else None,
    }


def progress(tournament: Tournament) -> dict:
    """Series done, running and queued, out of the format's own bound on the series it plays, and when it
    ends at the pace of the series decided so far (`ends_at`; `seconds_left` until then, for the API). A draft
    whose settings cannot run with its entrants says why.

    The pace is measured up to the last decision, not up to now: what the page shows then changes only when
    the tournament does, so that its live stream (an html_snapshot digest of it) sends nothing while only the
    clock moves, which replaced the instructor's buttons under their click."""
    rows = list(tournament.series.filter(bye=False, walkover=False).prefetch_related("games__match"))
    done = sum(1 for row in rows if row.status == Series.Status.DECIDED)
    held = sum(1 for row in rows if row.status == Series.Status.PLAYING
               and any(g.match.status == Match.Status.SET_ASIDE for g in row.games.all()))
    running = sum(1 for row in rows if row.status == Series.Status.PLAYING
                  and any(g.match.status != Match.Status.QUEUED for g in row.games.all())) - held
    queued = len(rows) - done - running - held
    expected, problem = 0, ""
    if tournament.status == Tournament.Status.FINISHED:
        expected = done  # the bound allows for a reset final that may not have been needed
    elif tournament.started_at is not None:
        expected = format_of(tournament).series_bound()
    elif tournament.status == Tournament.Status.DRAFT and (accepted := accepted_entrants(tournament).count()) >= 2:
        try:
            expected = draft_format(tournament).series_bound()
        except ValueError as exc:  # start refuses such settings with the same reason
            problem = f"These settings cannot run with these {accepted} entrants: {exc}"
    ends_at = seconds_left = None
    decisions = [row.decided_at for row in rows if row.status == Series.Status.DECIDED and row.decided_at]
    if tournament.status == Tournament.Status.RUNNING and decisions and tournament.started_at:
        pace = (max(decisions) - tournament.started_at) / len(decisions)
        ends_at = max(decisions) + pace * max(0, expected - done)
        seconds_left = max(0, round((ends_at - timezone.now()).total_seconds()))
    return {"done": done, "running": running, "queued": queued, "held": held, "expected": expected,
            "problem": problem, "percent": min(100, round(100 * done / expected)) if expected else 0,
            "ends_at": ends_at, "seconds_left": seconds_left}


@dataclass
class Box:
    series: dict
    x: int
    y: int


def bracket_layout(series: list[dict]) -> dict:
    """Positions of every series of an elimination bracket: one column per round of each bracket (winners,
    then losers, then the final), each series centred among the ones it fills; and the connector lines
    from a series to the one its winner goes to. Sizes in SVG user units."""
    sections = []
    top = 0
    widest = 0  # columns used by the winners and losers brackets: the final stands to their right
    boxes: dict[str, Box] = {}
    for bracket in ("winners", "losers", "final"):
        members = [item for item in series if (item["bracket"] or "winners") == bracket]
        if not members:
            continue
        columns: dict[int, list[dict]] = {}
        for item in members:
            columns.setdefault(item["round"], []).append(item)
        rounds = sorted(columns)
        first_column = widest if bracket == "final" else 0
        widest = max(widest, len(rounds))
        tallest = max(len(items) for items in columns.values())
        height = tallest * (BOX_HEIGHT + ROW_GAP)
        for column, number in enumerate(rounds, start=first_column):
            items = columns[number]
            slot = height / len(items)
            for row, item in enumerate(items):
                y = top + round(slot * row + (slot - BOX_HEIGHT) / 2)
                boxes[item["key"]] = Box(item, column * (BOX_WIDTH + COLUMN_GAP), y)
        sections.append({"bracket": bracket, "y": top, "rounds": rounds})
        top += height + 40
    lines = []
    for box in boxes.values():
        target = boxes.get(box.series["winner_to"] or "")
        if target is None:
            continue
        x1, y1 = box.x + BOX_WIDTH, box.y + BOX_HEIGHT // 2
        x2, y2 = target.x, target.y + BOX_HEIGHT // 2
        middle = (x1 + x2) // 2 if x2 > x1 else x1 + COLUMN_GAP // 2
        lines.append(f"M{x1},{y1} H{middle} V{y2} H{x2}")
    width = max((b.x for b in boxes.values()), default=0) + BOX_WIDTH + 10
    return {"width": width, "height": top, "box_width": BOX_WIDTH, "box_height": BOX_HEIGHT,
            "boxes": [{"x": b.x, "y": b.y, "series": b.series} for b in boxes.values()],
            "lines": lines, "sections": sections}
