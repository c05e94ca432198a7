"""Creating matches and running them exactly once.

A match goes queued -> running -> finished (or set aside, or cancelled). Delivery of the run task is
at-least-once (late acks, re-delivery when a worker dies, the periodic re-queue of stuck matches); the
result is recorded exactly once because:

- a worker *claims* a match in a locked transaction: queued, or running past its deadline (its previous
  worker is presumed lost), becomes running with a fresh claim token, a later deadline and attempts + 1;
- the result is recorded in one transaction that flips running -> finished with a conditional UPDATE on
  that claim token (a compare-and-set in the database), so only the current claim can record it, once;
  the seats, the replay and whatever the receivers of `signals.match_finished` write (ratings, the
  validation verdict, tournament progress) are written in that same transaction.

A message can also be lost before any worker took it (a broker restarted without persistence): a queued
match carries a deadline too, and one still queued past it is dispatched again (see requeue_stuck).

A bot's failure is a verdict in the result (its seat's status) and the match finishes. Anything else that
goes wrong running a match is the platform's fault (the database, the broker, the sandbox engine, a bug of
ours): it is kept on the match for the operator (`fault`, with its traceback, and a log line with the match
id), never rated, and the match is queued again at once. Each claim counts an attempt, whether the attempt
raised or its worker died (the sweep and a re-delivered message count those); a match whose attempts reach
ARENA_MATCH_MAX_ATTEMPTS and fails once more is *set aside* with its reason instead of being delivered
forever: an ending, announced on match_finished like a result, until the staff queue it again (requeue).

Every change of status that other apps hear of goes through `change_status` (finishing, a fault queued
again or set aside, a cancel, a re-queue by the staff or the sweep): the compare-and-set and the signals
(`signals.match_status_changed`, and `match_finished` for an ending) are one step, so no path can change a
status silently. Only the claim (queued -> running) is not announced: no app waits on a match starting
(only its spectators, whose live streams every status change wakes, the claim's too: matches.spectating).
"""

import logging
import random
import traceback
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Max, Min, Prefetch, Q, prefetch_related_objects
from django.utils import timezone
from games import ConfigError, get_game

from arena.accounts.access import attends
from arena.core import budget, live
from arena.core.errors import Invalid, NotAllowed
from arena.core.queue import Priority, publish_on_commit
from arena.bots.models import Bot, BotVersion

from . import runner, spectating
from .models import Match, MatchSeat
from .signals import challenge_requested, match_finished, match_status_changed
from .transient import TRANSIENT_ERRORS, retrying

log = logging.getLogger(__name__)


class ChallengeError(Invalid):
    """A challenge that cannot be played; the message says why."""


class ChallengeNotAllowed(ChallengeError, NotAllowed):
    """A challenge with a bot that is not the user's (403)."""


# --- creating matches ---------------------------------------------------------------------------------

def create_match(game: str, bots: list[Bot], *, purpose: str, rated: bool, created_by=None,
                 versions: dict[int, BotVersion] | None = None, config: dict | None = None,
                 variant=None, seed: int | None = None, rotate: bool = True, spectator_delay: int = 0) -> Match:
    """A queued match between `bots`, dispatched to the workers once the transaction commits.

    Seats are the bots' order rotated by one more place each time the same table meets again, so each
    bot sits in every seat equally often (seat order matters: End Game's first player can always at
    least tie); `rotate=False` seats them as given (a tournament series balances seats itself).
    `versions` pins the version a bot plays (by bot id); otherwise its active version. A course `variant`
    (variants.Variant) gives the options instead of `config`: the match keeps a copy. `seed` (default: a
    fresh random one) decides all chance in the match. Spectators watch it `spectator_delay` moves behind.
    """
    if variant is not None:
        config = variant.config
    versions = versions or {}
    if seed is None:
        seed = random.SystemRandom().getrandbits(48)
    with transaction.atomic():
        shift = Match.objects.between(bots).count() % len(bots) if rotate else 0
        seated = bots[shift:] + bots[:shift]
        match = Match.objects.create(
            game=game, config=config or {}, variant=variant, seed=seed, purpose=purpose, rated=rated,
            created_by=created_by, priority=priority_of(purpose, created_by), deadline=dispatch_deadline(),
            spectator_delay=spectator_delay,
        )
        MatchSeat.objects.bulk_create(
            MatchSeat(match=match, seat=number, bot=bot,
                      version=None if bot.is_builtin else versions.get(bot.pk) or bot.active_version)
            for number, bot in enumerate(seated)
        )
        dispatch(match)
    return match


