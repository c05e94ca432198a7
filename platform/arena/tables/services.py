"""Tables: open one, take an invited seat, move, leave; a person's time limit and the bots' decisions.

The table's game is games.table.Table, rebuilt from the row's `facts` for every change and every read: no
process holds it, so a web or worker restart mid-game loses nothing. Every change is written by `_save`, a
compare-and-set on the row's `version` (UPDATE ... WHERE version = n): of two moves for one turn (two tabs,
a double click, a person's move racing their time running out) exactly one is recorded, the other refused.

After each change the table's topic (`table:ID`) is published once the transaction commits, and what comes
next is queued: a bot's decision (tasks.play_bot_turns), or the check of a person's time at its deadline
(tasks.expire_turn). Both are idempotent (the database says whose turn it is), and neither is needed for the
game to go on: every read expires a person past their deadline (`current`), and the periodic sweep
(tasks.resume_tables) sends again the work of a table whose task was lost.

The API other apps use (the pairing room): `open_table` (seats, course, `tag`), `table_finished` (signals),
`join`, `move`, `leave`, `current`, `finished_replay`.
"""

import logging
import random
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from games import ConfigError, get_game
from games.contracts import is_verdict
from games.core import IllegalAction
from games.referee import seated
from games.table import (DEFAULT_MOVE_SECONDS, Checkpoint, MoveTooLate, NotYourTurn, Seat, StaleTurn, TableError,
                         TableOver)
from games.table import Table as GameTable

from arena.accounts.access import may_seat_bot
from arena.core import budget, live
from arena.core.api import MAX_ID
from arena.core.errors import Conflict, Invalid, NotAllowed, NotFound
from arena.core.queue import Priority, publish_on_commit

from .models import Table, TableSeat, new_invitation_token
from .signals import table_finished

log = logging.getLogger(__name__)

# A bot on move at a table unchanged for this long has lost its task (a worker died holding it): the sweep
# sends it again (the task is idempotent, so a slow bot decided twice costs time only). Late in a long game
# a bot's decision may take longer (it is told all its earlier ones first): the sweep then waits as long as
# its limits let that decision last (`_bot_task_patience`).
BOT_TASK_PATIENCE = timedelta(seconds=60)
INVITED = "(invited)"
# The position this process last rebuilt or recorded of each of the tables it touched lately: taking one up
# again replays only the moves since (GameTable.from_json's `known`), not the whole game at every move.
KNOWN_TABLES = 256
_known: OrderedDict[int, Checkpoint] = OrderedDict()
_known_lock = threading.Lock()


class TableRefused(Invalid):
    """A table, seat or move the rules refuse (400)."""


class TableConflict(Conflict):
    """The table is not where the request thought it was: the turn is over, it is another seat's move, the
    game is over or not started yet (409). Look at the table again."""


class NotAtTable(NotAllowed):
    """The user has no seat at this table to play (403)."""


@dataclass(frozen=True)
class SeatChoice:
    """Who plays one seat of a new table: a person seated now (`user`), a bot (`bot`: a built-in or an
    uploaded bot, which plays its active version), or a person who takes it by a link (`invite`)."""

    user: object = None
    bot: object = None
    invite: bool = False

    def __post_init__(self):
        if (self.user is not None) + (self.bot is not None) + bool(self.invite) != 1:
            raise TableRefused("a seat is exactly one of: a person, a bot, an invitation")


