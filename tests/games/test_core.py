"""The shared machinery of games/core.py and the referee, on a toy game small enough to work out by hand.

Race to ten: seats take turns adding 1 or 2 to a shared counter (actions {"add": n, "by": seat}); a seat
scores what it added, and the game ends when the counter reaches TARGET. With three or more seats a failed
seat is skipped; with two the match ends. A draw from the state's random generator at setup picks the seat
that starts, so replays depend on the seed.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from games.core import (BotFailure, ConfigError, Game, GameState, IllegalAction, MoveChoice, Verdict, canonical,
                        placings)
from games import referee
from games.referee import InProcessPlayer, play_match, setup_info

TARGET = 10


class RaceState(GameState):
    def __init__(self, game, num_players, config, seed):
        super().__init__(game, num_players, config, seed)
        self.counter = 0
        self.added = [0] * num_players
        self.turn = self.rng.randrange(num_players)

    def current_player(self):
        return None if self.is_terminal() else self.turn

    def legal_actions(self):
        if self.is_terminal():
            return []
        return [{"add": n, "by": self.turn} for n in range(1, self.config["step"] + 1)]

    def _observe(self, seat):
        return {"counter": self.counter}

    def _public(self, view):
        return view

    def _action_label(self, view, action):
        return f"add {action['add']}"

    def _apply(self, action):
        self.counter += action["add"]
        self.added[self.turn] += action["add"]
        self._advance()

    def _advance(self):
        self.turn = (self.turn + 1) % self.num_players
        while self.turn in self.failed_seats:
            self.turn = (self.turn + 1) % self.num_players

    def scores(self):
        return list(self.added)

    def _rules_over(self):
        return self.counter >= self.config["target"]

    def _drop_seat(self, seat):
        if self.num_players == 2:
            return False
        if seat == self.turn:
            self._advance()
        return True


class Race(Game):
    name = "race"
    title = "Race to ten"
    min_players, max_players = 2, 6

    def default_config(self):
        return {"target": TARGET, "step": 2}

    def check_config(self, config):
        if config["step"] < 1:
            raise ConfigError("step must be at least 1")

    def _initial_state(self, num_players, config, seed):
        return RaceState(self, num_players, config, seed)


GAME = Race()


# --- placings -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("scores, failed, expected", [
    ([3, 7, 5], [], [3, 1, 2]),
    ([5, 7, 5], [], [2, 1, 2]),        # equal scores share a placing; the next one is not skipped over
    ([7, 7, 7], [], [1, 1, 1]),
    ([9, 1, 4, 2], [0], [4, 3, 1, 2]),  # a failed seat places below everyone playing, whatever its score
    ([9, 1, 4, 2], [2, 0], [3, 2, 4, 1]),  # the first to fail (seat 2) places last
    ([1, 2], [0, 1], [2, 1]),
])
def test_placings_by_hand(scores, failed, expected):
    assert placings(scores, failed) == expected


def test_canonical_ignores_key_order_only():
    assert canonical({"b": 1, "a": [1, 2]}) == canonical({"a": [1, 2], "b": 1}) == '{"a":[1,2],"b":1}'
    assert canonical([1, 2]) != canonical([2, 1])


# --- states ---------------------------------------------------------------------------------------------
def test_new_game_checks_players_and_options():
    with pytest.raises(ConfigError, match="race is played by 2 to 6 players, not 7"):
        GAME.new_game(7)
    with pytest.raises(ConfigError, match="race is played by 2 to 6 players, not 1"):
        GAME.new_game(1)
    assert GAME.new_game(6).num_players == 6 and GAME.new_game().num_players == 2
    with pytest.raises(ConfigError, match=r"unknown option\(s\) \['speed'\]; known: \['step', 'target'\]"):
        GAME.new_game(2, {"speed": 3})
    with pytest.raises(ConfigError, match="step must be at least 1"):
        GAME.new_game(2, {"step": 0})
    assert GAME.new_game(2, {"step": 3}).config == {"target": TARGET, "step": 3}


def test_observation_fills_the_shared_fields_and_legal_actions_only_for_the_seat_on_move():
    state = GAME.new_game(3, seed=1)
    mover = state.current_player()
    other = (mover + 1) % 3
    assert state.observation(mover) == {"counter": 0, "game": "race", "seat": mover, "step": 0,
                                        "legal_actions": [{"add": 1, "by": mover}, {"add": 2, "by": mover}]}
    assert state.observation(other)["legal_actions"] == []
    assert state.full_view() == {"counter": 0}


def test_actions_are_legal_whatever_their_key_order_and_nothing_else_is():
    state = GAME.new_game(2, seed=1)
    mover = state.current_player()
    assert state.is_legal({"by": mover, "add": 2})
    assert not state.is_legal({"add": 3, "by": mover})
    assert not state.is_legal({"add": 1})
    assert not state.is_legal({1, 2})  # not JSON at all


def test_apply_action_returns_a_new_state_and_counts_steps():
    state = GAME.new_game(2, seed=1)
    mover = state.current_player()
    after = state.apply_action({"by": mover, "add": 2})
    assert (state.counter, state.step, state.current_player()) == (0, 0, mover)
    assert (after.counter, after.step, after.current_player()) == (2, 1, 1 - mover)
    assert after.scores()[mover] == 2


def test_illegal_and_late_actions_are_clear_errors():
    state = GAME.new_game(2, seed=1)
    mover = state.current_player()
    with pytest.raises(IllegalAction) as illegal:
        state.apply_action({"by": mover, "add": 3})
    assert str(illegal.value) == (f'{{"add":3,"by":{mover}}} is not a legal action for seat {mover}; '
                                  f'legal: [{{"add":1,"by":{mover}}},{{"add":2,"by":{mover}}}]')
    with pytest.raises(IllegalAction, match=r"^\{1, 2\} is not a legal action"):
        state.apply_action({1, 2})
    while not state.is_terminal():
        state = state.apply_action(state.legal_actions()[-1])
    with pytest.raises(IllegalAction, match="^the game is over$"):
        state.apply_action({"add": 1, "by": 0})


def test_a_game_that_declares_no_player_counts_is_for_two():
    class Duel(Race):
        min_players = Game.min_players
        max_players = Game.max_players

    assert Duel().new_game().num_players == 2
    with pytest.raises(ConfigError, match="played by 2 to 2 players, not 3"):
        Duel().new_game(3)


def test_no_seed_is_seed_zero():
    assert GAME.new_game(4).rng.random() == GAME.new_game(4, seed=0).rng.random() != GAME.new_game(4, seed=1).rng.random()


def test_the_seed_decides_chance_and_a_clone_draws_the_same_future():
    starts = {GAME.new_game(4, seed=seed).current_player() for seed in range(40)}
    assert starts == {0, 1, 2, 3}
    assert GAME.new_game(4, seed=7).current_player() == random.Random(7).randrange(4)
    state = GAME.new_game(2, seed=3)
    twin = state.clone()
    assert twin.rng is not state.rng and twin.game is state.game and twin.added is not state.added
    assert [state.rng.random() for _ in range(3)] == [twin.rng.random() for _ in range(3)]


def test_a_failed_seat_ends_a_two_player_game_and_the_other_wins():
    state = GAME.new_game(2, seed=1).forfeit(0, Verdict.TIMEOUT)
    assert state.is_terminal() and state.current_player() is None
    assert state.failures == [(0, Verdict.TIMEOUT)]
    assert state.ranking() == [2, 1] and state.winners() == [1]


def test_a_failed_seat_is_skipped_in_a_multiplayer_game_until_one_seat_is_left():
    state = GAME.new_game(3, seed=1)
    first = state.current_player()
    state = state.forfeit(first, "crash")  # a verdict's value is taken too
    assert not state.is_terminal()
    assert state.failures == [(first, Verdict.CRASH)] and state.failed_seats == [first]
    assert state.current_player() == (first + 1) % 3
    state = state.forfeit(state.current_player(), Verdict.ILLEGAL)
    assert state.is_terminal()
    survivor = ({0, 1, 2} - set(state.failed_seats)).pop()
    assert state.winners() == [survivor]
    assert state.ranking()[first] == 3


def test_by_default_a_failed_seat_ends_the_game_whatever_the_number_of_seats():
    class NoDropping(RaceState):
        _drop_seat = GameState._drop_seat

    state = NoDropping(GAME, 4, GAME.configure(), seed=1).forfeit(2, Verdict.CRASH)
    assert state.is_terminal()
    assert state.ranking()[2] == 4


HOOKS = ["current_player", "legal_actions", "_observe", "_apply", "scores", "_rules_over", "_public", "_action_label"]


@pytest.mark.parametrize("hook", HOOKS)
def test_a_state_missing_a_hook_cannot_be_made(hook):
    methods = {name: value for name, value in vars(RaceState).items() if name != hook}
    partial = type("Partial", (GameState,), methods)
    with pytest.raises(TypeError, match=hook):
        partial(GAME, 2, GAME.configure(), seed=1)


def test_a_game_without_an_initial_state_cannot_be_made():
    class NoStart(Game):
        name = title = "no start"

    with pytest.raises(TypeError, match="_initial_state"):
        NoStart()


def test_the_default_text_display_is_the_indented_json_view():
    state = GAME.new_game(2, seed=1)
    assert GAME.render(state) == '{\n "counter": 0\n}'
    seat_view = GAME.render(state, 1)
    assert seat_view.startswith('{\n "counter": 0,\n "game": "race",\n "seat": 1,') and '"legal_actions": []' in seat_view
    assert GAME.describe_action(state, {"by": 0, "add": 2}) == '{"add":2,"by":0}'
    assert GAME.analyse({}) is None and GAME.builtin_bots() == {}


def test_a_multiplayer_game_plays_on_while_two_seats_are_left():
    state = GAME.new_game(5, seed=1)
    for failed in range(3):  # 4, 3, then 2 seats left: each time the game goes on
        state = state.forfeit(state.current_player(), Verdict.TIMEOUT)
        assert not state.is_terminal(), f"ended with {5 - failed - 1} seats still playing"
    state = state.forfeit(state.current_player(), Verdict.TIMEOUT)
    assert state.is_terminal() and len(state.winners()) == 1


# --- the referee ----------------------------------------------------------------------------------------
class Greedy:
    def act(self, observation):
        return observation["legal_actions"][-1]


class Scripted:
    """Plays the given actions in order (a callable is called instead, to fail)."""

    def __init__(self, *moves):
        self.moves = list(moves)
        self.info = None

    def setup(self, info):
        self.info = info

    def act(self, observation):
        move = self.moves.pop(0)
        return move(observation) if callable(move) else move


def crash(observation):
    raise RuntimeError("boom")


def test_a_whole_match_by_hand():
    # Seed 1: random.Random(1).randrange(2) == 0, so seat 0 starts. Both add 2 each turn: 2, 4, 6, 8, 10,
    # seat 0 makes the moves to 2, 6 and 10 (6 points), seat 1 to 4 and 8 (4 points).
    assert random.Random(1).randrange(2) == 0
    result = play_match(GAME, [InProcessPlayer("a", Greedy()), InProcessPlayer("b", Greedy())], seed=1)
    assert result.winners == [0] and not result.draw
    assert [(p.name, p.score, p.placing, p.status, p.decisions) for p in result.players] == [
        ("a", 6, 1, "ok", 3), ("b", 4, 2, "ok", 2)]
    assert result.replay["events"] == [{"seat": step % 2, "action": {"add": 2, "by": step % 2}}
                                       for step in range(5)]
    assert result.replay["result"] == {"winners": [0], "scores": [6, 4], "placings": [1, 2],
                                       "statuses": ["ok", "ok"]}
    assert (result.replay["seed"], result.replay["num_players"], result.replay["players"]) == (1, 2, ["a", "b"])
    assert result.as_json(with_logs=False)["steps"] == 5
    assert "log" not in result.as_json(with_logs=False)["players"][0]


def test_a_drawn_match_lists_both_winners():
    # Seat 0 starts (seed 1) and adds 1 every time; seat 1 adds 2, then 1 at the end: 1, 3, 4, 6, 7, 9, 10
    # gives seat 0 the moves to 1, 4, 7 and 10 (1 + 1 + 1 + 1 = 4)... so make it exact instead: seat 0 adds
    # 2, 1, 2 and seat 1 adds 1, 2, 2: 2, 3, 4, 6, 8, 10 gives 5 each.
    players = [InProcessPlayer("a", Scripted({"add": 2, "by": 0}, {"add": 1, "by": 0}, {"add": 2, "by": 0})),
               InProcessPlayer("b", Scripted({"add": 1, "by": 1}, {"add": 2, "by": 1}, {"add": 2, "by": 1}))]
    result = play_match(GAME, players, seed=1)
    assert [p.score for p in result.players] == [5, 5]
    assert result.winners == [0, 1] and result.draw


def test_failures_become_verdicts_and_the_match_goes_on_without_the_seat():
    players = [InProcessPlayer("crasher", Scripted(crash)),
               InProcessPlayer("cheat", Scripted({"add": 5, "by": 1})),
               InProcessPlayer("steady", Greedy())]
    result = play_match(GAME, players, seed=3)  # Random(3).randrange(3) == 0: the crasher starts
    assert random.Random(3).randrange(3) == 0
    assert [p.status for p in result.players] == ["crash", "illegal", "ok"]
    assert result.players[0].detail == "RuntimeError: boom"
    assert result.players[1].detail == "returned {'add': 5, 'by': 1}, not one of legal_actions"
    assert result.winners == [2]
    assert [p.placing for p in result.players] == [3, 2, 1]
    assert result.replay["events"][:2] == [{"seat": 0, "verdict": "crash"}, {"seat": 1, "verdict": "illegal"}]


class FailsAtSetup:
    def setup(self, info):
        raise BotFailure(Verdict.CRASH, "no setup")

    def act(self, observation):
        raise AssertionError("a bot that failed setup is never asked to act")


def test_a_setup_failure_in_a_two_player_match_ends_it_before_the_first_move():
    result = play_match(GAME, [InProcessPlayer("broken", FailsAtSetup()), InProcessPlayer("b", Greedy())])
    assert result.final_state.step == 0 and result.replay["seed"] == 0  # no seed given is seed 0
    assert result.winners == [1] and result.players[0].detail == "no setup"
    assert result.replay["events"] == [{"seat": 0, "verdict": "crash"}]


def test_the_opponent_of_a_bot_failing_setup_in_a_two_player_match_is_never_started():
    # The match is decided at once: starting the other bot (a container, in the platform) would be waste.
    opponent = Scripted()
    play_match(GAME, [InProcessPlayer("broken", FailsAtSetup()), InProcessPlayer("b", opponent)])
    assert opponent.info is None


class Preparing(InProcessPlayer):
    """A player that opens something before it starts, as a warm sandbox player takes its container."""

    def __init__(self, name, bot, barrier, journal):
        super().__init__(name, bot)
        self.barrier, self.journal = barrier, journal

    def prepare(self):
        self.journal.append(("prepare", self.name))
        self.barrier.wait(timeout=10)  # broken (and raising) unless the other seat prepares meanwhile
        self.journal.append(("prepared", self.name))

    def start(self, info):
        self.journal.append(("start", self.name))
        super().start(info)


def test_the_seats_prepare_side_by_side_and_then_start_one_after_the_other():
    import threading

    barrier, journal = threading.Barrier(2), []
    players = [Preparing(name, Greedy(), barrier, journal) for name in ("a", "b")]
    result = play_match(GAME, players, seed=1)

    assert [p.status for p in result.players] == ["ok", "ok"]
    assert sorted(journal[:2]) == [("prepare", "a"), ("prepare", "b")]  # each waited for the other
    assert journal[4:] == [("start", "a"), ("start", "b")]


@pytest.mark.parametrize("failing, verdict", [(FailsAtSetup, "crash"), (lambda: Scripted({"add": 5, "by": 0}), "illegal")])
def test_after_the_first_seat_fails_in_a_three_player_match_the_others_play_it_out(failing, verdict):
    # Seed 3: Random(3).randrange(3) == 0 gives the first turn to seat 0, which fails (at setup or with
    # its first move); the game skips it, so seat 1 moves next and both others add 2 each turn: seat 1
    # makes the moves to 2, 6 and 10, seat 2 to 4 and 8.
    second, third = (Scripted(*[{"add": 2, "by": seat}] * 3) for seat in (1, 2))
    result = play_match(GAME, [InProcessPlayer("failing", failing()), InProcessPlayer("b", second),
                               InProcessPlayer("c", third)], seed=3)
    assert (second.info["seat"], third.info["seat"]) == (1, 2)
    assert [(p.status, p.score, p.placing) for p in result.players] == [(verdict, 0, 3), ("ok", 6, 1), ("ok", 4, 2)]


def test_setup_info_and_each_step_are_reported():
    scripted = Scripted({"add": 2, "by": 0}, {"add": 2, "by": 0}, {"add": 2, "by": 0})
    steps = []
    play_match(GAME, [InProcessPlayer("a", scripted, rng_seed=99), InProcessPlayer("b", Greedy())], seed=1,
               config={"step": 2}, on_step=lambda before, seat, action, after: steps.append(
                   (before.step, seat, action["add"], after.counter)))
    assert scripted.info == {"game": "race", "seat": 0, "num_players": 2, "config": {"target": TARGET, "step": 2},
                             "time_limits": {"setup": 5.0, "decision": 1.0, "bank": 10.0}, "rng_seed": 99}
    assert setup_info(GAME, GAME.new_game(3), 2)["seat"] == 2
    assert steps == [(0, 0, 2, 2), (1, 1, 2, 4), (2, 0, 2, 6), (3, 1, 2, 8), (4, 0, 2, 10)]


def test_an_in_process_player_counts_its_decisions_and_time_even_when_it_fails():
    player = InProcessPlayer("crasher", Scripted(crash))
    with pytest.raises(BotFailure) as failure:
        player.act({})
    assert failure.value.verdict is Verdict.CRASH and str(failure.value) == "crash: RuntimeError: boom"
    assert player.decisions == 1 and player.think_time > 0
    assert player.close() == ""


def test_think_time_is_the_clock_time_from_each_request_to_its_answer_to_the_microsecond(monkeypatch):
    clock = [0.0]  # a clock started at zero, that only the bots move: each takes 0.1234567 s

    class Slow(Greedy):
        def act(self, observation):
            clock[0] += 0.1234567
            return super().act(observation)

    monkeypatch.setattr(referee, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    result = play_match(GAME, [InProcessPlayer("a", Slow()), InProcessPlayer("b", Slow())], seed=1)
    # As in the whole match by hand: seat 0 decides three times (0.3703701 s), seat 1 twice (0.2469134 s).
    assert [(p.decisions, p.think_time) for p in result.players] == [(3, 0.37037), (2, 0.246913)]


def test_a_player_that_keeps_no_count_reports_no_decisions_and_no_think_time():
    class Minimal:  # only what the Player protocol asks for
        name = "minimal"

        def start(self, info):
            pass

        def act(self, observation):
            return observation["legal_actions"][-1]

        def close(self):
            return "its log"

    result = play_match(GAME, [Minimal(), InProcessPlayer("b", Greedy())], seed=1)
    minimal, counted = result.players
    assert (minimal.decisions, minimal.think_time, minimal.log) == (0, 0.0, "its log")
    assert (counted.decisions, counted.log) == (2, "")
    assert result.as_json()["players"][0]["log"] == "its log"  # logs are in a result's JSON unless left out


def test_a_cooperative_game_must_say_when_its_team_has_won():
    """Without its own _team_won a cooperative game would be lost every time: new_game refuses it."""
    class Silent(GameState):
        def current_player(self):
            return None

        def legal_actions(self):
            return []

        def _observe(self, seat):
            return {}

        def _public(self, view):
            return view

        def _action_label(self, view, action):
            return ""

        def _apply(self, action):
            pass

        def scores(self):
            return [0.0] * self.num_players

        def _rules_over(self):
            return True

    class Team(Game):
        name, title, cooperative = "team", "Team", True

        def _initial_state(self, num_players, config, seed):
            return Silent(self, num_players, config, seed)

    with pytest.raises(TypeError, match="must say when the team has won"):
        Team().new_game()


def test_move_choices_label_the_seat_on_moves_legal_actions_and_nobody_elses():
    state = GAME.new_game(3, seed=1)
    seat = state.current_player()
    assert state.move_choices(seat) == [MoveChoice("add 1", {"add": 1, "by": seat}),
                                       MoveChoice("add 2", {"add": 2, "by": seat})]
    assert all(state.move_choices(other) == [] for other in range(3) if other != seat)
    assert state.apply_action(state.move_choices(seat)[1].action).full_view() == {"counter": 2}


def test_the_public_view_adds_what_the_referee_knows_publicly():
    state = GAME.new_game(3, seed=1)
    seat = state.current_player()
    out = state.forfeit(seat, Verdict.TIMEOUT)
    assert out.public_view() == {"counter": 0, "game": "race", "step": 0, "to_move": out.current_player(),
                                 "over": False, "failures": [[seat, "timeout"]]}


class _OpenedSeat:
    """A player stand-in that records how it was let go."""

    def __init__(self, name: str, ended: list):
        self.name, self.ended = name, ended

    def close(self) -> str:
        self.ended.append(("closed", self.name))
        return ""

    def discard(self) -> None:
        self.ended.append(("discarded", self.name))


def test_a_match_opens_its_seats_at_once():
    """Four seats whose openers each wait for the other three (a Docker start is mostly waiting): opened in
    turn, the first would wait for the others for ever (the barrier breaks); at once, all four open."""
    import threading

    together, ended = threading.Barrier(4, timeout=60), []

    def opener(name):
        def open_player():
            together.wait()
            return _OpenedSeat(name, ended)
        return open_player

    with referee.seated([opener(name) for name in "abcd"]) as players:
        assert [player.name for player in players] == list("abcd")  # in seat order, whichever opened first
    assert sorted(ended) == [("closed", name) for name in "abcd"]


def test_a_seat_that_fails_to_open_discards_the_others_and_its_failure_is_raised():
    ended = []

    def fails(message):
        def open_player():
            raise RuntimeError(message)
        return open_player

    openers = [lambda: _OpenedSeat("a", ended), fails("seat 1"), lambda: _OpenedSeat("c", ended), fails("seat 3")]
    with pytest.raises(RuntimeError, match="^seat 1$"):  # the first in seat order
        with referee.seated(openers):
            pytest.fail("the match must not be played without all its seats")
    assert sorted(ended) == [("discarded", "a"), ("discarded", "c")]