def challenge(user, bot: Bot, opponents: list[Bot], *, rated: bool = False, variant=None) -> Match:
    """`user`'s active `bot` against active `opponents` (other students' bots or built-ins), under the
    standard rules or a `variant` of a course the user attends: unrated practice, always. `rated` is
    refused: the ladder's rated matches are chosen by the platform (ratings.matchmaking), so no student
    picks a rated opponent (issue 43: choosing a second account's weak bot farmed the ladder)."""
    if rated:
        raise ChallengeError(RATED_CHALLENGE_REFUSED)
    if bot.owner_id != user.pk:
        raise ChallengeNotAllowed("you can only challenge with your own bot")
    game = get_game(bot.game)
    everyone = seating(game, bot, opponents)
    if not game.min_players <= len(everyone) <= game.max_players:
        raise ChallengeError(f"{game.title} is played by {game.min_players} to {game.max_players} bots")
    if len({b.pk for b in opponents} | {bot.pk}) != len(opponents) + 1:
        raise ChallengeError("a bot cannot play against itself" if not game.cooperative else
                             "each teammate takes one seat: name a bot once, or play every seat alone")
    active = set(Bot.objects.active().filter(pk__in=[b.pk for b in everyone]).values_list("pk", flat=True))
    for each in everyone:
        if each.game != bot.game:
            raise ChallengeError(f"{each} plays {each.game}, not {bot.game}")
        if each.pk not in active:
            raise ChallengeError(f"{each} has no version that passed validation yet")
    if variant is not None:
        _check_variant(user, variant, game, len(everyone))
    with transaction.atomic():
        budget.admit(user, what="this challenge")
        challenge_requested.send(sender=Match, user=user, bots=everyone, rated=False, variant=variant)
        return create_match(bot.game, everyone, purpose=Match.Purpose.CHALLENGE, rated=False, created_by=user,
                            variant=variant)


RATED_CHALLENGE_REFUSED = ("challenges are unrated practice: the platform chooses every rated match on the "
                           "ladder (matchmaking), so play this one unrated")


def seating(game, bot: Bot, others: list[Bot]) -> list[Bot]:
    """The table of a match of `bot` with `others`: in a cooperative game a bot alone plays every seat."""
    if game.cooperative and not others:
        return [bot] * game.default_players
    return [bot, *others]


def priority_of(purpose: str, created_by) -> Priority:
    """The queue's priority of a match: the platform's grading runs and tournaments by their purpose, the
    rest by whose it is (a challenge or validation of staff, or of a student)."""
    if purpose == Match.Purpose.GRADING:
        return Priority.GRADING
    if purpose == Match.Purpose.TOURNAMENT:
        return Priority.TOURNAMENT
    if purpose == Match.Purpose.LADDER:
        return Priority.LADDER
    return Priority.STAFF if budget.is_staff(created_by) else Priority.STUDENT


class MatchWork:
    """The matches people start, for their budget (arena.core.budget): challenges and validations."""

    PEOPLES = (Match.Purpose.CHALLENGE, Match.Purpose.VALIDATION)

    def in_flight(self, user_id: int) -> int:
        return Match.objects.filter(created_by_id=user_id, purpose__in=self.PEOPLES,
                                    status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).count()

    def started_since(self, user_id: int, since) -> list:
        return list(Match.objects.filter(created_by_id=user_id, purpose__in=self.PEOPLES, created_at__gte=since)
                    .values_list("created_at", flat=True))


