"""The registry of rubric part types: each turns measured play into a fraction of the part's weight.

A part type declares the games it needs (`games`: against which built-in, with which seed, in which seat)
and measures a submission from their finished matches (`measure`); types that need no games of their own
(tournament placement, Elo percentile) read what the platform already recorded. A new type is a subclass
registered with `@register`.
"""

import hashlib
import hmac
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from games import get_game
from games.contracts import KEEPS_WIN, THROWS_WIN, AnalysisRow

from arena.core.errors import Invalid


class PartError(Invalid):
    """Options a part type cannot use; the message says why, and `field` names the option at fault (if one)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Option:
    """A number option of a part kind, typed, bounded and labelled: the rubric form shows it, `read` checks it."""

    name: str
    label: str
    default: float
    low: float
    high: float
    cast: type = float

    def read(self, params: dict):
        return _number(params, self.name, self.default, self.low, self.high, self.cast)


@dataclass(frozen=True)
class Choice:
    """An option picked from a list (a built-in opponent, a tournament of the course)."""

    name: str
    label: str
    values: list[tuple[str, str]]  # (value, as shown)
    default: str | None = None

    def picked(self, params: dict) -> str | None:
        """The value `params` pick (its default when they pick none), or None when they pick something not in
        the list: a JSON list, object or number other than a listed id is no choice (and never a crash)."""
        value = params.get(self.name) or self.default
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            return None
        return str(value) if str(value) in dict(self.values) else None


@dataclass(frozen=True)
class GameNeed:
    """A game a part needs played: the graded bot in `seat` against the built-in `opponent`, on `seed`;
    with no opponent (""), a cooperative game the graded bot plays alone, in every seat."""

    opponent: str
    seed: int
    seat: int


@dataclass
class Measured:
    fraction: float
    detail: str
    matches: list[int] = field(default_factory=list)
    facts: dict = field(default_factory=dict)


@dataclass
class Context:
    """What a part measures: the submission's graded version and the finished matches of its needs."""

    # Models of the grading app (Any to mypy: no Django stubs are pinned).
    assignment: Any
    submission: Any
    version: Any
    played: dict  # GameNeed -> Match (finished)


KINDS: dict[str, "PartType"] = {}


def register(cls):
    KINDS[cls.kind] = cls()
    return cls


def derived_seed(base: int, index: int) -> int:
    """The seed of the `index`-th board of an assignment: the same for every student and every run, and keyed by
    the server's secret (ARENA_GRADING_SEED_SECRET), so that the assignment's seed alone tells nobody the boards."""
    secret = settings.ARENA_GRADING_SEED_SECRET.encode()
    return int.from_bytes(hmac.digest(secret, f"{base}:{index}".encode(), hashlib.sha256)[:6], "big")


def _number(params: dict, name: str, default, low, high, cast=float):
    try:
        value = cast(params.get(name, default))
    except (TypeError, ValueError) as exc:
        raise PartError(f"{name} must be a number", name) from exc
    if not low <= value <= high:
        raise PartError(f"{name} must be between {low} and {high}", name)
    return value


class PartType(ABC):
    kind = ""
    title = ""
    # Games the part can grade; empty: every game.
    games_supported: tuple[str, ...] = ()
    # Its number options, as the rubric form shows them.
    options: tuple[Option, ...] = ()

    def check_game(self, assignment) -> None:
        """PartError unless the part can grade the assignment's game."""
        if self.games_supported and assignment.game not in self.games_supported:
            raise PartError(f"only for {', '.join(self.games_supported)}, not {assignment.game}")

    def applies_to(self, assignment) -> bool:
        try:
            self.check_game(assignment)
        except PartError:
            return False
        return True

    def choices(self, assignment) -> list[Choice]:
        """Its options picked from a list, for this assignment."""
        return []

    def clean(self, assignment, params: dict) -> dict:
        self.check_game(assignment)
        return {}

    def describe(self, params: dict) -> str:
        """A short label for the part."""
        return self.title

    def explain(self, params: dict) -> str:
        """What earns the points, in words, as students read the rubric."""
        return self.describe(params)

    def needs(self, assignment, params: dict) -> list[GameNeed]:
        return []

    @abstractmethod
    def measure(self, context: Context, params: dict) -> Measured:
        """The fraction of the part's weight earned, with the evidence behind it."""


