"""Applying a finished rated match to the ratings, and recomputing all of them from the history."""

from dataclasses import dataclass, replace
from datetime import timedelta

from django.conf import settings
from django.db.models import Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from games import get_game
from games.core import ScoreOrder

from arena.bots.models import Bot
from arena.matches.models import MatchSeat

from . import elo
from .models import Rating

OUTCOME_FIELDS = {"win": "wins", "draw": "draws", "loss": "losses"}
RATING_FIELDS = ["value", "played", *OUTCOME_FIELDS.values(), "updated_at"]


def proof(seat, rating: Rating, at) -> tuple[bool, bool]:
    """How far a seat's results can be trusted when `at` ends its match: (its owner's account is at least
    ARENA_NEW_ACCOUNT_DAYS old, its bot has ARENA_PROVISIONAL_GAMES rated matches). Built-ins are proven."""
    owner = seat.bot.owner
    if owner is None:
        return True, True
    return (owner.date_joined <= at - timedelta(days=settings.ARENA_NEW_ACCOUNT_DAYS),
            rating.played >= settings.ARENA_PROVISIONAL_GAMES)


def weights(seats, ratings: list[Rating], at) -> list[float]:
    """Each seat's share of its Elo change: ARENA_LESS_PROVEN_WEIGHT when an opponent is less proven than it
    (a newer account, or a provisional bot where its own is established), else 1.

    What it stops: a second account whose throwaway bots lose on purpose feeds an established bot little
    (issue 24: 84 points in 4 minutes before). Equals count in full, so a new class's ladder settles as fast
    as before."""
    proofs = [proof(seat, rating, at) for seat, rating in zip(seats, ratings)]

    def faces_less_proven(seat: int) -> bool:
        return any(own and not theirs for other, proofs_of_other in enumerate(proofs) if other != seat
                   for own, theirs in zip(proofs[seat], proofs_of_other))

    return [settings.ARENA_LESS_PROVEN_WEIGHT if faces_less_proven(seat) else 1.0 for seat in range(len(seats))]


def rate(seats, ratings: list[Rating], at) -> list[tuple[float, float]]:
    """Apply one match, ended `at`, to `ratings` (one per seat, changed in place); return each seat's
    (before, after)."""
    placings = [seat.placing for seat in seats]
    befores = [rating.value for rating in ratings]
    changes = elo.rating_changes(befores, placings, settings.ARENA_ELO_K)
    for seat, rating, change, weight in zip(seats, ratings, changes, weights(seats, ratings, at)):
        rating.value += change * weight
        rating.played += 1
        field = OUTCOME_FIELDS[elo.outcome(seat.placing, placings)]
        setattr(rating, field, getattr(rating, field) + 1)
    return [(before, rating.value) for before, rating in zip(befores, ratings)]


def apply_match(match) -> None:
    """Update the seats' ratings for `match` and store each seat's rating before and after.

    Call inside the transaction that records the result: the rating rows are locked until it commits, so
    matches sharing a bot are applied one after the other, in the order they finish.
    """
    seats = list(match.seats.all())  # prefetched with their bots and owners by the recording (weights reads them)
    locked = Rating.objects.locked_for([seat.bot_id for seat in seats])
    ratings = [locked[seat.bot_id] for seat in seats]
    for seat, rating, (before, after) in zip(seats, ratings, rate(seats, ratings, match.finished_at)):
        seat.rating_before, seat.rating_after, seat.rated_number = before, after, rating.played
    MatchSeat.objects.bulk_update(seats, ["rating_before", "rating_after", "rated_number"])
    now = timezone.now()
    for rating in ratings:
        rating.updated_at = now  # bulk_update writes the fields as they are: auto_now is save()'s
    Rating.objects.bulk_update(locked.values(), RATING_FIELDS)


def on_match_finished(sender, match, **kwargs) -> None:
    """The match_finished receiver: rate a finished rated match (in the transaction recording it)."""
    if match.rated and match.status == match.Status.FINISHED and not get_game(match.game).cooperative:
        apply_match(match)


def recompute(matches) -> tuple[dict[int, Rating], list[MatchSeat]]:
    """Every rating recomputed from `matches` (in the order they were applied), from the initial rating.

    Returns unsaved Rating objects by bot id, and every seat whose stored before/after disagrees with the
    recomputation, unsaved, its `stored` before/after kept aside and the recomputed ones set.
    """
    ratings: dict[int, Rating] = {}
    wrong = []
    for match in matches:
        seats = list(match.seats.select_related("bot__owner"))
        for seat in seats:
            ratings.setdefault(seat.bot_id, Rating(bot_id=seat.bot_id, value=settings.ARENA_ELO_INITIAL))
        for seat, (before, after) in zip(seats, rate(seats, [ratings[seat.bot_id] for seat in seats],
                                                     match.finished_at)):
            number = ratings[seat.bot_id].played
            if not (_close(seat.rating_before, before) and _close(seat.rating_after, after)
                    and seat.rated_number == number):
                seat.stored = (seat.rating_before, seat.rating_after)
                seat.rating_before, seat.rating_after, seat.rated_number = before, after, number
                wrong.append(seat)
    return ratings, wrong