def _check_variant(user, variant, game, players: int) -> None:
    if not attends(user, variant.course):
        raise ChallengeError("that variant belongs to a course you do not take")
    if variant.game != game.name:
        raise ChallengeError(f"{variant.name} is a variant of {variant.game}, not {game.name}")
    try:
        game.new_game(players, variant.config)  # e.g. a deck too small to deal this many players
    except ConfigError as exc:
        raise ChallengeError(f"{variant.name} cannot seat {players} bots: {exc}") from exc


def dispatch_deadline():
    """When a match queued now is presumed to have lost its message if no worker has claimed it yet."""
    return timezone.now() + timedelta(seconds=settings.ARENA_MATCH_DEADLINE_SECONDS)


def dispatch(match: Match, *, again: bool = False, passes: int = 0) -> None:
    """Send the run task once the current transaction commits (a worker must see the match); sent `again`
    (its worker died, its message was lost, an operator re-queued it, it was passed over `passes` times
    for its bots' containers: see claim), ahead of the matches queued after it: its queue position counts
    by age."""
    publish_on_commit("matches.tasks.run_match", match.pk, *([passes] if passes else []), ahead=again,
                      priority=Priority(match.priority))


# --- running matches ----------------------------------------------------------------------------------

@dataclass
class Claim:
    match: Match
    token: uuid.UUID


@dataclass
class Route:
    """How the run task's claim routes a queued match to the host's warm containers of its bots (see
    `claim`): the times its message was passed over already, and whether it may wait for containers."""
    passes: int = 0
    wait: bool = True


@dataclass
class Busy:
    """The queued match `match_id` was not claimed: its bots' warm containers on this host are all in the
    matches `running`, and no other queued match is free of theirs (see `claim`)."""
    match_id: int
    running: list[int]


# A queued match whose bots' warm containers on this host are all in other matches is passed over, at most
# this many times in all, for the most urgent then oldest queued match whose bots' are not, never one of a
# less urgent priority (its message sent again ahead of the queue: the next free worker process takes it),
# or waits for them (matches.tasks.run_match, each wait a pass): the match playing them ends within a match
# or two of the other process's, and a match is never deferred for ever.
MAX_PASSES = 4
# When no other queued match is free of them either, its worker waits for those matches to end at most as
# long as starting containers takes on the host lately (runner.container_start_seconds: the seats' start
# at once), then plays it, starting them: waiting never costs more than twice the better choice.