class PlaysBuiltin(PartType):
    """Parts measured over N seeded games against one built-in, seats alternated on each board."""

    default_opponent = "greedy"
    GAMES = Option("games", "Games (each board played from both seats)", 10, 2, 200, int)
    options: tuple[Option, ...] = (GAMES,)

    def check_game(self, assignment):
        super().check_game(assignment)
        rules = get_game(assignment.game)
        if rules.cooperative or rules.min_players > 2:
            raise PartError(f"it plays two-seat games against a built-in; {rules.title} seats "
                            f"{rules.min_players}: use team_score")

    def choices(self, assignment):
        builtins = sorted(get_game(assignment.game).builtin_bots())
        default = self.default_opponent if self.default_opponent in builtins else builtins[0]
        return [Choice("opponent", "Against the built-in bot", [(name, name) for name in builtins], default)]

    def clean(self, assignment, params):
        super().clean(assignment, params)
        [opponents] = self.choices(assignment)
        opponent = opponents.picked(params)
        if opponent is None:
            raise PartError(f"opponent must be a built-in bot of {assignment.game}: "
                            f"{', '.join(dict(opponents.values))}", "opponent")
        games = self.GAMES.read(params)
        return {"opponent": opponent, "games": games + games % 2}

    def needs(self, assignment, params):
        return [GameNeed(params["opponent"], derived_seed(assignment.seed, board), seat)
                for board in range(params["games"] // 2) for seat in (0, 1)]

    @classmethod
    def _analysed_moves(cls, context: Context, params: dict) -> tuple[list[int], list[AnalysisRow]]:
        """The part's match ids, and the solver's analysis rows of every move the graded bot made in them."""
        rules = get_game(context.assignment.game)
        ids: list[int] = []
        rows: list[AnalysisRow] = []
        for need, match, _ in cls._graded_seats(context, params):
            ids.append(match.pk)
            rows += [row for row in rules.analyse(match.replay) or [] if row["seat"] == need.seat]
        return ids, rows

    @staticmethod
    def _graded_seats(context: Context, params: dict):
        """(need, match, the graded bot's seat row) for each of the part's games."""
        for need, match in sorted(context.played.items(), key=lambda item: item[1].pk):
            yield need, match, next(seat for seat in match.seats.all() if seat.seat == need.seat)


@register
class WinRate(PlaysBuiltin):
    kind = "win_rate"
    title = "win rate"
    FULL_AT = Option("full_at", "Full marks from this share of games won (0.01 to 1)", 0.8, 0.01, 1.0)
    options = (PlaysBuiltin.GAMES, FULL_AT)

    def clean(self, assignment, params):
        cleaned = super().clean(assignment, params)
        cleaned["full_at"] = self.FULL_AT.read(params)
        return cleaned

    def describe(self, params):
        return f"win rate vs {params['opponent']} (full at {params['full_at']:.0%})"

    def explain(self, params):
        return (f"Win at least {params['full_at']:.0%} of {params['games']} games against {params['opponent']} "
                f"for full marks; fewer wins earn their share (a draw counts half).")

    def measure(self, context, params):
        score, ids = 0.0, []
        for need, match, _ in self._graded_seats(context, params):
            ids.append(match.pk)
            if need.seat in match.winners:
                score += 1 / len(match.winners)  # a shared win (draw) counts its share
        rate = score / len(ids) if ids else 0.0
        return Measured(min(1.0, rate / params["full_at"]),
                        f"{score:g} of {len(ids)} games won ({rate:.0%}) against {params['opponent']}",
                        ids, {"win_rate": rate})


@register
class Reliability(PlaysBuiltin):
    kind = "reliability"
    title = "reliability"

    def describe(self, params):
        return f"reliability (games without crash, timeout or illegal move, vs {params['opponent']})"

    def explain(self, params):
        return (f"Play {params['games']} games against {params['opponent']} without a crash, timeout or illegal "
                f"move: each game that ends cleanly earns its share.")

    def measure(self, context, params):
        clean, ids, failures = 0, [], {}
        for _, match, seat in self._graded_seats(context, params):
            ids.append(match.pk)
            if seat.status == "ok":
                clean += 1
            else:
                failures[seat.status] = failures.get(seat.status, 0) + 1
        share = clean / len(ids) if ids else 0.0
        detail = f"{clean} of {len(ids)} games without failure"
        if failures:
            detail += " (" + ", ".join(f"{count} {status}" for status, count in sorted(failures.items())) + ")"
        return Measured(share, detail, ids, {"failures": failures})


@register
class SolverLoss(PlaysBuiltin):
    """Average points lost against optimal play per decision, from the game's solver analysis."""

    kind = "solver_loss"
    title = "play against the solver"
    games_supported = ("endgame",)

    ZERO_AT = Option("zero_at", "No marks from this many points lost per move", 3.0, 0.1, 1000.0)
    options = (PlaysBuiltin.GAMES, ZERO_AT)

    def clean(self, assignment, params):
        cleaned = super().clean(assignment, params)
        cleaned["zero_at"] = self.ZERO_AT.read(params)
        return cleaned

    def describe(self, params):
        return f"points lost per move vs optimal (0 for full marks, {params['zero_at']:g} or more for none)"

    def explain(self, params):
        return (f"Over {params['games']} games against {params['opponent']}, lose no points per move to optimal "
                f"play for full marks; {params['zero_at']:g} or more lost per move earns none, linear between.")

    def measure(self, context, params):
        ids, rows = self._analysed_moves(context, params)
        # Every End Game row counts the points its move lost (games_supported).
        lost, decisions = sum(row["points_lost"] or 0 for row in rows), len(rows)
        average = lost / decisions if decisions else params["zero_at"]
        return Measured(max(0.0, 1 - average / params["zero_at"]),
                        f"{average:.2f} points lost per move over {decisions} moves", ids,
                        {"average_points_lost": average})


@register
class TournamentPlacement(PartType):
    kind = "tournament"
    title = "tournament placement"

    def choices(self, assignment):
        from arena.tournaments.models import Tournament

        tournaments = Tournament.objects.filter(course=assignment.course_id, game=assignment.game).order_by("-id")
        return [Choice("tournament", "Tournament", [(str(t.pk), t.name) for t in tournaments])]

    def clean(self, assignment, params):
        super().clean(assignment, params)
        [tournaments] = self.choices(assignment)
        tournament = tournaments.picked(params)
        if tournament is None:
            raise PartError(f"tournament must be the id of a {assignment.game} tournament of this course", "tournament")
        return {"tournament": int(tournament)}

    def describe(self, params):
        return f"placement in tournament {params['tournament']}"

    def explain(self, params):
        return (f"Your place in tournament {params['tournament']}: first earns full marks, last none, "
                f"linear between.")

    def measure(self, context, params):
        from arena.tournaments.models import Tournament
        from arena.tournaments.services import format_of, played_outcomes

        tournament = Tournament.objects.get(pk=params["tournament"])
        entrant = tournament.entrants.filter(bot=context.submission.bot).first()
        if entrant is None or entrant.seed is None or tournament.status == Tournament.Status.DRAFT:
            return Measured(0.0, f"{context.submission.bot} did not play in {tournament.name}")
        standings = format_of(tournament).standings(played_outcomes(tournament))
        place = next(row.place for row in standings if row.entrant == entrant.seed)
        field_size = len(standings)
        fraction = 1.0 if field_size < 2 else (field_size - place) / (field_size - 1)
        state = "" if tournament.status == Tournament.Status.FINISHED else f" ({tournament.status}, so far)"
        return Measured(fraction, f"place {place} of {field_size} in {tournament.name}{state}",
                        facts={"tournament": tournament.pk, "place": place, "of": field_size})


@register
class EloPercentile(PartType):
    kind = "elo_percentile"
    title = "Rating percentile on the course ladder"

    def explain(self, params):
        return "Your share of the course's bots rated below yours on the ladder (level ones count half)."

    def measure(self, context, params):
        from arena.ratings.services import ladder

        course = context.assignment.course
        members = set(course.students.values_list("pk", flat=True))
        rows = [row for row in ladder(context.assignment.game) if row.bot.owner_id in members]
        mine = next((row for row in rows if row.bot.pk == context.submission.bot_id), None)
        if mine is None or len(rows) < 2:
            return Measured(0.0 if mine is None else 1.0, "not on the ladder" if mine is None else "alone on the ladder")
        below = sum(1 for row in rows if row.rating < mine.rating)
        equal = sum(1 for row in rows if row.rating == mine.rating) - 1
        fraction = (below + equal / 2) / (len(rows) - 1)
        return Measured(fraction, f"rating {mine.rating:.0f}, above {fraction:.0%} of the course's {len(rows)} bots",
                        facts={"rating": mine.rating, "bots": len(rows)})



@register
class SproutsWinningMoves(PlaysBuiltin):
    """Of the graded bot's moves made in a won position, the share that kept it won (the solver's verdict)."""

    kind = "winning_moves"
    title = "winning moves kept"
    games_supported = ("sprouts",)
    default_opponent = "random"

    FULL_AT = Option("full_at", "Full marks from this share of winning moves kept (0.01 to 1)", 1.0, 0.01, 1.0)
    options = (PlaysBuiltin.GAMES, FULL_AT)

    def clean(self, assignment, params):
        cleaned = super().clean(assignment, params)
        cleaned["full_at"] = self.FULL_AT.read(params)
        return cleaned

    def describe(self, params):
        return f"winning moves kept in won positions vs {params['opponent']} (full at {params['full_at']:.0%})"

    def explain(self, params):
        return (f"Over {params['games']} games against {params['opponent']}, keep a won position won with at least "
                f"{params['full_at']:.0%} of your moves for full marks; fewer earn their share.")

    def measure(self, context, params):
        ids, rows = self._analysed_moves(context, params)
        won = [row for row in rows if row["verdict"] in (KEEPS_WIN, THROWS_WIN)]
        kept, chances = sum(row["verdict"] == KEEPS_WIN for row in won), len(won)
        if not chances:
            return Measured(0.0, "never had a won position to keep", ids, {"winning_move_rate": None})
        rate = kept / chances
        return Measured(min(1.0, rate / params["full_at"]),
                        f"kept the win with {kept} of {chances} moves made in won positions ({rate:.0%})", ids,
                        {"winning_move_rate": rate})


@register
class TeamScore(PartType):
    """Sorted!: the graded bot plays the whole team on N seeded deals; the average team score is graded
    (full marks at `full_at` or better, none at `zero_at` or worse, linear between; lower is better)."""

    kind = "team_score"
    title = "team score"
    games_supported = ("sorted",)

    GAMES = Option("games", "Deals", 10, 1, 200, int)
    FULL_AT = Option("full_at", "Full marks at this average team score or lower", 0.0, 0.0, 1000.0)
    ZERO_AT = Option("zero_at", "No marks at this average team score or higher", 10.0, 0.1, 1000.0)
    options = (GAMES, FULL_AT, ZERO_AT)

    def clean(self, assignment, params):
        super().clean(assignment, params)
        full_at, zero_at = self.FULL_AT.read(params), self.ZERO_AT.read(params)
        if zero_at <= full_at:
            raise PartError("zero_at must be worse (higher) than full_at", "zero_at")
        return {"games": self.GAMES.read(params), "full_at": full_at, "zero_at": zero_at}

    def describe(self, params):
        return f"average team score over {params['games']} deals (full marks at {params['full_at']:g}, none at " \
               f"{params['zero_at']:g})"

    def explain(self, params):
        return (f"Play the whole team on {params['games']} deals: an average team score of {params['full_at']:g} "
                f"or lower earns full marks (0 is perfect), {params['zero_at']:g} or higher none, linear between.")

    def needs(self, assignment, params):
        return [GameNeed("", derived_seed(assignment.seed, deal), 0) for deal in range(params["games"])]

    def measure(self, context, params):
        matches = sorted(context.played.values(), key=lambda match: match.pk)
        scores = [next(seat.score for seat in match.seats.all() if seat.seat == 0) for match in matches]
        average = sum(scores) / len(scores) if scores else params["zero_at"]
        won = sum(1 for match in matches if match.winners)
        span = params["zero_at"] - params["full_at"]
        fraction = min(1.0, max(0.0, (params["zero_at"] - average) / span))
        return Measured(fraction, f"average team score {average:.2f} over {len(scores)} deals ({won} sorted)",
                        [match.pk for match in matches], {"average_score": average, "won": won})
