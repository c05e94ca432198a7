"""Tables (arena.tables): people playing in the browser against each other and bots, kept in the database."""

from datetime import timedelta

import pytest
from django.utils import timezone
from platform_helpers import active_bot

from arena.accounts.access import may_seat_bot, seatable_bots
from arena.accounts.models import Course
from arena.bots.models import Bot
from arena.core.errors import NotAllowed, NotFound
from arena.tables import services
from arena.tables.models import Table
from arena.tables.services import NotAtTable, SeatChoice, TableConflict, TableRefused
from arena.tables.signals import table_finished

pytestmark = pytest.mark.django_db

BOARD = [-1, 3, 9, 4, 7, 2]


@pytest.fixture
def ada(make_user):
    return make_user("ada")


@pytest.fixture
def ben(make_user):
    return make_user("ben")


def two_people(ada, ben, **options):
    return services.open_table(ada, "endgame", [SeatChoice(user=ada), SeatChoice(user=ben)],
                               config={"board": BOARD}, **options)


def reread(table):
    return Table.objects.get(pk=table.pk)


def test_two_people_play_end_game_to_the_end_and_the_hook_hears_it_once(ada, ben):
    heard = []
    table_finished.connect(lambda table, **kwargs: heard.append((table.pk, table.winners)), weak=False,
                           dispatch_uid="test-heard")
    try:
        table = two_people(ada, ben)
        for number, action in enumerate(["right", "left", "left", "right", "left", "left"]):
            player = [ada, ben][number % 2]
            services.move(reread(table), player, number, action)
    finally:
        table_finished.disconnect(dispatch_uid="test-heard")
    table = reread(table)
    assert table.status == "finished" and table.winners == [0] and heard == [(table.pk, [0])]
    replay = services.finished_replay(table)
    assert replay["players"] == ["ada", "ben"] and replay["result"]["scores"] == [14, 10]


def test_a_second_move_for_the_same_turn_is_refused_by_the_compare_and_set(ada, ben):
    table = two_people(ada, ben)
    first_tab, second_tab = reread(table), reread(table)  # both saw turn 0
    services.move(first_tab, ada, 0, "left")
    with pytest.raises(TableConflict):
        services.move(second_tab, ada, 0, "right")  # the double click: the row's version moved on
    with pytest.raises(TableConflict, match="turn 0, but the table is at turn 1"):
        services.move(reread(table), ada, 0, "right")  # read again: the game's own turn check
    assert reread(table).facts["events"] == [{"seat": 0, "action": "left"}] and reread(table).version == 2


def test_an_illegal_move_or_one_out_of_turn_records_nothing(ada, ben, make_user):
    table = two_people(ada, ben)
    with pytest.raises(TableRefused, match="not a legal action"):
        services.move(reread(table), ada, 0, "middle")
    with pytest.raises(TableConflict, match="seat 0's move"):
        services.move(reread(table), ben, 0, "left")
    with pytest.raises(NotAtTable):
        services.move(reread(table), make_user("eve"), 0, "left")
    assert reread(table).facts["events"] == [] and reread(table).version == 1


def test_a_person_past_the_deadline_gets_the_timeout_verdict_on_the_next_read(ada, ben):
    table = two_people(ada, ben, move_seconds=30)
    assert table.deadline is not None
    facts = table.facts
    facts["turn_started"] -= 31  # ada's 30 s ran out with no task there to see it
    Table.objects.filter(pk=table.pk).update(facts=facts)
    game_table = services.current(reread(table))
    assert game_table.events == [{"seat": 0, "verdict": "timeout"}]
    table = reread(table)
    assert table.status == "finished" and table.winners == [1] and table.facts["details"][0] == "no move within 30 s"


def test_a_move_after_the_deadline_is_refused_and_the_timeout_kept(ada, ben):
    table = two_people(ada, ben, move_seconds=30)
    facts = table.facts
    facts["turn_started"] -= 31
    Table.objects.filter(pk=table.pk).update(facts=facts)
    # Read before the time ran out (the page that sent the move), so the move itself meets the deadline.
    stale = reread(table)
    stale.status = "playing"
    with pytest.raises(TableConflict):
        services.move(stale, ada, 0, "left")
    assert reread(table).facts["events"] == [{"seat": 0, "verdict": "timeout"}]


def test_a_table_resumes_from_the_database_alone(ada, ben):
    """A restart: nothing but the row is kept; the game goes on where it was."""
    table = two_people(ada, ben)
    services.move(reread(table), ada, 0, "right")
    services.move(reread(table), ben, 1, "left")
    again = services.current(Table.objects.get(pk=table.pk))
    assert again.turn == 2 and again.seat_on_move == 0 and again.state.scores() == [2, -1]
    services.move(Table.objects.get(pk=table.pk), ada, 2, "left")
    assert services.current(reread(table)).state.scores() == [5, -1]