def open_table(opener, game_name: str, seats: list[SeatChoice], *, config: dict | None = None,
               move_seconds: float | None = DEFAULT_MOVE_SECONDS, course=None, tag: str = "",
               seed: int | None = None, admitted: bool = False) -> Table:
    """A new table of `game_name` opened by `opener`, one seat per entry of `seats` in order.

    A bot must be one `opener` may seat (accounts.access.seatable_bots), else NotAllowed; people are seated
    as given (a page seats only its user; the pairing room seats the students it paired), each at most once.
    The table plays at once unless a seat waits for an invitation to be taken (`join`). `tag` marks who
    opened it (the pairing room's round), `course` whose staff and students may watch it. TableRefused for a game, count,
    option or time per move the game refuses.

    A table with a bot seat draws from `opener`'s budget for bot work (arena.core.budget; OverBudget, 429,
    past it) unless the caller `admitted` it already (a pairing room's round): see `admit`."""
    try:
        game = get_game(game_name)
    except KeyError:
        raise TableRefused(f"no game called {game_name!r}") from None
    if not isinstance(tag, str) or len(tag) > Table._meta.get_field("tag").max_length:
        raise TableRefused("a table's tag is a text of at most 80 characters")
    users = [choice.user.pk for choice in seats if choice.user is not None]
    if len(users) != len(set(users)):
        raise TableRefused("a person takes one seat at a table")
    rows = []
    for number, choice in enumerate(seats):
        row = TableSeat(seat=number, user=choice.user, bot=choice.bot)
        if choice.invite:
            row.token = new_invitation_token()
        elif choice.bot is not None:
            if choice.bot.game != game.name:
                raise TableRefused(f"{choice.bot.label} plays {choice.bot.game}, not {game.name}")
            if not may_seat_bot(opener, choice.bot):
                raise NotAllowed(f"you may not seat {choice.bot.label}: your own bots, the built-ins and your "
                                 f"classmates' active bots only")
            if not choice.bot.is_builtin:
                row.version = choice.bot.active_version
        rows.append(row)
    try:
        game_table = GameTable.open(game, [_game_seat(row) for row in rows], config=config,
                                    seed=random.SystemRandom().randrange(2**62) if seed is None else seed,
                                    move_seconds=move_seconds)
    except (ConfigError, TableError) as exc:
        raise TableRefused(str(exc)) from None
    waiting = any(row.token for row in rows)
    with transaction.atomic():
        if not admitted:
            admit(opener, rows)
        table = Table.objects.create(
            game=game.name, config=game_table.state.config, seed=game_table.state.seed,
            move_seconds=game_table.move_seconds,
            facts=game_table.to_json(), status=Table.Status.WAITING if waiting else Table.Status.PLAYING,
            opened_by=opener if getattr(opener, "pk", None) else None, course=course, tag=tag)
        for row in rows:
            row.table = table
        TableSeat.objects.bulk_create(rows)
        _save(table, game_table)
    return table


def admit(opener, rows: list[TableSeat]) -> None:
    """Draw a new table's bot work from `opener`'s budget: a table with a bot seat counts one start in the
    rate; one with no person at it also holds a place in flight until it ends (its bots play on without
    pause). A person's table holds none: its bots decide once per move of that person, at their pace."""
    if any(row.bot is not None for row in rows):
        alone = not any(row.bot is None for row in rows)
        budget.admit(opener, starts=1, holds=1 if alone else 0, what="a table of bots" if alone else "this table")


class TableWork:
    """The tables people open with bots, for their budget (see `admit`)."""

    def in_flight(self, user_id: int) -> int:
        return (Table.objects.filter(opened_by_id=user_id).exclude(status=Table.Status.FINISHED)
                .exclude(seats__bot__isnull=True).count())

    def started_since(self, user_id: int, since) -> list:
        return list(Table.objects.filter(opened_by_id=user_id, created_at__gte=since, seats__bot__isnull=False)
                    .distinct().values_list("created_at", flat=True))


def _game_seat(row: TableSeat) -> Seat:
    return Seat(row.label if not row.is_open else INVITED, human=row.is_person)


def join(token: str, user) -> Table:
    """`user` takes the invited seat whose link has `token`; the table starts once every seat is taken.
    NotFound for a token that is no open invitation; TableConflict when `user` already sits at that table."""
    with transaction.atomic():
        row = (TableSeat.objects.select_for_update().select_related("table")
               .filter(token=token, user__isnull=True, bot__isnull=True).first()) if isinstance(token, str) else None
        if row is None:
            raise NotFound("no open invitation with this link (it was taken, or never was)")
        table = Table.objects.select_for_update().get(pk=row.table_id)
        if table.seats.filter(user=user).exists():
            raise TableConflict("you already have a seat at this table")
        row.user, row.token = user, None
        row.save(update_fields=["user", "token"])
        game_table = GameTable.from_json(table.facts)
        game_table.seats[row.seat] = Seat(user.username, human=True)
        if not table.seats.filter(user__isnull=True, bot__isnull=True).exists():
            table.status = Table.Status.PLAYING
            game_table.turn_started = timezone.now().timestamp()  # the clock starts when everyone is seated
        _save(table, game_table)
    return table


def seat_of(table: Table, user) -> int | None:
    """The seat `user` plays at `table`, or None."""
    if not user.is_authenticated:
        return None
    return table.seats.filter(user=user).values_list("seat", flat=True).first()


