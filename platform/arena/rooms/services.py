"""Pairing rooms: open one, join and leave it, start its rounds, record its games' results, close it.

Who may do what is accounts.access: the course's staff run a room (`runs_rooms`), its students play in it
(`plays_in_rooms`). Rounds are started by the staff, one at a time, once the round before is over: the class
talks over its strategies between rounds, latecomers join, and the instructor decides how many rounds to
play. A round pairs the students present (games.tournament.pairing_room); every pair plays two games one after
the other, each student first once; the odd student out plays the room's built-in bot.
"""

from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from games import ConfigError, get_game
from games.core import short_repr
from games.table import DEFAULT_MOVE_SECONDS, TableError, check_move_seconds
from games.tournament.pairing_room import Pairing, builtin_games, meetings, pair_round

from arena.accounts.access import attends, plays_in_rooms, runs_rooms
from arena.bots.models import Bot
from arena.core import budget, live
from arena.core.api import MAX_ID
from arena.core.errors import Conflict, Invalid, NotAllowed, NotFound
from arena.tables import services as tables
from arena.tables.models import Table

from .models import Room, RoomGame, RoomMember

# The built-in a room plays unless its staff chooses another: every game has it, and a beginner can beat it.
DEFAULT_BUILTIN = "random"


class RoomRefused(Invalid):
    """A room, or a change to it, the rules refuse (400)."""


class RoomConflict(Conflict):
    """The room is not in a state that allows this (closed, its round still being played) (409)."""


class RoomNotAllowed(NotAllowed):
    """The user's role in the course does not allow this (403)."""


def check_runs(user, room: Room, verb: str) -> None:
    """RoomNotAllowed unless `user` runs the room's course's rooms (accounts.access.runs_rooms)."""
    if not runs_rooms(user, room.course):
        raise RoomNotAllowed(f"only the course's instructors and assistants {verb}")


def room_for(user, pk) -> Room:
    """Room `pk` if `user` attends its course; NotFound otherwise, exactly as a room that does not exist."""
    exists = isinstance(pk, int) and 0 <= pk <= MAX_ID
    room = Room.objects.select_related("course").filter(pk=pk).first() if exists else None
    if room is None or not attends(user, room.course):
        raise NotFound("no such pairing room")
    return room


def open_room(user, course, game: object, *, config: object = None, move_seconds: object = DEFAULT_MOVE_SECONDS,
              builtin: object = None) -> Room:
    """A new room of `course` for `game` (a two-player game), opened by one of its staff."""
    if not runs_rooms(user, course):
        raise RoomNotAllowed("only the course's instructors and assistants open its pairing rooms")
    try:
        found = get_game(game) if isinstance(game, str) else None
    except KeyError:
        found = None
    if found is None:
        raise RoomRefused(f"no game called {short_repr(game)}")
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise RoomRefused(f"the game's options are a JSON object, not {short_repr(config)}")
    try:
        state = found.new_game(2, config, 0)  # ConfigError for options the game refuses, or for 2 players
        move_seconds = check_move_seconds(move_seconds)
    except (ConfigError, TableError) as exc:
        raise RoomRefused(str(exc)) from None
    builtins = sorted(found.builtin_bots())
    builtin = DEFAULT_BUILTIN if builtin is None and DEFAULT_BUILTIN in builtins else builtin
    if builtin not in builtins:
        raise RoomRefused(f"{found.title} has no built-in bot {short_repr(builtin)}; its built-ins: "
                          f"{', '.join(builtins)}")
    return Room.objects.create(course=course, game=found.name, config=state.config, move_seconds=move_seconds,
                               builtin=builtin, opened_by=user)


def _check_open(room: Room) -> None:
    if not room.is_open:
        raise RoomConflict("this pairing room is closed")


def join(user, room: Room) -> RoomMember:
    """`user`, a student of the room's course, joins it (again, after leaving): paired from the next round."""
    if not plays_in_rooms(user, room.course):
        raise RoomNotAllowed("only the course's students play in its pairing rooms")
    with transaction.atomic():
        room = Room.objects.select_for_update().get(pk=room.pk)
        _check_open(room)
        member, created = RoomMember.objects.get_or_create(room=room, user=user)
        if not created and not member.present:
            member.present = True
            member.save(update_fields=["present"])
        if created or member.present:
            _changed(room)
    return member


def leave(user, room: Room) -> None:
    """`user` leaves the room: paired no more from the next round. The game they are playing ends as if
    they left its table (their opponent wins), and so does their round's other game when it comes."""
    with transaction.atomic():
        if RoomMember.objects.filter(room=room, user=user, present=True).update(present=False):
            _changed(room)
            playing = room.games.filter(status=RoomGame.Status.PLAYING, table__isnull=False).filter(
                Q(first=user) | Q(second=user)).select_related("table").first()
            if playing is not None:
                tables.leave(playing.table, user)


def close(user, room: Room) -> Room:
    """The staff close the room: no more rounds, nobody joins; the games under way end as usual."""
    check_runs(user, room, "close its pairing rooms")
    with transaction.atomic():
        room = Room.objects.select_for_update().get(pk=room.pk)
        if room.is_open:
            room.status, room.closed_at = Room.Status.CLOSED, timezone.now()
            room.save(update_fields=["status", "closed_at"])
            _changed(room)
    return room


def round_over(room: Room) -> bool:
    """Whether every game of the room's last round has ended (true before the first round): as a round starts
    only once the one before is over, whether every game of the room has."""
    return not RoomGame.objects.filter(room_id=room.pk).exclude(status=RoomGame.Status.FINISHED).exists()


