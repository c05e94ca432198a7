"""End Game as played by the referee: rules, bots, failures and replays."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from games import ConfigError, IllegalAction, Verdict, get_game, replay
from games.bots import builtin_player
from games.core import BotFailure
from games.endgame import solver
from games.referee import InProcessPlayer, play_match
from quick_tier import examples

GAME = get_game("endgame")
even_boards = st.integers(1, 8).flatmap(lambda half: st.lists(st.integers(-30, 30), min_size=2 * half, max_size=2 * half))


def players(*names, seed=0):
    return [builtin_player(GAME, name, rng_seed=seed + seat) for seat, name in enumerate(names)]


def test_players_alternate_and_take_the_chosen_end():
    state = GAME.new_game(config={"board": [-1, 3, 9, 4]})
    assert state.current_player() == 0 and state.legal_actions() == ["left", "right"]
    state = state.apply_action("right")
    assert state.board == [-1, 3, 9] and state.scores() == [4, 0] and state.current_player() == 1
    state = state.apply_action("right").apply_action("right").apply_action("left")
    # The seed's first game: 4 + 3 against 9 + (-1), the second player wins.
    assert state.is_terminal() and state.scores() == [7, 8] and state.winners() == [1]


def test_states_are_not_changed_by_applying_an_action():
    state = GAME.new_game(config={"board": [1, 2]})
    state.apply_action("left")
    assert state.board == [1, 2] and state.scores() == [0, 0]


def test_illegal_action_is_a_clear_error():
    state = GAME.new_game(config={"board": [1, 2]})
    with pytest.raises(IllegalAction, match="middle"):
        state.apply_action("middle")


def test_boards_come_from_the_seed_with_the_configured_length_and_range():
    config = {"length": 11, "min_value": -3, "max_value": 3}
    first = GAME.new_game(config=config, seed=7)
    assert first.board == GAME.new_game(config=config, seed=7).board
    assert first.board != GAME.new_game(config=config, seed=8).board
    assert len(first.board) == 11 and all(-3 <= x <= 3 for x in first.board)


@pytest.mark.parametrize(
    "config, message",
    [({"length": 0}, "length"), ({"min_value": 5, "max_value": 1}, "min_value"), ({"board": [1, "x"]}, "integers"),
     ({"colour": "red"}, "unknown option")],
)
def test_bad_configs_are_refused(config, message):
    with pytest.raises(ConfigError, match=message):
        GAME.new_game(config=config)


@settings(max_examples=examples(150), deadline=None)
@given(even_boards, st.sampled_from(["random", "greedy", "optimal", "parity"]), st.integers(0, 10**6))
def test_parity_bot_never_loses_as_first_player_on_even_boards(board, opponent, seed):
    result = play_match(GAME, players("parity", opponent, seed=seed), config={"board": board}, seed=seed)
    assert 0 in result.winners, (board, result.as_json())


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.integers(-30, 30), min_size=1, max_size=14), st.sampled_from(["random", "greedy", "parity"]),
       st.integers(0, 1), st.integers(0, 10**6))
def test_optimal_bot_never_scores_less_than_the_solver_value(board, opponent, optimal_seat, seed):
    names = ["optimal", opponent] if optimal_seat == 0 else [opponent, "optimal"]
    result = play_match(GAME, players(*names, seed=seed), config={"board": board}, seed=seed)
    solution = solver.solve_value(board)
    guaranteed = solution.first if optimal_seat == 0 else solution.second
    assert result.players[optimal_seat].score >= guaranteed


def test_a_replay_holds_actions_never_states():
    # Rebuilding every state from a replay is checked for all games in test_conformance.py.
    result = play_match(GAME, players("random", "greedy", seed=5), seed=5)
    assert len(json.dumps(result.replay)) < 1500


def test_replay_of_another_version_is_refused(tmp_path):
    result = play_match(GAME, players("greedy", "greedy"), seed=1)
    path = tmp_path / "old.json"
    replay.save({**result.replay, "version": 99}, path)
    with pytest.raises(replay.ReplayError, match="version 99"):
        replay.load(path)


def test_a_replay_file_of_version_1_written_by_hand_still_replays(tmp_path):
    # Replays kept by the platform since the first version must stay readable: the seed's first game.
    path = tmp_path / "seed.json"
    path.write_text(json.dumps({
        "format": "arena-replay", "version": 1, "game": "endgame", "config": {"board": [-1, 3, 9, 4]},
        "seed": 0, "num_players": 2, "players": ["a", "b"],
        "events": [{"seat": seat % 2, "action": move} for seat, move in enumerate(["right", "right", "right", "left"])],
    }))
    final = replay.final_state(replay.load(path))
    assert final.scores() == [7, 8] and final.winners() == [1]


class Scripted:
    def __init__(self, *actions):
        self.actions = list(actions)

    def act(self, obs):
        action = self.actions.pop(0)
        if isinstance(action, Exception):
            raise action
        return action


@pytest.mark.parametrize(
    "bad_move, verdict",
    [("middle", "illegal"), (["left"], "illegal"), (ZeroDivisionError("oops"), "crash")],
)
def test_a_failing_bot_loses_with_its_verdict_and_the_replay_records_it(bad_move, verdict):
    seats = [InProcessPlayer("good", Scripted("left", "left")), InProcessPlayer("bad", Scripted(bad_move))]
    result = play_match(GAME, seats, config={"board": [1, 2, 3, 4]})
    assert result.winners == [0]
    assert [p.status for p in result.players] == ["ok", verdict]
    assert result.players[1].placing == 2 and result.players[1].detail
    assert result.replay["events"][-1] == {"seat": 1, "verdict": verdict}
    assert replay.final_state(result.replay).winners() == [0]


def test_a_bot_that_fails_at_setup_loses_before_the_first_move():
    class Failing:
        def start(self, info):
            raise BotFailure(Verdict.TIMEOUT, "setup took too long")

        name, think_time, decisions = "slow", 0.0, 0
        act = None

        def close(self):
            return "log"

    result = play_match(GAME, [Failing(), InProcessPlayer("good", Scripted())], config={"board": [5, 1]})
    assert result.winners == [1] and result.players[0].status == "timeout" and result.final_state.step == 0


def test_a_tie_lists_both_seats_as_winners():
    result = play_match(GAME, players("greedy", "greedy"), config={"board": [2, 2]})
    assert result.winners == [0, 1] and result.draw
