"""A table (games/table.py): people and bots playing one decision at a time, kept as facts and rebuilt from them."""

import json
import random
from pathlib import Path

import pytest
from hostile import DEEPEST, json_values, nested
from hypothesis import HealthCheck, given, settings, strategies as st
from required import require

from games import available_games, get_game, replay as replays
from games.bots import make_player
from games.core import IllegalAction
from games.referee import InProcessPlayer, play_match, seated
from games.table import TABLE_FIELDS, MoveTooLate, NotYourTurn, Seat, StaleTurn, Table, TableError, TableOver
from quick_tier import examples

GAMES = sorted(available_games().items())
IDS = [name for name, _ in GAMES]
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "bots" / "examples"
ENDGAME = get_game("endgame")
BOARD = [-1, 3, 9, 4, 7, 2]
START = 1_000.0  # the tests' clock: seconds, as a table compares them


class RandomPolicy:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def act(self, obs):
        return self.rng.choice(obs["legal_actions"])


def random_bots(count, seed=0):
    return {seat: InProcessPlayer(f"random{seat}", RandomPolicy(seed * 10 + seat)) for seat in range(count)}


def endgame_table(move_seconds=30.0, human_seats=(0,)):
    seats = [Seat("you" if seat in human_seats else "builtin:greedy", seat in human_seats) for seat in range(2)]
    return Table.open(ENDGAME, seats, config={"board": BOARD}, move_seconds=move_seconds, now=START)


def greedy():
    return make_player(ENDGAME, "builtin:greedy", sandbox="none")


def kept_and_taken_up_again(table):
    """The table as a platform keeps it (JSON text) and takes it up after a restart."""
    return Table.from_json(json.loads(json.dumps(table.to_json())))


# --- facts: rebuilt exactly at any point -------------------------------------------------------------
@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
def test_a_table_kept_as_json_is_taken_up_again_exactly_at_any_point(name, game):
    table = Table.open(game, [Seat(f"bot{seat}") for seat in range(game.default_players)], seed=5, now=START)
    bots = random_bots(game.default_players, seed=5)
    checked = 0
    while not table.over and table.turn < 120:
        if table.turn % 7 == 0:
            again = kept_and_taken_up_again(table)
            assert again.state.full_view() == table.state.full_view()
            assert (again.turn, again.seat_on_move, again.to_json()) == (table.turn, table.seat_on_move, table.to_json())
            checked += 1
        table.bot_move(bots[table.seat_on_move])
    assert checked >= 2
    assert "seed" in table.to_json() and "seed" not in table.public_view()


def test_a_table_taken_up_again_plays_on_as_if_never_stopped():
    ran = endgame_table(human_seats=(0, 1))
    stopped = endgame_table(human_seats=(0, 1))
    for action in ["right", "left", "left", "right", "left", "left"]:
        ran.human_move(ran.seat_on_move, ran.turn, action, now=START)
        stopped = kept_and_taken_up_again(stopped)
        stopped.human_move(stopped.seat_on_move, stopped.turn, action, now=START)
    assert ran.over and stopped.over and ran.replay() == stopped.replay()
    assert ran.state.scores() == stopped.state.scores() == [2 + 3 + 9, -1 + 7 + 4]


@pytest.mark.parametrize("data, fragment", [
    ("not a table", "not a table"),
    ({"game": "endgame"}, "not a table"),
    ({**endgame_table().to_json(), "game": "chess"}, "unknown game"),
    ({**endgame_table().to_json(), "events": [{"seat": 1, "action": "left"}]}, "seat 0's turn"),
    ({**endgame_table().to_json(), "events": [{"seat": 0, "action": "middle"}]}, "not a legal action"),
    ({**endgame_table().to_json(), "config": {"board": "1 2"}}, "board must be a list"),
    ({**endgame_table().to_json(), "move_seconds": -1}, "time per move"),
    ({**endgame_table().to_json(), "details": []}, "a detail for each seat"),
    ({**endgame_table().to_json(), "seats": [{"name": "solo", "human": True}], "details": [""]}, "2 to 2 players"),
    ({**endgame_table().to_json(), "seats": [{"name": 7, "human": True}] * 2}, "its seats are not"),
    ({**endgame_table().to_json(), "turn_started": "noon"}, "not at a time"),
])
def test_data_that_is_not_a_table_is_refused_saying_why(data, fragment):
    with pytest.raises(TableError, match=fragment):
        Table.from_json(data)