def _known_position(table_id: int) -> Checkpoint | None:
    with _known_lock:
        return _known.get(table_id)


def _remember(table_id: int, game_table: GameTable) -> None:
    """Keep where `game_table` is (a checkpoint) for this process's next rebuild of the table."""
    with _known_lock:
        _known[table_id] = game_table.checkpoint()
        _known.move_to_end(table_id)
        while len(_known) > KNOWN_TABLES:
            _known.popitem(last=False)


def current(table: Table) -> GameTable:
    """The table's game as it is now, after ending the turn of a person whose time ran out: every read checks
    it, so a lost timer task loses nothing."""
    for _ in range(3):
        game_table = GameTable.from_json(table.facts, known=_known_position(table.pk))
        _remember(table.pk, game_table)
        if table.status != Table.Status.PLAYING:
            return game_table
        if game_table.expire():
            try:
                _save(table, game_table)
            except TableConflict:  # another request recorded a change first: read it
                table.refresh_from_db()
                continue
        return game_table
    return game_table


def move(table: Table, user, turn: object, action: object) -> Table:
    """`user` plays `action` at `turn` (the number of moves they saw) for their seat.

    Refused with nothing recorded: NotAtTable, TableConflict (the turn is over, not their move, the game
    over or not started: StaleTurn's compare-and-set, then the row's), TableRefused (an illegal action).
    A move after their deadline records their `timeout` verdict and is refused (TableConflict)."""
    seat = seat_of(table, user)
    if seat is None:
        raise NotAtTable("you have no seat at this table")
    return _change(table, lambda game_table: game_table.human_move(seat, turn, action))


def leave(table: Table, user) -> Table:
    """`user` leaves the game for good: their seat ends with the verdict `timeout` (nothing when the game is
    over or their seat is already out)."""
    seat = seat_of(table, user)
    if seat is None:
        raise NotAtTable("you have no seat at this table")
    if table.status == Table.Status.WAITING:
        raise TableConflict("the game has not started: nothing to leave yet")
    return _change(table, lambda game_table: game_table.leave(seat))


def _change(table: Table, change) -> Table:
    """Apply `change` to the table's game and record it (compare-and-set), mapping the game's refusals."""
    if table.status == Table.Status.WAITING:
        raise TableConflict("the table waits for the people invited to take their seats")
    game_table = current(table)
    late = None
    try:
        change(game_table)
    except MoveTooLate as exc:  # the seat's timeout is recorded, the move refused
        late = exc
    except IllegalAction as exc:
        raise TableRefused(str(exc)) from None
    except (StaleTurn, TableOver, NotYourTurn) as exc:
        raise TableConflict(str(exc)) from None
    except TableError as exc:
        raise TableRefused(str(exc)) from None
    with transaction.atomic():
        _save(table, game_table)
    if late is not None:
        raise TableConflict(str(late))
    return table


def _save(table: Table, game_table: GameTable) -> None:
    """Record `game_table` as `table`'s facts if nobody changed the table since it was read (its version), then
    announce the change and queue what comes next; TableConflict, recording nothing, if somebody did."""
    now = timezone.now()
    fields = {"facts": game_table.to_json(), "version": table.version + 1, "status": table.status,
              "updated_at": now, "deadline": None}
    if table.status == Table.Status.PLAYING:
        deadline = game_table.deadline
        fields["deadline"] = None if deadline is None else datetime.fromtimestamp(deadline, dt_timezone.utc)
        if game_table.over:
            fields.update(status=Table.Status.FINISHED, winners=game_table.state.winners(), finished_at=now)
    with transaction.atomic():
        if not Table.objects.filter(pk=table.pk, version=table.version).update(**fields):
            raise TableConflict("the table changed meanwhile (another move came first): look at it again")
        for name, value in fields.items():
            setattr(table, name, value)
        _remember(table.pk, game_table)
        _after_change(table, game_table)
        if table.status == Table.Status.FINISHED:
            table_finished.send(sender=Table, table=table)
            publish_on_commit("tables.tasks.release_bots", table.pk)  # on a worker: where the holder runs


def _after_change(table: Table, game_table: GameTable) -> None:
    """Once the change commits: announce it, and queue the next bot decision or the check of the deadline."""
    live.publish(topic(table.pk))
    if table.status != Table.Status.PLAYING:
        return
    if _bot_on_move(game_table):
        _send_bot_turn(table)
    elif table.deadline is not None:
        seconds = (table.deadline - timezone.now()).total_seconds()
        publish_on_commit("tables.tasks.expire_turn", table.pk, countdown=max(0.0, seconds) + 0.5)


