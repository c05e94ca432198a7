"""Pairing rooms (arena.rooms): a class plays End Game in rounds at tables, new opponents each round, the odd
student out against a built-in; the results table and its CSV."""

import csv
import io

import pytest

from arena.accounts.models import Course
from arena.accounts.models import Profile
from arena.core.errors import NotFound
from arena.rooms import services
from arena.rooms.models import Room, RoomGame
from arena.rooms.presentation import results, results_csv
from arena.tables import services as tables
from arena.tables.models import Table

pytestmark = pytest.mark.django_db

# A short board: a game is six moves, the first player wins it by 14 to 10 taking the first choice each time.
BOARD = [-1, 3, 9, 4, 7, 2]


@pytest.fixture
def course(make_user):
    course = Course.objects.create(name="Algorithms", code="ALG1")
    course.instructors.add(make_user("teacher"))
    course.teaching_assistants.add(make_user("assistant"))
    return course


def students(course, make_user, count: int) -> list:
    made = [make_user(f"s{number}") for number in range(1, count + 1)]
    course.students.add(*made)
    return made


def teacher(course):
    return course.instructors.get()


def open_end_game(course, **options):
    return services.open_room(teacher(course), course, "endgame", config={"board": BOARD}, **options)


def play_out(table: Table) -> Table:
    """Play `table` to its end: each person takes their first legal move, the bots decide in turn."""
    while True:
        table = Table.objects.get(pk=table.pk)
        if table.status == Table.Status.FINISHED:
            return table
        game = tables.current(table)
        seat = game.seat_on_move
        row = table.seats.get(seat=seat)
        if row.user_id is None:
            tables.play_bot_turns(table.pk)
        else:
            tables.move(table, row.user, game.turn, game.choices(seat)[0].action)


def play_round(room: Room) -> None:
    """Play every game of the room's last round to its end, the second game of each pair once it opens."""
    room.refresh_from_db()
    while True:
        playing = [game for game in room.games.filter(round=room.rounds, status=RoomGame.Status.PLAYING)
                   .select_related("table")]
        if not playing:
            return
        for game in playing:
            play_out(game.table)


def pairs_of(room: Room, number: int) -> set[frozenset]:
    return {frozenset((game.first_id, game.second_id)) for game in room.games.filter(round=number, leg=1)}


def test_two_rounds_of_five_students_new_opponents_and_the_builtin_in_turn(course, make_user):
    five = students(course, make_user, 5)
    room = open_end_game(course)
    for student in five:
        services.join(student, room)
    for number in (1, 2):
        games = services.start_round(teacher(course), room)
        room.refresh_from_db()
        assert room.rounds == number and len(games) == 6  # 3 pairs (one against the built-in), two games each
        assert all(game.table is not None for game in games if game.leg == 1)
        assert all(game.status == RoomGame.Status.WAITING and game.table is None for game in games if game.leg == 2)
        play_round(room)
        assert services.round_over(room)
    assert not pairs_of(room, 1) & pairs_of(room, 2)
    against_builtin = [game.first_id for game in room.games.filter(leg=1, second__isnull=True)]
    assert len(against_builtin) == 2 and len(set(against_builtin)) == 2  # two different students, once each
    for game in room.games.all():
        # each pair's games: each student first once; a table's players are the game's
        seats = list(game.table.seats.order_by("seat").values_list("user_id", flat=True))
        assert seats == [game.first_id, game.second_id]
        assert game.first_points + game.second_points == 1
    lines = results(room)
    assert [line.played for line in lines] == [4] * 5
    assert all(len(line.by_round) == 2 and None not in line.by_round for line in lines)
    builtin_points = sum(game.points_of(game.builtin_seat) for game in room.games.filter(builtin_seat__isnull=False))
    assert sum(line.points for line in lines) == 12 - builtin_points  # one point a game, 12 games


def test_each_pair_plays_first_once_and_the_second_game_waits_for_the_first(course, make_user):
    ada, ben = students(course, make_user, 2)
    room = open_end_game(course)
    services.join(ada, room)
    services.join(ben, room)
    first, second = services.start_round(teacher(course), room)
    assert (second.first_id, second.second_id) == (first.second_id, first.first_id)
    assert services.current_game(room, ada) == first and services.current_game(room, ben) == first
    play_out(first.table)
    second.refresh_from_db()
    assert second.status == RoomGame.Status.PLAYING and services.current_game(room, ada) == second
    assert not services.round_over(room)
    with pytest.raises(services.RoomConflict, match="still being played"):
        services.start_round(teacher(course), room)
    play_out(second.table)
    assert services.round_over(room) and services.current_game(room, ada) is None
    assert [(line.wins, line.losses, line.points) for line in results(room)] == [(1, 1, 1.0), (1, 1, 1.0)]


def test_a_student_who_leaves_loses_the_game_under_way_and_the_next_and_is_paired_no_more(course, make_user):
    three = students(course, make_user, 3)
    room = open_end_game(course)
    for student in three:
        services.join(student, room)
    services.start_round(teacher(course), room)
    paired = room.games.get(round=1, leg=1, first__isnull=False, second__isnull=False)  # not the built-in's
    ada, ben = paired.first, paired.second  # the one who leaves, and their opponent
    cy = next(student for student in three if student.pk not in (ada.pk, ben.pk))
    services.leave(ada, room)
    games = room.games.filter(round=1, pair=paired.pair).order_by("leg")
    assert [game.status for game in games] == [RoomGame.Status.FINISHED] * 2  # the second ended as it opened
    assert [(game.points_of(game.seat_of(ada.pk)), game.points_of(game.seat_of(ben.pk))) for game in games] == [
        (0, 1), (0, 1)]
    assert [line.points for line in results(room) if line.user_id == ben.pk] == [2]
    play_round(room)
    services.start_round(teacher(course), room)
    assert {(game.first_id, game.second_id) for game in room.games.filter(round=2)} == {(ben.pk, cy.pk),
                                                                                       (cy.pk, ben.pk)}
    services.join(ada, room)  # back for the next round
    play_round(room)
    services.start_round(teacher(course), room)
    assert room.games.filter(round=3, leg=1).count() == 2  # three students: a pair and the built-in's


