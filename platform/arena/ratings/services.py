"""Applying a finished rated match to the ratings, and recomputing all of them from the history.

Rated matches are the ones the platform chose (ratings.matchmaking, or a staff's rated tournament): the
model is in skill.py, its parameters in settings (ARENA_RATING_*).
"""

from dataclasses import dataclass, replace

from django.conf import settings
from django.db.models import BooleanField, ExpressionWrapper, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from games import get_game

from arena.bots.models import Bot
from arena.matches.models import MatchSeat

from .models import Rating
from .skill import Model, RecordedMatch, Replayed, Skill, replay

RATING_FIELDS = ["mu", "sigma", "value", "played", "wins", "draws", "losses", "updated_at"]


def model() -> Model:
    return Model(mu=settings.ARENA_RATING_MU, sigma=settings.ARENA_RATING_SIGMA, k=settings.ARENA_RATING_K)


def initial_value() -> float:
    """A bot's ladder value before its first rated match (mu - k sigma of the prior: 0 by default)."""
    return model().initial().conservative(settings.ARENA_RATING_K)


def is_provisional(sigma: float) -> bool:
    return sigma > settings.ARENA_PROVISIONAL_SIGMA


def recorded(match, seats) -> RecordedMatch:
    """`match` with its `seats` as the model replays it: a cooperative game's team against the optimum."""
    rules = get_game(match.game)
    keyed = [(seat, seat.bot_id, seat.placing or len(seats)) for seat in seats]
    if not rules.cooperative:
        return RecordedMatch(keyed)
    return RecordedMatch(keyed, over_optimum=over_optimum(rules, seats))


NO_SCORE = 1e6  # beyond every yardstick


def over_optimum(rules, seats) -> float:
    """How far a cooperative match's team score fell short of the game's exact optimum (its perfect score:
    Sorted! counts the turns beyond the fewest the deal allows); a match without a score is the worst."""
    scores = [seat.score for seat in seats if seat.score is not None]
    if not scores:
        return NO_SCORE
    return max(0.0, abs(scores[0] - rules.perfect_score))


def stored_rating(bot_id: int, state: Replayed) -> Rating:
    """An unsaved Rating row of a bot in `state`."""
    rating = Rating(bot_id=bot_id)
    _store(rating, state)
    return rating


def _store(rating: Rating, state: Replayed) -> None:
    rating.mu, rating.sigma = state.skill.mu, state.skill.sigma
    rating.value = state.skill.conservative(settings.ARENA_RATING_K)
    rating.played, rating.wins, rating.draws, rating.losses = state.played, state.wins, state.draws, state.losses


def _state(rating: Rating) -> Replayed:
    return Replayed(Skill(rating.mu, rating.sigma), rating.played, rating.wins, rating.draws, rating.losses)


def apply_match(match) -> None:
    """Update the seats' ratings for `match` and store each seat's ladder value before and after.

    Call inside the transaction that records the result: the rating rows are locked until it commits, so
    matches sharing a bot are applied one after the other, in the order they finish.
    """
    seats = list(match.seats.all())
    locked = Rating.objects.locked_for([seat.bot_id for seat in seats])
    states = {bot_id: _state(rating) for bot_id, rating in locked.items()}
    k = settings.ARENA_RATING_K
    for seat, before, after, number in replay(model(), [recorded(match, seats)], states):
        seat.rating_before = None if before is None else before.conservative(k)
        seat.rating_after = None if after is None else after.conservative(k)
        seat.rated_number = number
    MatchSeat.objects.bulk_update(seats, ["rating_before", "rating_after", "rated_number"])
    now = timezone.now()
    for bot_id, rating in locked.items():
        _store(rating, states[bot_id])
        rating.updated_at = now  # bulk_update writes the fields as they are: auto_now is save()'s
    Rating.objects.bulk_update(locked.values(), RATING_FIELDS)


def on_match_finished(sender, match, **kwargs) -> None:
    """The match_finished receiver: rate a finished rated match (in the transaction recording it)."""
    if match.rated and match.status == match.Status.FINISHED:
        apply_match(match)


def recompute(matches) -> tuple[dict[int, Rating], list[MatchSeat]]:
    """Every rating recomputed from `matches` (in the order they were applied), from the prior.

    Returns unsaved Rating objects by bot id, and every seat whose stored before/after disagrees with the
    recomputation, unsaved, its `stored` before/after kept aside and the recomputed ones set.
    """
    states: dict[int, Replayed] = {}
    k = settings.ARENA_RATING_K
    wrong = []

    def history():
        for match in matches:
            yield recorded(match, list(match.seats.all()))

    for seat, before, after, number in replay(model(), history(), states):
        values = (None if before is None else before.conservative(k), None if after is None else after.conservative(k))
        if not (_close(seat.rating_before, values[0]) and _close(seat.rating_after, values[1])
                and seat.rated_number == number):
            seat.stored = (seat.rating_before, seat.rating_after)
            (seat.rating_before, seat.rating_after), seat.rated_number = values, number
            wrong.append(seat)
    return {bot_id: stored_rating(bot_id, state) for bot_id, state in states.items()}, wrong


def _close(stored: float | None, computed: float | None) -> bool:
    if computed is None:
        return stored is None
    return stored is not None and abs(stored - computed) < 1e-6


def ranked_bots(game: str):
    """Every active bot of `game`, best ladder value (mu - k sigma) first, as a queryset to page through:
    each bot is annotated with `current` (its value; the prior's if it never played rated), `rated_played`
    and `provisional` (sigma still above ARENA_PROVISIONAL_SIGMA)."""
    return (
        Bot.objects.active().for_game(game).select_related("owner", "rating")
        .annotate(current=Coalesce("rating__value", Value(initial_value())),
                  rated_played=Coalesce("rating__played", Value(0)),
                  provisional=ExpressionWrapper(Q(rating__isnull=True)
                                                | Q(rating__sigma__gt=settings.ARENA_PROVISIONAL_SIGMA),
                                                output_field=BooleanField()))
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
    """A bot's line on a game's ladder."""

    rank: int | None  # None for a provisional bot where the ladder lists those apart (see standing_rows)
    bot: LadderBot
    rating: float  # mu - k sigma: what the ladder orders by
    mu: float
    sigma: float
    played: int  # rated matches
    wins: int
    draws: int
    losses: int
    # sigma above ARENA_PROVISIONAL_SIGMA: a rating that says little yet.
    provisional: bool

    def unranked(self) -> "LadderRow":
        return replace(self, rank=None)


def ladder_rows(bots, first_rank: int = 1) -> list[LadderRow]:
    """The ladder's rows for `bots` (from ranked_bots, maybe one page of it), ranked from `first_rank`."""
    rows = []
    for rank, bot in enumerate(bots, start=first_rank):
        rating = getattr(bot, "rating", None) or Rating.initial(bot=bot)
        rows.append(LadderRow(rank=rank, bot=LadderBot.of(bot), rating=rating.value, mu=rating.mu,
                              sigma=rating.sigma, played=rating.played, wins=rating.wins, draws=rating.draws,
                              losses=rating.losses, provisional=is_provisional(rating.sigma)))
    return rows


def ladder(game: str) -> list[LadderRow]:
    """Every active bot of `game`, best rating first (bots that never played rated have the initial one)."""
    return ladder_rows(ranked_bots(game))


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