# --- a person's moves: the compare-and-set on the turn ------------------------------------------------
def test_a_second_move_for_the_same_turn_is_refused_and_nothing_is_recorded():
    table = endgame_table(human_seats=(0, 1))
    table.human_move(0, 0, "left", now=START)
    with pytest.raises(StaleTurn, match="turn 0, but the table is at turn 1"):  # the double click
        table.human_move(0, 0, "left", now=START)
    with pytest.raises(StaleTurn):  # a second tab that saw turn 0, sending seat 1's move late
        table.human_move(1, 0, "right", now=START)
    assert table.events == [{"seat": 0, "action": "left"}]
    table.human_move(1, 1, "right", now=START)
    assert table.turn == 2 and table.state.scores() == [-1, 2]


def test_a_move_out_of_turn_for_a_bots_seat_or_illegal_is_refused_and_the_person_picks_again():
    table = endgame_table()
    for seat, action, error in [(1, "left", NotYourTurn), (True, "left", NotYourTurn), (0, "middle", IllegalAction),
                                (0, {"end": "left"}, IllegalAction), (0, "x" * 10**6, IllegalAction)]:
        with pytest.raises(error):
            table.human_move(seat, 0, action, now=START)
    assert table.events == []
    assert table.human_move(0, 0, "right", now=START) == "right"
    with pytest.raises(NotYourTurn, match="played by a bot"):  # seat 1 is the bot's: no person moves for it
        table.human_move(1, 1, "left", now=START)


def test_a_finished_table_refuses_every_move():
    table = endgame_table(human_seats=(0, 1))
    for _ in BOARD:
        table.human_move(table.seat_on_move, table.turn, "left", now=START)
    with pytest.raises(TableOver):
        table.human_move(0, table.turn, "left", now=START)
    with pytest.raises(TableOver):
        table.bot_move(greedy())
    assert table.choices(0) == [] and table.deadline is None


def test_the_choices_are_the_seats_legal_moves_labelled_from_its_own_view():
    table = endgame_table()
    assert [(choice.label, choice.action) for choice in table.choices(0)] == [
        ("take -1 from the left end", "left"), ("take 2 from the right end", "right")]
    assert table.choices(1) == []


# --- the time per move: a person's only --------------------------------------------------------------------
def test_a_person_out_of_time_loses_with_the_verdict_timeout():
    table = endgame_table(move_seconds=30)
    assert table.deadline == START + 30
    assert not table.expire(now=START + 30)  # on time to the second
    with pytest.raises(MoveTooLate, match="had 30 s"):
        table.human_move(0, 0, "left", now=START + 31)
    assert table.events == [{"seat": 0, "verdict": "timeout"}] and table.details[0] == "no move within 30 s"
    assert table.over and table.state.winners() == [1]
    replay = table.replay()
    assert replay["result"]["statuses"] == ["timeout", "ok"]
    assert replays.final_state(replay).full_view() == table.state.full_view()


def test_expire_ends_a_persons_turn_that_ran_out_and_their_clock_starts_at_their_turn():
    table = endgame_table(move_seconds=30)
    table.human_move(0, 0, "left", now=START + 29)
    table.bot_move(greedy(), now=START + 50)  # the person's next turn begins with the bot's move
    assert table.deadline == START + 80
    assert not table.expire(now=START + 79)
    assert table.expire(now=START + 81)
    assert table.events[-1] == {"seat": 0, "verdict": "timeout"} and table.over


def test_the_persons_time_limit_never_applies_to_a_bot():
    table = endgame_table(move_seconds=5)
    table.human_move(0, 0, "right", now=START)
    assert table.deadline is None  # a bot on move has no deadline at the table: its player keeps its limits
    assert not table.expire(now=START + 10_000)
    assert table.bot_move(greedy(), now=START + 10_000) == "right"
    assert [event.get("verdict") for event in table.events] == [None, None]