def test_who_may_open_join_start_close_and_see_a_room(course, make_user):
    (ada,) = students(course, make_user, 1)
    outsider = make_user("olga")
    other = Course.objects.create(name="Other", code="OTH")
    other.students.add(outsider)
    with pytest.raises(services.RoomNotAllowed):
        services.open_room(ada, course, "endgame")
    room = services.open_room(course.teaching_assistants.get(), course, "endgame")  # assistants run rooms too
    with pytest.raises(services.RoomNotAllowed):
        services.join(teacher(course), room)  # the staff run the room, they are not paired in it
    with pytest.raises(services.RoomNotAllowed):
        services.join(outsider, room)
    with pytest.raises(NotFound):
        services.room_for(outsider, room.pk)
    with pytest.raises(services.RoomNotAllowed):
        services.start_round(ada, room)
    with pytest.raises(services.RoomConflict, match="nobody"):
        services.start_round(teacher(course), room)
    with pytest.raises(services.RoomNotAllowed):
        services.close(ada, room)
    services.close(teacher(course), room)
    with pytest.raises(services.RoomConflict, match="closed"):
        services.join(ada, room)


@pytest.mark.parametrize("game, options, fragment", [
    ("chess", {}, "no game called"),
    (["endgame"], {}, "no game called"),
    ("sorted", {}, "4"),  # four players only: no pairs
    ("endgame", {"config": {"length": -3}}, "length"),
    ("endgame", {"config": {"nonsense": 1}}, "nonsense"),
    ("endgame", {"config": ["length", 3]}, "JSON object"),
    ("endgame", {"builtin": "grandmaster"}, "no built-in bot"),
    ("endgame", {"builtin": ["random"]}, "no built-in bot"),
    ("endgame", {"move_seconds": 0}, "time per move"),
    ("endgame", {"move_seconds": float("nan")}, "time per move"),
    ("endgame", {"move_seconds": "300"}, "time per move"),
])
def test_a_room_the_rules_refuse_is_not_opened(course, game, options, fragment):
    with pytest.raises(services.RoomRefused, match=fragment):
        services.open_room(teacher(course), course, game, **options)
    assert not Room.objects.exists()


def test_the_room_keeps_its_rules_and_plays_them_at_every_table(course, make_user):
    ada, ben = students(course, make_user, 2)
    room = services.open_room(teacher(course), course, "endgame", config={"board": BOARD}, builtin="greedy",
                              move_seconds=None)
    assert (room.builtin, room.move_seconds, room.config["board"]) == ("greedy", None, BOARD)
    services.join(ada, room)
    (game, _) = services.start_round(teacher(course), room)
    table = game.table
    assert table.config["board"] == BOARD and table.move_seconds is None and table.course == course
    services.join(ben, room)  # joins while round 1 is played: paired from round 2
    play_round(room)
    assert table.seats.get(seat=1).bot.builtin_name == "greedy"
    assert set(room.games.filter(round=1).values_list("first_id", flat=True)) == {ada.pk, None}


def test_the_results_csv_has_a_line_per_student_and_never_a_formula(course, make_user):
    ada, ben = students(course, make_user, 2)
    Profile.objects.update_or_create(user=ben, defaults={"display_name": "=HYPERLINK(\"http://x\")"})
    room = open_end_game(course)
    services.join(ada, room)
    services.join(ben, room)
    services.start_round(teacher(course), room)
    play_round(room)
    services.start_round(teacher(course), room)
    play_round(room)
    rows = list(csv.reader(io.StringIO(results_csv(room))))
    assert rows[0] == ["student_id", "email", "name", "games", "wins", "draws", "losses", "points", "round_1",
                       "round_2"]
    assert sorted(row[2:] for row in rows[1:]) == sorted([["s1", "4", "2", "0", "2", "2", "1", "1"],
                                                         ["'=HYPERLINK(\"http://x\")", "4", "2", "0", "2", "2", "1", "1"]])


def test_points_from_a_tables_winners():
    assert services.points_from_winners([0]) == (1.0, 0.0)
    assert services.points_from_winners([1]) == (0.0, 1.0)
    assert services.points_from_winners([0, 1]) == (0.5, 0.5)
    assert services.points_from_winners([]) == (0.5, 0.5)


def test_each_change_to_a_room_wakes_its_live_pages_once_committed(course, make_user, monkeypatch,
                                                                    django_capture_on_commit_callbacks):
    """Joining, leaving and a round's start each wake the room's stream after the commit (a page watching the
    results would otherwise wait for its next keepalive); the callbacks run here as they would after a commit."""
    from arena.core import live

    woken = []
    monkeypatch.setattr(live, "_wake", woken.append)
    room = open_end_game(course)
    first, second = students(course, make_user, 2)
    with django_capture_on_commit_callbacks(execute=True):
        services.join(first, room)
        services.join(second, room)
    assert woken == [room.topic, room.topic]
    with django_capture_on_commit_callbacks(execute=True):
        services.start_round(teacher(course), room)
    assert woken[2:] and set(woken[2:]) >= {room.topic}