def topic(table_id: int) -> str:
    """The live topic (arena.core.live) of a table: published after each change, followed by its pages."""
    return f"table:{table_id}"


def _bot_on_move(game_table: GameTable) -> bool:
    return not game_table.over and not game_table.seats[game_table.seat_on_move].human


def _send_bot_turn(table: Table) -> None:
    # At the priority of whose table it is: a pairing room's (its staff) or staff's before the students'.
    staff = bool(table.tag) or budget.is_staff(table.opened_by)
    publish_on_commit("tables.tasks.play_bot_turns", table.pk, priority=Priority.STAFF if staff else Priority.STUDENT)


# --- the bots' decisions (run by tasks.play_bot_turns) ------------------------------------------------------

def play_bot_turns(table_id: int) -> int:
    """Let the bots on move at table `table_id` decide, one decision at a time, each in the sandbox as in a
    match and recorded before the next; until a person's turn or the end. Idempotent: the database says whose
    turn it is, and a decision another task recorded first is dropped (the compare-and-set). The number of
    decisions recorded.

    The host's seat holder (sandbox/holder.py) keeps each seat's bot running between its decisions
    (`_decide_held`), so a decision costs the same at any turn, whichever worker process of the host runs
    it. A bot it does not hold (its first decision, a decision taken on another host, a holder restarted,
    its idle time up) is started afresh there and told the game so far from the table's facts, then kept;
    the same happens in this process where no holder can be had (GameTable.bot_move_afresh). Either way the
    table's seed is given as a match gives its seed (a seeded built-in draws as in a match), a bot that keeps
    state plays as in a match, and a restart of any process mid-game loses nothing of what it was told."""
    from arena.matches import runner
    from sandbox.base import local_owner_prefix

    recorded = 0
    while True:
        table = Table.objects.filter(pk=table_id, status=Table.Status.PLAYING).first()
        if table is None:
            return recorded
        game_table = current(table)
        if not _bot_on_move(game_table):
            return recorded
        seat = game_table.seat_on_move
        row = table.seats.select_related("bot", "version").get(seat=seat)
        game = get_game(table.game)
        if not _decide_held(table, row, game, game_table):
            with tempfile.TemporaryDirectory(
                    prefix=f"{runner.FOLDER_PREFIX}{local_owner_prefix()}-table{table.pk}-") as folder, \
                    seated([runner.seat_opener(row, game, runner.playing_backend(), folder, table.seed)]) as (player,):
                game_table.bot_move_afresh(player)
        try:
            with transaction.atomic():
                _save(table, game_table)
        except TableConflict:
            return recorded  # another task or a person's leaving changed the table first
        recorded += 1
        if game_table.over:
            release_bots(table.pk)
        elif seat in game_table.state.failed_seats:  # its verdict is recorded: it is never asked again
            holder().release(held_key(table.pk, seat))


def holder():
    """This host's seat holder as the settings size it (sandbox/holder.py)."""
    from sandbox.holder import HolderClient

    return HolderClient(idle_seconds=settings.ARENA_TABLE_HOLD_SECONDS, max_held=settings.ARENA_TABLE_HOLD_MAX)


def deployment() -> str:
    """This deployment as a host's shared sandboxes know it (its database; see matches.tasks
    .share_warm_sandboxes): the seat holder serves every deployment of its host, never mixing them."""
    from django.db import connection

    database = connection.settings_dict
    return f"{database['HOST']}:{database['PORT']}/{database['NAME']}"


def held_key(table_id: int, seat: int | None = None) -> str:
    """What the seat holder keeps a seat's bot under (a prefix of them all for a table, without `seat`): the
    deployment, the table, the seat."""
    scope = f"{deployment()}/table:{table_id}/"
    return scope if seat is None else f"{scope}seat:{seat}/"