def claim(match_id: int, route: Route | None = None) -> Claim | Busy | float | None:
    """Take the match for this attempt: a Claim; or seconds until another attempt's deadline; or None when
    there is nothing to run (finished, cancelled, gone).

    With a `route` (the run task's), a queued match that plays in warm containers is routed to the host's
    containers of its bots' versions, so that a host keeps one per version (issue 27): if they are all in
    matches running now (as many of its seats as it has containers, none idle), the claim takes the oldest
    queued match free of those instead (a Claim of that match; this one is sent again, ahead, within
    MAX_PASSES), or else, if `route.wait`, takes nothing and says which matches hold them (Busy). A version
    with no container yet, seated in a running match, counts as held: that match is starting it.

    Its message, if it is still on its way, then finds the match taken and comes back at its deadline as a
    duplicate does (harmless: the claim). The running matches are every host's: with several worker
    hosts, a version playing on another counts as held here too (a pass or a wait for nothing, bounded)."""
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        # The time once the lock is ours: an attempt that waited behind another's claim must not count the
        # wait, or it would come back later than that claim's deadline.
        now = timezone.now()
        if match is None or match.is_over:
            return None
        if match.status == Match.Status.RUNNING and match.deadline > now:
            return (match.deadline - now).total_seconds()
        if match.status == Match.Status.RUNNING and match.attempts >= settings.ARENA_MATCH_MAX_ATTEMPTS:
            # The running attempt's worker is presumed lost, and it was the last one allowed: a match that
            # keeps killing its worker (a poison match) stops here rather than being delivered forever.
            _set_aside(match, WORKER_LOST, now)
            return None
        if route is not None and match.status == Match.Status.QUEUED:
            chosen = _next_to_play(match, now)
            if chosen.pk != match.pk:
                log.info("match %s is played before match %s (its priority, or its owner's turn)", chosen.pk, match.pk)
                dispatch(match, again=True, passes=route.passes)
                match = chosen
        if route is not None and match.status == Match.Status.QUEUED and runner.routes_by_container(match):
            routed = _route(match, route, now)
            if isinstance(routed, Busy):
                return routed
            match = routed
        match.status = Match.Status.RUNNING
        match.claim = uuid.uuid4()
        match.attempts += 1
        match.started_at = now
        match.deadline = now + timedelta(seconds=settings.ARENA_MATCH_DEADLINE_SECONDS)
        match.save(update_fields=["status", "claim", "attempts", "started_at", "deadline"])
        live.publish(spectating.topic(match.pk))
    return Claim(match, match.claim)


def _next_to_play(match: Match, now) -> Match:
    """The queued match the run task's message of queued `match` plays, locked: the database says what runs
    next, whichever message woke the worker, so the broker's order is no more than a first cut.

    The most urgent priority queued first (arena.core.queue.Priority): a grading run's games before a
    tournament's, before the staff's work, before the students'; the platform's own in the order queued.
    People's work goes round-robin between owners, not first come: the owner with the fewest matches
    running, then the one whose last match started longest ago; each owner's own in the order queued (their
    messages'). `match` itself unless another is due before it; its message is then sent again, ahead of
    its class (claim), so every queued match keeps a message that plays it or one due before it."""
    others = Match.objects.queued().exclude(pk=match.pk)
    rivals = Q(priority__lt=match.priority)
    if match.priority >= Priority.STAFF:
        rivals |= Q(priority=match.priority) & ~Q(created_by=match.created_by)
    top = others.filter(rivals).aggregate(top=Min("priority"))["top"]
    if top is None:
        return match
    pool = Match.objects.queued().filter(priority=top).select_for_update(skip_locked=True, of=("self",))
    if top < Priority.STAFF:  # the platform's own: in the order queued
        return pool.order_by("pk").first() or match
    owners = dict(Match.objects.queued().filter(priority=top).values_list("created_by").annotate(first=Min("pk")))
    if match.priority == top:
        owners[match.created_by_id] = match.pk  # its owner's turn plays this match: their messages' order
    for owner in sorted(owners, key=_owner_turns(owners, now).__getitem__):
        if owner == match.created_by_id and match.priority == top:
            return match
        chosen = pool.filter(created_by=owner).order_by("pk").first()
        if chosen is not None:  # (None: another worker is claiming that owner's first at this moment)
            return chosen
    return match


# How far back an owner's last match start counts for their turn (older ones are all long ago alike).
TURN_MEMORY = timedelta(hours=1)


def _owner_turns(owners: dict, now) -> dict:
    """The order in which `owners` ({owner id or None: their first queued match}) have their turn: fewest
    matches running, then longest since their last match started, then the oldest queued match."""
    whose = Q(created_by__in=[owner for owner in owners if owner is not None])
    if None in owners:
        whose |= Q(created_by__isnull=True)
    running = dict(Match.objects.filter(whose, status=Match.Status.RUNNING).values_list("created_by")
                   .annotate(count=Count("pk")))
    started = dict(Match.objects.filter(whose, started_at__gte=now - TURN_MEMORY).values_list("created_by")
                   .annotate(last=Max("started_at")))
    long_ago = now - TURN_MEMORY
    return {owner: (running.get(owner, 0), started.get(owner, long_ago), first) for owner, first in owners.items()}