def test_no_time_limit_and_bounds_on_it():
    assert endgame_table(move_seconds=None).deadline is None
    for bad in (0, -1, float("nan"), float("inf"), True, "60", 10**9):
        with pytest.raises(TableError, match="time per move"):
            endgame_table(move_seconds=bad)


def test_a_person_who_leaves_loses_as_on_time():
    table = endgame_table()
    table.leave(0, now=START)
    assert table.events == [{"seat": 0, "verdict": "timeout"}] and table.details[0] == "left the table"
    with pytest.raises(NotYourTurn):
        table.leave(1)


def test_in_a_multiplayer_game_a_person_out_of_time_is_skipped_and_the_others_play_on():
    game = get_game("crazyking")
    table = Table.open(game, [Seat("you", True)] + [Seat(f"bot{seat}") for seat in (1, 2, 3)], seed=3,
                       move_seconds=60, now=START)
    bots = random_bots(4, seed=3)
    table.play_bots(bots, now=START)
    assert table.seat_on_move == 0
    assert table.expire(now=START + 61)
    assert not table.over and 0 in table.state.failed_seats
    table.play_bots(bots, now=START + 61)  # the bots play the game to its end without seat 0
    assert table.over and table.replay()["result"]["statuses"][0] == "timeout"


# --- bots at a person's table, as in any match ------------------------------------------------------------
BOT_THAT_CRASHES = "class Bot:\n    def act(self, observation):\n        raise RuntimeError('deliberate')\n"
BOT_THAT_CHEATS = "class Bot:\n    def act(self, observation):\n        return 'middle'\n"


def require_sandbox(backend):
    """The sandbox `backend` works here (the project's rule: a failure in CI, a skip elsewhere)."""
    if backend == "bwrap":
        from sandbox.bwrap_backend import bwrap_works

        require(bwrap_works(), "bubblewrap able to create its namespaces on this host")
    elif backend == "docker":
        from sandbox import docker_ready

        require(docker_ready(), "the Docker engine with the bot image")


@pytest.mark.parametrize("sandbox", ["none", "bwrap", "docker"])
def test_a_sandboxed_bot_plays_at_a_persons_table_one_decision_at_a_time(sandbox):
    require_sandbox(sandbox)
    table = endgame_table()
    with seated([lambda: make_player(ENDGAME, str(EXAMPLES / "endgame_example.py"), sandbox=sandbox)]) as [bot]:
        table.start_bot(1, bot, now=START)
        while not table.over:
            if table.seats[table.seat_on_move].human:
                table.human_move(0, table.turn, "left", now=START)
            else:
                table.bot_move(bot, now=START)
    assert table.replay()["result"]["statuses"] == ["ok", "ok"]
    assert bot.decisions == len(BOARD) // 2
    assert replays.final_state(table.replay()).scores() == table.state.scores()


@pytest.mark.parametrize("code, verdict", [(BOT_THAT_CRASHES, "crash"), (BOT_THAT_CHEATS, "illegal")])
def test_a_bots_fault_at_a_persons_table_is_its_verdict(code, verdict, tmp_path):
    path = tmp_path / "bot.py"
    path.write_text(code)
    table = endgame_table()
    table.human_move(0, 0, "left", now=START)
    with seated([lambda: make_player(ENDGAME, str(path), sandbox="none")]) as [bot]:
        table.start_bot(1, bot)
        assert table.bot_move(bot) is None
    assert table.events[-1] == {"seat": 1, "verdict": verdict} and table.details[1]
    assert table.over and table.state.winners() == [0]


def test_a_bot_is_not_asked_when_a_person_is_on_move():
    table = endgame_table()
    with pytest.raises(NotYourTurn, match="played by a person"):
        table.bot_move(greedy())
    table.play_bots({1: greedy()})  # nothing to do: the person is on move
    assert table.turn == 0


# --- a bot started afresh for each decision is told the game so far, as in a match ---------------------------
class Remembering:
    """A bot that keeps state between its decisions and records every call it gets: it draws its moves from
    the seed its setup gives, so one that forgot its earlier draws plays other moves than in a match."""

    def __init__(self, calls):
        self.calls = calls

    def setup(self, info):
        self.calls.append(("setup", info))
        self.rng = random.Random(info["rng_seed"])

    def act(self, observation):
        self.calls.append(("act", observation))
        return self.rng.choice(observation["legal_actions"])