def _decide_held(table: Table, row: TableSeat, game, game_table: GameTable) -> bool:
    """The decision of `row`'s bot taken by the host's seat holder (recorded in `game_table` as any bot's: its
    action or its verdict); False, with nothing recorded, where no holder can be had (ARENA_TABLE_HOLD off,
    or none could be started)."""
    from arena.matches import runner
    from sandbox.holder import HeldPlayer, HolderUnavailable

    if not settings.ARENA_TABLE_HOLD:
        return False
    builtin = row.bot.builtin_name if row.bot.is_builtin else None
    bot = {"game": game.name, "builtin": builtin, "code": "" if builtin else row.version.code,
           "key": None if builtin else runner.warm_key(row.bot, row.version), "sandbox": runner.playing_backend(),
           "seed": table.seed, "seat": row.seat, "name": row.label, "scope": deployment()}
    try:
        game_table.bot_move_kept(HeldPlayer(holder(), held_key(table.pk, row.seat), bot,
                                            patience=_bot_task_patience(game_table).total_seconds()))
    except HolderUnavailable as error:
        log.warning("table %s: no seat holder (%s); the bot is started afresh for this decision", table.pk, error)
        return False
    return True


def release_bots(table_id: int) -> int:
    """Let go of the bots this host's seat holder keeps for table `table_id` (at its end); how many."""
    return holder().release(held_key(table_id))


def expire_turn(table_id: int) -> None:
    """The check at a person's deadline: their seat ends with `timeout` if they still have not moved."""
    table = Table.objects.filter(pk=table_id, status=Table.Status.PLAYING).first()
    if table is not None:
        current(table)


def resume_tables(now=None) -> int:
    """The sweep: expire the people past their deadline and send again the bots' lost decisions; how many
    tables it touched."""
    now = now or timezone.now()
    stale = Table.objects.filter(status=Table.Status.PLAYING, updated_at__lt=now - BOT_TASK_PATIENCE)
    overdue = Table.objects.filter(status=Table.Status.PLAYING, deadline__lt=now)
    tables = list((stale | overdue).distinct()[:500])
    for table in tables:
        game_table = current(table)
        if table.status == Table.Status.PLAYING and _bot_on_move(game_table) \
                and table.updated_at < now - _bot_task_patience(game_table):
            _send_bot_turn(table)
    return len(tables)


def _bot_task_patience(game_table: GameTable) -> timedelta:
    """How long the decision of the bot on move may last within its limits, at least BOT_TASK_PATIENCE: its
    setup, each of its earlier decisions told again and this one within the limit per decision, and its
    whole bank (docs/bot-protocol.md, "At a person's table")."""
    from sandbox import Limits

    limits = Limits.for_game(game_table.game)
    seat = game_table.seat_on_move
    told = sum(1 for event in game_table.events if event["seat"] == seat and not is_verdict(event))
    return max(BOT_TASK_PATIENCE, timedelta(seconds=limits.setup + (told + 1) * limits.decision + limits.bank))


# --- after the game ------------------------------------------------------------------------------------------

def finished_replay(table: Table) -> dict:
    """The finished table's replay, like any match's (players named as at the table)."""
    if table.status != Table.Status.FINISHED:
        raise TableConflict("the game at this table is not over: its replay comes at the end")
    return GameTable.from_json(table.facts).replay()


# A finished table stays on its course's page this long (a class period): its players and watchers find its
# replay there after the game.
RECENTLY_FINISHED = timedelta(hours=2)
COURSE_TABLES_SHOWN = 50


def course_tables(user, course, now=None) -> list[Table]:
    """The tables `course` watches that are being played (or wait for a person invited) or finished lately,
    newest first, for its page: all of them to whoever may watch them there (accounts.access.may_watch_table:
    the course's staff and students, operators), none to anyone else."""
    from arena.accounts.access import attends

    if not user.is_authenticated or not (user.is_superuser or attends(user, course)):
        return []
    now = now or timezone.now()
    going = Table.objects.filter(course=course, status__in=[Table.Status.PLAYING, Table.Status.WAITING])
    recent = Table.objects.filter(course=course, status=Table.Status.FINISHED,
                                  finished_at__gte=now - RECENTLY_FINISHED)
    return list((going | recent).order_by("-id")[:COURSE_TABLES_SHOWN])


def table_for(user, pk) -> Table:
    """Table `pk` if `user` may watch it (accounts.access.may_watch_table); NotFound otherwise, exactly as a
    table that does not exist."""
    from arena.accounts.access import may_watch_table

    table = Table.objects.filter(pk=pk).first() if isinstance(pk, int) and 0 < pk <= MAX_ID else None
    if table is None or not may_watch_table(user, table):
        raise NotFound("no such table")
    return table