def _route(match: Match, route: Route, now) -> Match | Busy:
    """The match to claim for `match`'s message (see `claim`), locked: `match`, or another queued one; or Busy."""
    if connection.vendor == "postgresql":
        # One routing decision at a time, until this claim commits: two claims at once would each see the
        # other's versions free (SQLite's transactions are one at a time already).
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [ROUTING_LOCK])
    seats_in_play = _seats_in_play(now)
    its_seats = match.seats.exclude(version=None).values("version")
    # The usual case asked in one statement: none of its versions is in a running match.
    if not seats_in_play.filter(version__in=its_seats).exists():
        return match
    running: dict[int, list[int]] = {}
    for version, match_id in seats_in_play.values_list("version", "match"):
        running.setdefault(version, []).append(match_id)
    mine = {seat["version"] for seat in its_seats}
    # The versions whose containers here are all taken: none idle for another match.
    held = {version.pk: running[version.pk]
            for version in BotVersion.objects.filter(pk__in=running).select_related("bot")
            if len(running[version.pk]) >= runner.warm_containers(version)}
    held_mine = mine & held.keys()
    if not held_mine:
        return match
    if route.passes < MAX_PASSES:
        # Never one of a less urgent priority (_next_to_play): a student's burst does not overtake the staff's
        # or the platform's match waiting for its containers.
        other = (Match.objects.queued().exclude(pk=match.pk).exclude(seats__version__in=held.keys())
                 .filter(priority__lte=match.priority)
                 .select_for_update(skip_locked=True, of=("self",)).order_by("priority", "pk").first())
        if other is not None:
            log.info("match %s: its bots' containers are in matches; match %s is played first", match.pk, other.pk)
            dispatch(match, again=True, passes=route.passes + 1)
            return other
    if route.wait:
        return Busy(match.pk, sorted({match_id for version in held_mine for match_id in held[version]}))
    return match


# The PostgreSQL advisory lock of the routing decisions (any number; one name in the whole database).
ROUTING_LOCK = 2_700_027


def _seats_in_play(now):
    """The seats of uploaded versions in running matches (a match past its deadline is presumed lost, its
    containers with it)."""
    return MatchSeat.objects.filter(match__status=Match.Status.RUNNING, match__deadline__gt=now).exclude(version=None)


def wait_for_containers(busy: Busy) -> bool:
    """Wait for the matches holding a Busy match's containers to end (their status changes are published on
    their live topics), at most as long as starting containers takes here: whether they have."""
    still = Match.objects.filter(pk__in=busy.running, status=Match.Status.RUNNING)
    return live.wait_until([spectating.topic(pk) for pk in busy.running], lambda: not still.exists(),
                           runner.container_start_seconds())


def run(claimed: Claim) -> bool:
    """Play a claimed match and record its result; False if another attempt had taken it over meanwhile.

    Recording is retried at once on a transient database error (a locked SQLite file, a restarted
    PostgreSQL): the played result is in hand, and replaying the match would waste it. Any other exception,
    playing or recording, is a platform fault (record_fault).
    """
    match = with_seats(claimed.match)
    try:
        result = runner.play(match, list(match.seats.all()))
        return retrying(record_result, claimed, result, patience=RECORD_PATIENCE)
    except TRANSIENT_ERRORS:
        # The database stayed away past the patience: nothing can be written now. The match stays claimed
        # until its deadline, when the sweep queues it again (that attempt counted).
        raise
    except Exception as exc:
        log.exception("match %s: platform fault on attempt %d of %d", match.pk, match.attempts,
                      settings.ARENA_MATCH_MAX_ATTEMPTS)
        return retrying(record_fault, claimed, exc, patience=RECORD_PATIENCE)


# Seconds to keep retrying the recording of a played match before leaving it to the deadline sweep.
RECORD_PATIENCE = 120.0