def remembering(seat, calls):
    return InProcessPlayer(f"remembering{seat}", Remembering(calls), rng_seed=100 + seat)


@pytest.mark.parametrize("name, config", [
    ("endgame", None),
    ("crazyking", {"max_rounds": 1}),  # cards: each seat sees its own hand only
    ("sortinggame", {"max_rounds": 1}),
])
def test_a_bot_started_afresh_for_each_decision_gets_the_calls_it_gets_in_a_match(name, config):
    game = get_game(name)
    seats = game.default_players
    in_match = [[] for _ in range(seats)]
    match = play_match(game, [remembering(seat, in_match[seat]) for seat in range(seats)], config=config, seed=7)
    table = Table.open(game, [Seat(f"remembering{seat}") for seat in range(seats)], config=config, seed=7, now=START)
    decisions = [0] * seats
    while not table.over:
        seat, calls = table.seat_on_move, []
        table.bot_move_afresh(remembering(seat, calls), now=START)
        decisions[seat] += 1
        # The very calls of the match up to this decision: its setup, then each of its own observations.
        assert calls == in_match[seat][:decisions[seat] + 1], (seat, decisions[seat])
        if name == "crazyking":
            assert all(call["hand"] and "hands" not in call for kind, call in calls if kind == "act")
    assert table.replay()["events"] == match.replay["events"] and table.replay()["result"] == match.replay["result"]
    assert decisions == [sum(kind == "act" for kind, _ in calls) for calls in in_match]


def test_a_builtin_that_keeps_no_state_is_asked_this_decision_only():
    """Sprouts' optimal built-in searches for up to half a second a move and remembers nothing: it is not made to
    search its earlier moves again. The random built-in draws from its seed: it is told them."""
    game = get_game("sprouts")
    table = Table.open(game, [Seat("builtin:optimal"), Seat("builtin:random")], config={"spots": 3}, seed=4, now=START)
    asked = {0: [], 1: []}
    while not table.over:
        seat = table.seat_on_move
        player = make_player(game, table.seats[seat].name, sandbox="none", seed=4, seat=seat)
        table.bot_move_afresh(player, now=START)
        asked[seat].append(player.decisions)
    assert asked[0] == [1] * len(asked[0]) and asked[1] == list(range(1, len(asked[1]) + 1)) and len(asked[1]) >= 2


class Fickle:
    """A bot that never answers the same twice: a different action at every start, and garbage when told
    its earlier decisions again."""

    starts = 0

    def setup(self, info):
        Fickle.starts += 1
        self.told = 0

    def act(self, observation):
        self.told += 1
        legal = observation["legal_actions"]
        return legal[Fickle.starts % len(legal)] if self.told > observation["step"] // 2 else "garbage"


def test_the_recorded_moves_stand_whatever_a_bot_answers_when_told_them_again():
    table = endgame_table(human_seats=(0,))
    recorded = []
    while not table.over:
        if table.seats[table.seat_on_move].human:
            table.human_move(0, table.turn, "left", now=START)
        else:
            table.bot_move_afresh(InProcessPlayer("fickle", Fickle()), now=START)
            assert table.events[:len(recorded)] == recorded  # what it played before is unchanged
        recorded = list(table.events)
    assert table.replay()["result"]["statuses"] == ["ok", "ok"]  # its garbage while catching up is not judged


def bot_that_misbehaves_when_started_again(tmp_path, misbehaviour):
    """A file bot (sandbox 'none', which lets it leave a mark on this host) that plays its first decision
    well and misbehaves at the first call of any later start: when told its first decision again."""
    path = tmp_path / "bot.py"
    path.write_text(
        "import os, time\n"
        f"MARK = {str(tmp_path / 'started')!r}\n"
        "again = os.path.exists(MARK)\n"
        "open(MARK, 'a').close()\n"
        "calls = 0\n\n"
        "def act(observation):\n"
        "    global calls\n"
        "    calls += 1\n"
        "    if again and calls == 1:\n"
        f"        {misbehaviour}\n"
        "    return observation['legal_actions'][0]\n")
    return path