def test_a_bot_at_the_table_decides_in_turn_and_the_person_then_moves(ada, in_process_sandbox):
    greedy = Bot.objects.builtin("endgame", "greedy")
    mine = active_bot(ada)
    table = services.open_table(ada, "endgame", [SeatChoice(bot=mine), SeatChoice(user=ada)],
                                config={"board": BOARD})
    assert services.play_bot_turns(table.pk) == 1
    assert services.play_bot_turns(table.pk) == 0  # idempotent: a person is on move
    table = reread(table)
    assert table.facts["events"] == [{"seat": 0, "action": "right"}]  # the example bot takes the larger end
    services.move(table, ada, 1, "right")
    assert services.play_bot_turns(table.pk) == 1
    table = services.open_table(ada, "endgame", [SeatChoice(user=ada), SeatChoice(bot=greedy)], seed=3)
    services.move(table, ada, 0, "left")
    assert services.play_bot_turns(table.pk) == 1 and len(reread(table).facts["events"]) == 2


def test_a_bots_fault_is_its_verdict(ada, in_process_sandbox):
    broken = active_bot(ada, code=b"def act(observation):\n    return 'middle'\n")
    table = services.open_table(ada, "endgame", [SeatChoice(bot=broken), SeatChoice(user=ada)])
    services.play_bot_turns(table.pk)
    table = reread(table)
    assert table.facts["events"] == [{"seat": 0, "verdict": "illegal"}] and table.status == "finished"
    assert table.winners == [1]


def test_an_invited_person_takes_the_seat_by_its_link_and_the_game_starts(ada, ben):
    table = services.open_table(ada, "endgame", [SeatChoice(user=ada), SeatChoice(invite=True)])
    assert table.status == "waiting"
    with pytest.raises(TableConflict, match="waits"):
        services.move(reread(table), ada, 0, "left")
    token = table.seats.get(seat=1).token
    with pytest.raises(TableConflict, match="already have a seat"):
        services.join(token, ada)
    services.join(token, ben)
    table = reread(table)
    assert table.status == "playing" and table.facts["seats"][1] == {"name": "ben", "human": True}
    with pytest.raises(NotFound):
        services.join(token, ben)  # taken: the link is spent
    services.move(table, ada, 0, "left")


def test_who_may_seat_which_bot(ada, ben, make_user):
    course = Course.objects.create(code="algo", name="Algorithms")
    course.students.add(ada, ben)
    classmate_bot, stranger_bot = active_bot(ben, name="bens"), active_bot(make_user("eve"), name="eves")
    inactive = Bot.objects.create(owner=ben, game="endgame", name="draft")
    assert may_seat_bot(ada, classmate_bot) and not may_seat_bot(ada, stranger_bot) and not may_seat_bot(ada, inactive)
    assert may_seat_bot(ada, Bot.objects.builtin("endgame", "greedy"))
    assert set(seatable_bots(ada, "endgame").exclude(owner__isnull=True)) == {classmate_bot}
    with pytest.raises(NotAllowed):
        services.open_table(ada, "endgame", [SeatChoice(user=ada), SeatChoice(bot=stranger_bot)])
    assert not Table.objects.exists()


@pytest.mark.parametrize("game, seats, options, fragment", [
    ("chess", 2, {}, "no game called"),
    ("endgame", 3, {}, "2 to 2 players"),
    ("endgame", 2, {"move_seconds": -1}, "time per move"),
    ("endgame", 2, {"config": {"board": "1 2"}}, "board must be a list"),
])
def test_a_table_the_game_refuses_is_not_opened(ada, game, seats, options, fragment):
    with pytest.raises(TableRefused, match=fragment):
        services.open_table(ada, game, [SeatChoice(user=ada)] + [SeatChoice(invite=True)] * (seats - 1), **options)
    assert not Table.objects.exists()


def test_leaving_ends_the_seat_with_timeout(ada, ben):
    table = two_people(ada, ben)
    services.leave(reread(table), ben)
    table = reread(table)
    assert table.facts["events"] == [{"seat": 1, "verdict": "timeout"}] and table.winners == [0]


def test_the_sweep_expires_people_past_their_deadline(ada, ben):
    table = two_people(ada, ben, move_seconds=30)
    assert services.resume_tables() == 0
    facts = table.facts
    facts["turn_started"] -= 31
    Table.objects.filter(pk=table.pk).update(facts=facts, deadline=timezone.now() - timedelta(seconds=1))
    assert services.resume_tables() == 1 and reread(table).status == "finished"