# How much of a fault's traceback is kept (a RecursionError's runs to megabytes).
FAULT_CHARS = 20_000

# The reason of an attempt that never reported back: its worker was killed, or it ran past its deadline.
WORKER_LOST = "its worker was lost (killed, or still running past the match's deadline)"


SEAT_RESULT_FIELDS = ["score", "placing", "status", "detail", "log", "think_time", "decisions"]


def record_result(claimed: Claim, result) -> bool:
    """Write the result of a claimed match, exactly once (see the module docstring)."""

    def write_seats(match: Match) -> None:
        # The seats loaded to play the match, updated in place: the receivers of the announcement (ratings,
        # notifications) read these very rows, with their bots and owners, without asking the database again.
        seats = list(match.seats.all())
        for seat in seats:
            played = result.players[seat.seat]
            seat.score, seat.placing, seat.status = played.score, played.placing, played.status
            seat.detail, seat.log = played.detail, played.log
            seat.think_time, seat.decisions = played.think_time, played.decisions
        MatchSeat.objects.bulk_update(seats, SEAT_RESULT_FIELDS)  # one query for every seat

    return _conclude(claimed, Match.Status.FINISHED, then=write_seats, finished_at=timezone.now(),
                     winners=result.winners, replay=result.replay)


def record_fault(claimed: Claim, exc: BaseException) -> bool:
    """The platform failed this attempt (not a bot): keep the exception on the match, and queue it again at
    once, or set it aside when this was its last allowed attempt. Exactly once, like a result."""
    # Its end: the innermost frames. PostgreSQL's text refuses NUL, which a message may quote.
    fault = "".join(traceback.format_exception(exc))[-FAULT_CHARS:].replace("\x00", "\\x00")
    summary = f"{type(exc).__name__}: {exc}".replace("\x00", "\\x00")
    if claimed.match.attempts < settings.ARENA_MATCH_MAX_ATTEMPTS:
        return _conclude(claimed, Match.Status.QUEUED, then=_dispatch_again, claim=None,
                         deadline=dispatch_deadline(), fault=fault)
    return _conclude(claimed, Match.Status.SET_ASIDE, then=_log_set_aside, finished_at=timezone.now(), fault=fault,
                     error=set_aside_reason(claimed.match.attempts, summary))


def _dispatch_again(match: Match) -> None:
    dispatch(match, again=True)


def _log_set_aside(match: Match) -> None:
    log.error("match %s set aside: %s", match.pk, match.error)


def set_aside_reason(attempts: int, last: str) -> str:
    return f"set aside after {attempts} attempt{'s' if attempts != 1 else ''}; the last failed on the platform: {last}"


def _set_aside(match: Match, reason: str, now) -> None:
    """Set aside `match`, locked running by the caller's transaction, whose last attempt's worker was lost."""
    change_status(match, Match.Status.SET_ASIDE, expected=[Match.Status.RUNNING], then=_log_set_aside, claim=None,
                  finished_at=now, error=set_aside_reason(match.attempts, reason))


def with_seats(match: Match) -> Match:
    """`match` with its seats in seat order, each with its bot, owner and version, loaded once for
    `match.seats.all()` (nothing is fetched again if they already are)."""
    seats = MatchSeat.objects.select_related("bot__owner", "version").order_by("seat")
    prefetch_related_objects([match], Prefetch("seats", queryset=seats))
    return match


def _conclude(claimed: Claim, status: str, *, then: Callable[[Match], None], **fields) -> bool:
    """End this attempt only if the match is still running under its claim (see change_status)."""
    if not change_status(claimed.match, status, expected=[Match.Status.RUNNING], claim_token=claimed.token,
                         then=then, **fields):
        log.warning("match %s: result of a superseded attempt discarded", claimed.match.pk)
        return False
    return True