@pytest.mark.parametrize("misbehaviour, verdict", [
    ("time.sleep(3600)", "timeout"),
    ("raise RuntimeError('deliberate')", "crash"),
    ("os._exit(3)", "crash"),
])
def test_a_bot_that_misbehaves_while_catching_up_gets_its_verdict_as_in_a_match(misbehaviour, verdict, tmp_path):
    from sandbox import Limits

    path = bot_that_misbehaves_when_started_again(tmp_path, misbehaviour)
    table = endgame_table(human_seats=(0,))
    limits = Limits(decision=0.5, bank=0.5)  # a sleeper is stopped within a second, as in a match
    for _ in range(2):
        table.human_move(0, table.turn, "left", now=START)
        with seated([lambda: make_player(ENDGAME, str(path), sandbox="none", limits=limits)]) as [bot]:
            table.bot_move_afresh(bot, now=START)
    assert table.events[1] == {"seat": 1, "action": "left"}  # its first decision stands
    assert table.events[-1] == {"seat": 1, "verdict": verdict} and table.over and table.state.winners() == [0]
    assert "when told again its decision 1 of 1" in table.details[1]


def test_a_slow_bot_within_its_limit_per_decision_is_never_charged_its_catching_up(tmp_path):
    """Each call of the catch-up has its own limit, as each decision of a match has: a bot taking most of its
    second per decision does not run out late in the game (its catch-up alone takes longer than a second)."""
    from sandbox import Limits

    path = tmp_path / "slow.py"
    path.write_text("import time\n\ndef act(observation):\n    time.sleep(0.4)\n"
                    "    return observation['legal_actions'][0]\n")
    table = endgame_table(human_seats=(0,))
    limits = Limits(decision=1.0, bank=0.1)
    while not table.over:
        table.human_move(0, table.turn, "left", now=START)
        with seated([lambda: make_player(ENDGAME, str(path), sandbox="none", limits=limits)]) as [bot]:
            table.bot_move_afresh(bot, now=START)
        assert bot.decisions == table.turn // 2  # told its earlier decisions, then this one
    assert table.replay()["result"]["statuses"] == ["ok", "ok"]


# --- the public view for spectators, and its delay ---------------------------------------------------------
def test_spectators_see_the_public_view_delayed_by_n_moves_until_the_game_is_over():
    game = get_game("crazyking")
    table = Table.open(game, [Seat(f"bot{seat}") for seat in range(4)], seed=8, now=START)
    bots = random_bots(4, seed=8)
    seen = [table.public_view()]
    while table.turn < 12:
        table.bot_move(bots[table.seat_on_move])
        seen.append(table.public_view())
        delayed = table.public_view(delay=5)
        assert delayed == seen[max(0, table.turn - 5)], table.turn
        assert delayed["turn"] == max(0, table.turn - 5) and delayed["seats"][0] == {"name": "bot0", "human": False}
    assert all("hand" not in view and view["drawn_card"] is None for view in seen)
    table.play_bots(bots)
    assert table.public_view(delay=5) == table.public_view()  # once over, everything is shown
    assert table.public_view()["winners"] == table.state.winners()
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(TableError, match="delay"):
            table.public_view(delay=bad)


def test_the_finished_table_is_a_replay_like_any_matchs():
    table = endgame_table()
    table.human_move(0, 0, "right", now=START)
    table.play_bots({1: greedy()}, now=START)
    while not table.over:
        table.human_move(0, table.turn, "left", now=START)
        table.play_bots({1: greedy()}, now=START)
    replay = json.loads(json.dumps(table.replay()))
    replays.check(replay)
    assert replay["players"] == ["you", "builtin:greedy"] and replay["config"]["board"] == BOARD
    analysis = ENDGAME.analyse(replay)
    assert len(analysis) == len(BOARD) and all("points_lost" in row for row in analysis)


# --- hostile facts: a table kept anywhere may come back as anything -----------------------------------------
FIELDS = list(TABLE_FIELDS)


@settings(max_examples=examples(120), derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(FIELDS + [None]), value=json_values)
def test_facts_with_any_field_replaced_make_a_table_or_a_table_error(field, value):
    assert_table_or_refused(field, value)