def _close(stored: float | None, computed: float) -> bool:
    return stored is not None and abs(stored - computed) < 1e-6


def ranked_bots(game: str):
    """Every active bot of `game`, best rating first, as a queryset to page through: each bot is annotated
    with `current` (its rating; the initial one if it never played rated) and `rated_played`."""
    return (
        Bot.objects.active().for_game(game).select_related("owner", "rating")
        .annotate(current=Coalesce("rating__value", Value(settings.ARENA_ELO_INITIAL)),
                  rated_played=Coalesce("rating__played", Value(0)))
        .order_by("-current", "id")
    )


@dataclass(frozen=True)
class LadderBot:
    """What a ladder row holds of its bot: all a ladder shows of it, plain data that a cache may keep (no
    account data), the same for the pages, the API and grading."""

    pk: int
    label: str
    owner_id: int | None  # None for a built-in

    @classmethod
    def of(cls, bot: Bot) -> "LadderBot":
        return cls(bot.pk, bot.label, bot.owner_id)


@dataclass(frozen=True)
class LadderRow:
    """A bot's line on a game's Elo ladder."""

    rank: int | None  # None for a provisional bot where the ladder lists those apart (see standing_rows)
    bot: LadderBot
    rating: float
    played: int  # rated matches
    wins: int
    draws: int
    losses: int
    # Fewer than ARENA_PROVISIONAL_GAMES rated matches: a rating that says little yet.
    provisional: bool

    def unranked(self) -> "LadderRow":
        return replace(self, rank=None)


@dataclass(frozen=True)
class TeamLadderRow:
    """A bot's line on a cooperative game's ladder: its average team score, not a rating."""

    rank: int | None  # None until it has played
    bot: LadderBot
    average_score: float | None
    played: int
    wins: int
    losses: int
    provisional: bool  # not played yet: listed after the ranked


def ladder_rows(bots, first_rank: int = 1) -> list[LadderRow]:
    """The ladder's rows for `bots` (from ranked_bots, maybe one page of it), ranked from `first_rank`."""
    rows = []
    for rank, bot in enumerate(bots, start=first_rank):
        rating = getattr(bot, "rating", None) or Rating(bot=bot, value=settings.ARENA_ELO_INITIAL)
        rows.append(LadderRow(rank=rank, bot=LadderBot.of(bot), rating=rating.value, played=rating.played,
                              wins=rating.wins, draws=rating.draws, losses=rating.losses,
                              provisional=rating.played < settings.ARENA_PROVISIONAL_GAMES))
    return rows


def ladder(game: str) -> list[LadderRow]:
    """Every active bot of `game`, best rating first (bots that never played rated have the initial one)."""
    return ladder_rows(ranked_bots(game))


def team_ladder(game: str) -> list[TeamLadderRow]:
    """A cooperative game's ladder: every active bot by its average team score over its finished matches
    on the standard rules (validation aside), best first in the game's score order; bots that have not
    played are listed after the ranked ones, unranked."""
    rules = get_game(game)
    sign = 1 if rules.score_order == ScoreOrder.LOWER_IS_BETTER else -1
    played: dict[int, dict[int, tuple[float, bool]]] = {}
    seats = (MatchSeat.objects.filter(match__game=game, match__status="finished", match__variant__isnull=True,
                                      score__isnull=False).exclude(match__purpose="validation")
             .values_list("bot_id", "match_id", "score", "match__winners"))
    for bot_id, match_id, score, winners in seats:  # a bot filling several seats counts its match once
        played.setdefault(bot_id, {})[match_id] = (score, bool(winners))
    scored = []
    for bot in Bot.objects.active().for_game(game).select_related("owner"):
        games = list(played.get(bot.pk, {}).values())
        average = sum(score for score, _ in games) / len(games) if games else None
        scored.append((LadderBot.of(bot), average, games))
    scored.sort(key=lambda entry: (entry[1] is None, sign * (entry[1] or 0), entry[0].pk))
    return [TeamLadderRow(rank=rank if games else None, bot=bot, average_score=average, played=len(games),
                          wins=sum(won for _, won in games), losses=sum(not won for _, won in games),
                          provisional=not games)
            for rank, (bot, average, games) in enumerate(scored, start=1)]


def rated_seats():
    """Seats of rated matches, bot by bot, each bot's in the order its ratings were applied."""
    return MatchSeat.objects.filter(rating_after__isnull=False).order_by("bot_id", "rated_number")


def history(bot) -> list[dict]:
    """The bot's rating after each rated match, in the order they were applied."""
    return [
        {"match": seat.match_id, "finished_at": seat.match.finished_at,
         "rating_before": seat.rating_before, "rating_after": seat.rating_after}
        for seat in rated_seats().filter(bot=bot).select_related("match")
    ]