# The statuses a match ends in that are announced on match_finished too (a cancelled match is not a result).
ENDINGS = (Match.Status.FINISHED, Match.Status.SET_ASIDE)


def change_status(match: Match, status: str, *, expected: Iterable[str], claim_token: uuid.UUID | None = None,
                  then: Callable[[Match], None] | None = None, **fields) -> bool:
    """Change `match`'s status to `status` with `fields`, only if it is one of `expected` (and, given a
    `claim_token`, still claimed by it), and announce it; False, changing and announcing nothing, otherwise.

    This is the compare-and-set every status change others hear of goes through, in one transaction:
    the conditional UPDATE, then `then(match)` (what belongs with the change: a result's seats, the
    dispatch of a queued match), then `match_status_changed` with the status before, and for an ending
    (finished, set aside) `match_finished`. `match` then holds what was written, with its seats (see
    with_seats), as the receivers see it. With one `expected` status the UPDATE alone decides (the worker's
    path: a fixed number of statements); with several the row is locked first to read which it was.
    """
    expected = list(expected)
    with transaction.atomic():
        candidates = Match.objects.filter(pk=match.pk, status__in=expected)
        if claim_token is not None:
            candidates = candidates.filter(claim=claim_token)
        if len(expected) == 1:
            previous = expected[0]
        else:
            previous = candidates.select_for_update().values_list("status", flat=True).first()
            if previous is None:
                return False
        if not candidates.update(status=status, **fields):
            return False
        match.status = status
        for name, value in fields.items():
            setattr(match, name, value)
        with_seats(match)
        if then is not None:
            then(match)
        match_status_changed.send(sender=Match, match=match, previous=previous, status=status)
        if status in ENDINGS:
            match_finished.send(sender=Match, match=match)
        live.publish(spectating.topic(match.pk))  # its watchers learn of it once it commits
    return True


# --- operations ---------------------------------------------------------------------------------------

def requeue(match: Match) -> bool:
    """Queue a match that is not finished again, by hand (set aside, cancelled, or stuck running), with a
    fresh count of attempts; False if finished."""
    unfinished = [status for status in Match.Status.values if status != Match.Status.FINISHED]
    return change_status(match, Match.Status.QUEUED, expected=unfinished, then=_dispatch_again, claim=None,
                         deadline=dispatch_deadline(), error="", attempts=0, finished_at=None)


def cancel(match: Match) -> bool:
    """Cancel a queued or running match; a worker still playing it will find its claim gone."""
    return change_status(match, Match.Status.CANCELLED, expected=[Match.Status.QUEUED, Match.Status.RUNNING],
                         claim=None, finished_at=timezone.now())


def requeue_stuck(now=None) -> int:
    """Dispatch again every match past its deadline, running (its worker died) or still queued (its message
    was lost); returns how many. A running one whose lost attempt was its last allowed is set aside instead.
    A match merely waiting behind a long queue gets one duplicate message per deadline, which the claim makes
    harmless."""
    now = now or timezone.now()
    requeued = 0
    for match_id in Match.objects.stuck(now).values_list("pk", flat=True):
        with transaction.atomic():
            # Only if still stuck: a worker may have claimed it since the listing, and keeps it.
            match = Match.objects.stuck(now).select_for_update().filter(pk=match_id).first()
            if match is None:
                continue
            if match.status == Match.Status.RUNNING and match.attempts >= settings.ARENA_MATCH_MAX_ATTEMPTS:
                _set_aside(match, WORKER_LOST, now)
                continue
            if match.status == Match.Status.RUNNING:  # its worker is presumed lost
                change_status(match, Match.Status.QUEUED, expected=[Match.Status.RUNNING], then=_dispatch_again,
                              claim=None, deadline=dispatch_deadline())
            else:  # still queued: its message is presumed lost, and its status stays
                match.deadline = dispatch_deadline()
                match.save(update_fields=["deadline"])
                dispatch(match, again=True)
            requeued += 1
    return requeued