def start_round(user, room: Room) -> list[RoomGame]:
    """The staff start the room's next round, once the last one is over: the students present are paired and
    every pair's first game opens at a table; the second opens when the first ends (game_over)."""
    with transaction.atomic():
        games = _pair_next_round(user, room)
        # The games against the room's bot start the sandbox: the whole round's are drawn from the staff's
        # budget for bot work now (OverBudget, the round not started, past it), so a pair's second game
        # never meets a refusal when its first ends.
        budget.admit(user, starts=sum(game.builtin_seat is not None for game in games), holds=0,
                     what="this round's games against the room's bot")
        for game in games:
            if game.leg == 1:
                _open_table(game)
    return games


def _pair_next_round(user, room: Room) -> list[RoomGame]:
    """Pair the room's next round among the students present and record its games (leg 1 of each pair
    playing, leg 2 waiting)."""
    check_runs(user, room, "start the rounds")
    room = Room.objects.select_for_update().get(pk=room.pk)
    _check_open(room)
    if not round_over(room):
        raise RoomConflict(f"round {room.rounds} is still being played: start the next one when it is over")
    present = list(room.members.filter(present=True).values_list("user_id", flat=True))
    if not present:
        raise RoomConflict("nobody is in the room: the students join it from the course's page")
    played = _rounds_played(room)
    room.rounds += 1
    room.save(update_fields=["rounds"])
    pairings = pair_round(present, meetings(played), builtin_games(played), seed=room.seed * 1_000 + room.rounds)
    games = []
    for number, pairing in enumerate(pairings, 1):
        for leg, (first, second) in enumerate(pairing.games, 1):
            games.append(RoomGame(room=room, round=room.rounds, pair=number, leg=leg, first_id=first,
                                  second_id=second, builtin_seat=None if not pairing.against_builtin else (
                                      0 if first is None else 1),
                                  status=RoomGame.Status.PLAYING if leg == 1 else RoomGame.Status.WAITING))
    RoomGame.objects.bulk_create(games)
    _changed(room)
    return list(room.games.filter(round=room.rounds).select_related("room__course", "first", "second"))


def _rounds_played(room: Room) -> list[list[Pairing]]:
    """The room's rounds so far as pairings: leg 1 of each pair names it, the student first (a pair against the
    built-in too: Pairing.games). A pair whose first student's account is gone is left out."""
    rounds: dict[int, list[Pairing]] = {}
    for game in room.games.filter(leg=1, first__isnull=False):
        rounds.setdefault(game.round, []).append(Pairing(game.first_id, game.second_id))
    return list(rounds.values())


def points_from_winners(winners: list[int]) -> tuple[float, float]:
    """(first's points, second's points) for a two-seat game's winners: 1 a win, 0.5 each a draw (both or
    neither won), 0 a loss."""
    won = [seat in winners for seat in (0, 1)]
    if won[0] == won[1]:
        return 0.5, 0.5
    return (1.0, 0.0) if won[0] else (0.0, 1.0)


def _open_table(game: RoomGame) -> None:
    """Open `game`'s table: its students and the room's built-in in its seats, the room's rules. A student
    who has left the room leaves the table at once (their opponent wins), so nobody waits for them."""
    room = game.room
    builtin = Bot.objects.builtin(room.game, room.builtin)
    seats = [tables.SeatChoice(bot=builtin) if user is None else tables.SeatChoice(user=user)
             for user in (game.first, game.second)]
    game.table = tables.open_table(room.opened_by or AnonymousUser(), room.game, seats, config=room.config,
                                   move_seconds=room.move_seconds, course=room.course,
                                   tag=f"{room.topic}:round:{game.round}:pair:{game.pair}:game:{game.leg}",
                                   admitted=True)  # with its round (start_round)
    game.save(update_fields=["table"])
    gone = set(RoomMember.objects.filter(room=room, present=False).values_list("user_id", flat=True))
    for user in (game.first, game.second):
        if user is not None and user.pk in gone and game.table.status == Table.Status.PLAYING:
            tables.leave(game.table, user)


def game_over(game: RoomGame, winners: list[int]) -> None:
    """`game`'s table has ended with `winners`: its points are recorded and the pair's second game opens
    (in the transaction that records the table's end: tables.signals.table_finished)."""
    following = record_result(game, winners)
    if following is not None:
        _open_table(following)


def record_result(game: RoomGame, winners: list[int]) -> RoomGame | None:
    """Game `game` ended with `winners` (its seats'): record its points; the pair's next game, if any, is
    returned for the caller to open (it is playing from now)."""
    game.first_points, game.second_points = points_from_winners(winners)
    game.status = RoomGame.Status.FINISHED
    game.save(update_fields=["first_points", "second_points", "status"])
    following = RoomGame.objects.select_related("room__course", "first", "second").filter(room_id=game.room_id, round=game.round, pair=game.pair, leg=game.leg + 1,
                                        status=RoomGame.Status.WAITING).first()
    if following is not None:
        following.status = RoomGame.Status.PLAYING
        following.save(update_fields=["status"])
    _changed(game.room)
    return following


def current_game(room: Room, user) -> RoomGame | None:
    """The game `user` plays in `room` now (its table open), or None."""
    if not user.is_authenticated:
        return None
    return room.games.filter(status=RoomGame.Status.PLAYING, table__isnull=False).filter(
        Q(first=user) | Q(second=user)).order_by("-round", "leg").first()


def _changed(room: Room) -> None:
    """Count the change, and wake the room's live pages once it is committed."""
    room.bump()
    live.publish(room.topic)  # after the commit