@pytest.mark.parametrize("field", FIELDS + [None])
def test_facts_nested_200000_deep_are_refused(field):
    assert_table_or_refused(field, nested(DEEPEST))


def assert_table_or_refused(field, value):
    facts = endgame_table(human_seats=(0, 1)).to_json()
    facts["events"] = [{"seat": 0, "action": "left"}, {"seat": 1, "action": "right"}]
    data = value if field is None else {**facts, field: value}
    try:
        table = Table.from_json(data)
    except TableError as refused:
        assert 0 < len(str(refused)) < 500
        return
    assert table.to_json()["events"] == table.events and table.turn == len(table.events)


@settings(max_examples=examples(80), derandomize=True, deadline=None)
@given(seat=st.one_of(json_values, st.just(nested(1000))), turn=st.one_of(json_values, st.just(nested(1000))))
def test_a_move_naming_any_seat_and_turn_is_played_or_refused(seat, turn):
    table = endgame_table()
    try:
        table.human_move(seat, turn, "left", now=START)
    except (TableError, IllegalAction) as refused:
        assert 0 < len(str(refused)) < 500 and table.events == []
        return
    assert (seat, turn) == (0, 0) and table.turn == 1


@settings(max_examples=examples(40), derandomize=True, deadline=None)
@given(seat=st.one_of(json_values, st.just(nested(1000))))
def test_leaving_any_seat_is_the_persons_leaving_or_refused(seat):
    table = endgame_table()
    try:
        table.leave(seat, now=START)
    except NotYourTurn as refused:
        assert 0 < len(str(refused)) < 500 and table.events == []
        return
    assert seat == 0 and table.events == [{"seat": 0, "verdict": "timeout"}]


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
def test_a_table_taken_up_from_a_checkpoint_replays_only_the_later_moves_and_is_the_same_table(name, game,
                                                                                                monkeypatch):
    table = Table.open(game, [Seat(f"bot{seat}") for seat in range(game.min_players)], seed=7)
    bots = random_bots(game.min_players, seed=3)
    for _ in range(6):
        if not table.over:
            table.bot_move(bots[table.seat_on_move])
    checkpoint = table.checkpoint()
    for _ in range(5):
        if not table.over:
            table.bot_move(bots[table.seat_on_move])
    facts = json.loads(json.dumps(table.to_json()))
    replayed = []
    original = replays.next_state
    monkeypatch.setattr(replays, "next_state", lambda *args: replayed.append(args[2]) or original(*args))
    again = Table.from_json(facts, known=checkpoint)
    assert replayed == list(range(len(checkpoint.events), table.turn))  # the later moves only
    replayed.clear()
    whole = Table.from_json(facts)
    assert replayed == list(range(table.turn))
    assert again.to_json() == whole.to_json() == table.to_json()
    assert again.public_view() == whole.public_view()
    assert all(again.choices(seat) == whole.choices(seat) for seat in range(game.min_players))
    # Where each seat stands (what a kept bot is checked against) is the same, however the table was rebuilt.
    assert all(again.seat_history(seat) == whole.seat_history(seat) == table.seat_history(seat)
               for seat in range(game.min_players))
    assert len({whole.digest(count) for count in range(table.turn + 1)}) == table.turn + 1


def test_a_checkpoint_of_another_game_or_history_is_not_taken_for_this_tables():
    table = endgame_table(human_seats=())
    for _ in range(3):
        table.bot_move(greedy())
    facts = table.to_json()
    other_seed = Table.open(ENDGAME, list(table.seats), config={"board": BOARD}, seed=1)
    other_seed.bot_move(greedy())
    forked = endgame_table(human_seats=())  # another history of the same table: its first move differs
    forked._record_action(0, "left" if table.events[0]["action"] == "right" else "right", START)
    longer = Table.from_json(facts)
    longer.bot_move(greedy())
    for known in (other_seed.checkpoint(), forked.checkpoint(), longer.checkpoint()):
        assert Table.from_json(facts, known=known).to_json() == table.to_json()
    broken = json.loads(json.dumps(facts))
    broken["events"].append({"seat": 5, "action": "left"})
    with pytest.raises(TableError, match="event 3"):
        Table.from_json(broken, known=table.checkpoint())
