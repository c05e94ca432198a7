"""Sprouts: the seed's card procedures, Hoey's and WGOSA's notations, the referee, and the solver."""

import itertools
import json
import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from games import ConfigError, IllegalAction, Verdict, get_game, replay
from games.bots import builtin_player
from games.contracts import actions
from games.referee import InProcessPlayer, play_match
from games.sprouts import MAX_SPOTS, read_wgosa, write_wgosa
from games.sprouts.canon import canonical_key
from games.sprouts.notation import (
    NotationError, card_counts, drawing_key, format_position, initial_position, named_moves, parse_position,
    same_position, spot_lives,
)
from games.sprouts import drawing, solver
from games.sprouts.store import SolvedStore
from quick_tier import examples

GAME = get_game("sprouts")


@pytest.fixture(autouse=True)
def own_store(tmp_path, monkeypatch):
    """Each test its own file of solved positions: never the repository's var/ nor another test's answers."""
    monkeypatch.setattr(solver, "STORE", SolvedStore(tmp_path / "solved.sqlite3"))
    return solver.STORE
SEED_GAME = "2+ 1(3)2 1(4)2 1(5)4 2(6)3"
# The seed's position after each move of its example game, as it writes them.
SEED_POSITIONS = ["1;2", "1,3,2,3", "4,1,3,2/4,2,3,1", "5,1,3,2,4/5,4,1/4,2,3,1",
                  "5,1,3,2,4/5,4,1/6,2,3/6,3,1,4,2"]


def players(*names, seed=0):
    return [builtin_player(GAME, name, rng_seed=seed + seat) for seat, name in enumerate(names)]


def random_game(spots, seed):
    """The positions of a game played at random, from the start to the end."""
    rng, position, positions = random.Random(seed), initial_position(spots), []
    while True:
        positions.append(position)
        moves = named_moves(position)
        if not moves:
            return positions
        position = rng.choice(moves)[1].result


def test_the_seed_example_game_replays_to_the_seed_positions_step_by_step():
    config, moves = read_wgosa(SEED_GAME)
    state = GAME.new_game(config=config)
    assert same_position(state.position, parse_position(SEED_POSITIONS[0]))
    for move, expected in zip(moves, SEED_POSITIONS[1:]):
        action = next(a for a in state.legal_actions() if a["move"] == move)
        state = state.apply_action(action)
        # Rows, stacks and cuts may be written in another order: the same drawing with the same spots.
        assert same_position(state.position, parse_position(expected)), (move, format_position(state.position))
    assert write_wgosa(config["spots"], config["misere"], state.moves) == SEED_GAME


def test_the_seed_dividing_move_in_detail():
    # Seed step (4): cut nothing, split 1,3,2,3,1 after three cards, 2's twin on top, new card 4 on both.
    moves = dict(named_moves(parse_position("1,3,2,3")))
    assert format_position(moves["1(4)2"].result) == "4,1,3,2/4,2,3,1"


def test_a_lone_card_gets_no_twin_when_joined_but_a_longer_stack_does():
    moves = dict(named_moves(parse_position("1;2,3,2,4")))
    result = moves["1(5)2"].result
    assert card_counts(result)[1] == 1 and card_counts(result)[2] == 3
    assert spot_lives(result)[1] == 2 and spot_lives(result)[2] == 0


def test_a_dead_spot_takes_no_line_and_a_game_with_no_move_is_over():
    # 1 is met three times: degree 3. 2 and 3 have one life each but sit in different regions.
    position = parse_position("4,1,2,1/4,1,3")
    assert all(1 not in move.spots for _, move in named_moves(position))
    state = GAME.new_game(config={"spots": 1})
    while state.legal_actions():
        state = state.apply_action(state.legal_actions()[0])
    # One spot: a loop, then a line between the two spots on it; both are then dead.
    assert state.step == 2 and state.is_terminal() and state.current_player() is None


def test_first_moves_are_listed_once_each():
    names = [name for name, _ in named_moves(initial_position(2))]
    assert names == ["1(3)1", "1(3)2", "2(3)2"]
    # Five spots: 10 joins, and per spot 8 loops (the 16 ways to share the 4 others, a side and its
    # complement being the same drawing).
    assert len(named_moves(initial_position(5))) == 50


@settings(max_examples=examples(25), deadline=None)
@given(st.integers(1, 5), st.integers(0, 10**6))
def test_random_games_obey_the_rules_of_sprouts(spots, seed):
    positions = random_game(spots, seed)
    moves = len(positions) - 1
    # A game of N spots lasts at least 2N and at most 3N - 1 moves; no card is on the table more than 3 times.
    assert 2 * spots <= moves <= 3 * spots - 1
    for position in positions:
        assert max(card_counts(position).values()) <= 3
        named = named_moves(position)
        assert len({name for name, _ in named}) == len(named)
        assert len({drawing_key(move.result) for _, move in named}) == len(named)


@settings(max_examples=examples(20), deadline=None)
@given(st.integers(1, 5), st.integers(0, 10**6), st.data())
def test_canonical_keys_ignore_labels_cuts_order_and_mirroring(spots, seed, data):
    position = data.draw(st.sampled_from(random_game(spots, seed)))
    labels = sorted(card_counts(position))
    renamed = dict(zip(labels, data.draw(st.permutations(labels))))
    shift = data.draw(st.integers(0, 5))
    other = tuple(
        tuple((lambda s: s[shift % len(s):] + s[:shift % len(s)])(tuple(renamed[c] for c in reversed(stack)))
              for stack in reversed(row))
        for row in reversed(position)
    )

    def key(p):
        return canonical_key([list(row) for row in p], spot_lives(p))

    assert key(other) == key(position)
    assert solver.components_of(other) == solver.components_of(position)


def test_a_wgosa_game_round_trips_and_bad_moves_are_named():
    positions = random_game(4, seed=11)
    names, position = [], positions[0]
    for after in positions[1:]:
        names.append(next(name for name, move in named_moves(position) if move.result == after))
        position = after
    text = write_wgosa(4, True, names)
    assert read_wgosa(text) == ({"spots": 4, "misere": True}, names)
    with pytest.raises(NotationError, match="'1\\(3\\)4' is not a legal move"):
        read_wgosa("2+ 1(3)4")
    with pytest.raises(NotationError, match="starts with the number of spots"):
        read_wgosa("1(3)2")
    # WGOSA may name either side a dividing move separates.
    assert read_wgosa("5+ 1(6)1[2-4]")[1] == read_wgosa("5+ 1(6)1[5]")[1] == ["1(6)1[5]"]


@pytest.mark.parametrize("text", ["", "1;;2", "1,a", "1/", "0", "1,1,1,1"])
def test_bad_position_text_is_refused(text):
    with pytest.raises(NotationError):
        parse_position(text)


@pytest.mark.parametrize("config, message", [({"spots": 0}, "spots"), ({"spots": MAX_SPOTS + 1}, "spots"),
                                             ({"spots": "3"}, "spots"), ({"misere": "yes"}, "misere")])
def test_bad_configs_are_refused(config, message):
    with pytest.raises(ConfigError, match=message):
        GAME.new_game(config=config)


# Normal play: published by Applegate, Jacobson and Sleator (1991), N = 6 is in bench/sprouts_solver.py.
@pytest.mark.parametrize("spots, first_wins", [(1, False), (2, False), (3, True), (4, True), (5, True)])
def test_normal_play_outcomes_match_the_published_ones(spots, first_wins):
    assert solver.mover_wins(solver.components_of(initial_position(spots)), misere=False) == first_wins


# Misere play: OEIS A164950 (1, 0, 0, 0, 1, 1, 0, ...); N = 6 and up are in the bench.
@pytest.mark.parametrize("spots, first_wins", [(1, True), (2, False), (3, False), (4, False), (5, True)])
def test_misere_outcomes_match_oeis_a164950(spots, first_wins):
    assert solver.mover_wins(solver.components_of(initial_position(spots)), misere=True) == first_wins


def test_regions_that_share_no_live_spot_are_independent_components():
    position = initial_position(4)
    for move in ("1(5)1[2]", "1(6@2)5"):  # a loop round 2, then closed: 1 and 5 are dead, 3;4 stand apart
        position = dict(named_moves(position))[move].result
    parts = solver.components_of(position)
    two_spots = solver.components_of(initial_position(2))
    assert len(parts) == 2 and two_spots[0] in parts
    assert solver.game_nimber(parts) == solver.nimber(parts[0]) ^ solver.nimber(parts[1])


def brute_force_wins(position, misere, memo):
    """The plain game tree over the seed's moves, no reduction, splitting or nimbers: the solver's oracle."""
    key = drawing_key(position)
    if key not in memo:
        results = [move.result for _, move in named_moves(position)]
        memo[key] = misere if not results else any(not brute_force_wins(r, misere, memo) for r in results)
    return memo[key]


@pytest.mark.parametrize("misere", [False, True])
def test_a_spot_met_twice_between_dead_spots_keeps_its_life_in_the_solver(misere):
    # Spot 9 (one life) is met twice on a boundary whose other spots are dead; it can still reach spot 1.
    position = parse_position("7,2/8,7,2/9,8,2,7,8,9,5,3,5;1/6,3,5,3,6,4")
    assert solver.mover_wins(solver.components_of(position), misere) == brute_force_wins(position, misere, {})


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(2, 4), st.integers(0, 10**6), st.booleans(), st.data())
def test_the_solver_agrees_with_the_plain_game_tree(spots, seed, misere, data):
    positions = random_game(spots, seed)
    position = data.draw(st.sampled_from(positions[max(0, len(positions) - 7):]))
    expected = brute_force_wins(position, misere, {})
    assert solver.mover_wins(solver.components_of(position), misere) == expected, format_position(position)


@pytest.mark.parametrize("spots, misere", [(2, False), (3, False), (4, False), (2, True), (3, True), (5, True)])
def test_the_optimal_bot_wins_whichever_seat_the_solver_says_wins(spots, misere):
    winner = 0 if solver.mover_wins(solver.components_of(initial_position(spots)), misere) else 1
    names = ["optimal", "random"] if winner == 0 else ["random", "optimal"]
    for seed in range(3):
        result = play_match(GAME, players(*names, seed=seed), config={"spots": spots, "misere": misere}, seed=seed)
        assert result.winners == [winner]


def test_the_analysis_marks_every_move():
    result = play_match(GAME, players("optimal", "random", seed=4), config={"spots": 3}, seed=4)
    rows = GAME.analyse(json.loads(json.dumps(result.replay)))
    assert len(rows) == result.final_state.step
    assert rows[0]["won_before"] and all(row["keeps_win"] for row in rows if row["seat"] == 0)
    assert all(row["verdict"] == "lost_position" for row in rows if row["seat"] == 1)
    thrown = solver.analyse_moves(initial_position(3), ["1(4)1"], misere=False)[0]
    assert thrown["verdict"] == "throws_win" and "1(4)2" in thrown["text"]


def test_the_winner_is_the_last_mover_or_in_misere_the_other_one():
    for misere in (False, True):
        result = play_match(GAME, players("random", "random", seed=2), config={"spots": 3, "misere": misere}, seed=2)
        last_mover = (result.final_state.step - 1) % 2
        assert result.winners == [1 - last_mover if misere else last_mover]


def test_observation_is_json_with_the_position_as_text_and_rows():
    state = GAME.new_game(config={"spots": 2})
    obs = state.observation(0)
    assert json.loads(json.dumps(obs)) == obs
    assert obs["position"] == "1;2" and obs["rows"] == [[[1], [2]]] and obs["lives"] == {"1": 3, "2": 3}
    assert [a["move"] for a in obs["legal_actions"]] == ["1(3)1", "1(3)2", "2(3)2"]
    assert state.observation(1)["legal_actions"] == []
    joined = state.apply_action(obs["legal_actions"][1])
    assert "region 1: [3 1 3 2]" in GAME.render(joined) and joined.current_player() == 1
    with pytest.raises(IllegalAction):
        state.apply_action({"move": "1(3)2"})


def test_a_failed_bot_loses_and_the_replay_replays():
    class Broken:
        def act(self, obs):
            return "nonsense"

    seats = [InProcessPlayer("good", players("random")[0].bot), InProcessPlayer("bad", Broken())]
    result = play_match(GAME, seats, config={"spots": 3}, seed=1)
    assert result.winners == [0] and result.players[1].status == "illegal"
    final = replay.final_state(json.loads(json.dumps(result.replay)))
    assert final.winners() == [0] and final.failed_seats == [1]
    assert GAME.new_game(config={"spots": 3}).forfeit(0, Verdict.TIMEOUT).winners() == [1]


SOLVE_IN_A_NEW_PROCESS = """
from games.sprouts import solver
from games.sprouts.notation import initial_position
wins = solver.mover_wins(solver.components_of(initial_position(6)), misere=False)
print(wins, solver.expanded())
"""


def test_solved_positions_are_kept_on_disk_and_a_new_process_answers_from_them(tmp_path):
    env = {**os.environ, "ARENA_SPROUTS_STORE": str(tmp_path / "shared.sqlite3")}
    runs = [subprocess.run([sys.executable, "-c", SOLVE_IN_A_NEW_PROCESS], env=env, capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(2)]
    assert runs[0][0] == runs[1][0] == "False"
    # The first process searched thousands of components; the second one read the answer back.
    assert int(runs[0][1]) > 1000 and int(runs[1][1]) < 10
    cleared = subprocess.run([sys.executable, "-m", "games", "solve", "sprouts", "--clear-cache"], env=env,
                             capture_output=True, text=True, check=True).stdout
    assert "solved positions removed" in cleared and SolvedStore(tmp_path / "shared.sqlite3").rows() == 0


def test_the_store_keeps_at_most_its_bound_and_drops_the_oldest_first(tmp_path):
    store = SolvedStore(tmp_path / "small.sqlite3", max_rows=10)
    for index in range(25):
        store.put(f"key {index}", index)
        store.flush()
    assert store.rows() <= 10
    assert store.get("key 24") == 24 and store.get("key 0") is None


def test_the_solver_tables_are_bounded():
    table = solver.BoundedTable(3)
    for key in range(10):
        table[key] = key
    assert list(table) == [7, 8, 9]
    assert all(function.cache_info().maxsize == solver.TABLE_SIZE
               for function in (solver.options, solver.misere_wins, solver._wins_with_heap, solver.longest))


def test_a_search_past_its_deadline_stops_and_leaves_the_tables_sound():
    with pytest.raises(solver.SolveTimeout), solver.deadline(0.0):
        solver.solve_position(initial_position(9), misere=False)
    assert solver.mover_wins(solver.components_of(initial_position(4)), misere=False)


def _crossing(a, b, c, d) -> bool:
    """Whether segments ab and cd cross at a point inside both (sharing an end is not crossing)."""
    if len({a, b, c, d}) < 4:
        return False

    def side(p, q, r):
        value = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
        return 0 if abs(value) < 1e-12 else (1 if value > 0 else -1)

    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


@settings(max_examples=examples(5), deadline=None)
@given(st.integers(1, 10), st.integers(0, 10**6))
def test_the_drawing_is_one_planar_picture_of_the_game_at_every_step(spots, seed):
    rng = random.Random(seed)
    state = GAME.new_game(config={"spots": spots})
    while True:
        view = state.full_view()
        labelled = state._drawing()
        # The labelled cards are the game's position, line for line.
        assert same_position(drawing.plain(labelled), state.position)
        picture = drawing.picture(labelled)
        segments = [pair for a, mid, b in picture.lines.values() for pair in ((a, mid), (mid, b))]
        assert not any(_crossing(*one, *other) for one, other in itertools.combinations(segments, 2))
        assert len(set(picture.spots.values())) == len(picture.spots)  # no two spots on one point
        svg = view["drawing"]
        assert svg.count('class="region"') == len(state.position)
        assert svg.count('class="spot ') == len(spot_lives(state.position))
        lives = spot_lives(state.position)
        assert svg.count('class="life"') == sum(lives.values())
        if state.moves:
            assert svg.count('class="line last-move"') == 2 and svg.count("last-move\" data-spot") == 1
        if state.is_terminal():
            return
        state = state.apply_action(rng.choice(state.legal_actions()))


def test_ten_spots_are_played_and_the_optimal_bot_answers_within_its_time():
    result = play_match(GAME, players("optimal", "random", seed=7), config={"spots": 10}, seed=7)
    assert 20 <= result.final_state.step <= 29 and all(p.status == "ok" for p in result.players)
    with pytest.raises(ConfigError, match="1 to 10"):
        GAME.new_game(config={"spots": 11})


def test_a_move_is_analysed_alone_and_a_young_position_says_it_is_not_settled(monkeypatch):
    result = play_match(GAME, players("random", "random", seed=3), config={"spots": 10}, seed=3)
    replay_data = json.loads(json.dumps(result.replay))
    last = result.final_state.step - 1
    row = GAME.analyse_move(replay_data, last)
    assert row["step"] == last and row["verdict"] in ("keeps_win", "throws_win", "lost_position")
    forget_what_this_process_solved()  # (earlier tests of this process solve 10-spot positions)
    # The first move answers from the opening book, however short the search...
    assert GAME.analyse_move(replay_data, 0, seconds=0.2)["verdict"] != "unsettled"
    # ...and a position neither the book nor a search of 0.2 s settles says so.
    monkeypatch.setattr(solver, "_book", dict)
    first = GAME.analyse_move(replay_data, 0, seconds=0.2)
    assert first["verdict"] == "unsettled" and "not settled" in first["text"]
    with pytest.raises(IndexError):
        GAME.analyse_move(replay_data, last + 1)


def forget_what_this_process_solved():
    """Empty the solver's tables in this process (earlier tests' results), leaving the store alone."""
    if solver.fast.CORE is not None:
        solver.fast.CORE.lib.sp_reset()
    for remembered in (solver.misere_wins, solver._wins_with_heap):
        remembered.cache_clear()
    solver._nimbers.clear()


@pytest.mark.parametrize("misere", [False, True])
def test_a_move_is_judged_from_its_result_first_and_an_unsettled_one_says_what_is_known(misere):
    """The replay page asks for the last move first, so a move's result (the next move's position) is
    most often solved already: a result lost for the opponent settles the move as keeping a win with no
    search of the larger position before it, and one the opponent wins is said to be so even when there
    is no time left (none here) to settle whether the position before was won."""
    forget_what_this_process_solved()  # the positions before are searched here
    result = play_match(GAME, players("random", "random", seed=5), config={"spots": 10, "misere": misere}, seed=5)
    replay_data = json.loads(json.dumps(result.replay))
    moves = result.final_state.step
    rows = []
    for step in reversed(range(4, moves)):
        if step + 1 < moves:
            GAME.analyse_move(replay_data, step + 1, seconds=60)  # the result, solved
        rows.append(GAME.analyse_move(replay_data, step, seconds=0))
    kept = [row for row in rows if row["verdict"] == "keeps_win"]
    partial = [row for row in rows if "leaves the opponent a win" in row["text"]]
    assert kept and all(row["keeps_win"] for row in kept)
    assert partial and all(row["verdict"] == "unsettled" and row["keeps_win"] is False for row in partial)


def test_a_move_whose_result_is_not_settled_in_time_is_still_judged_by_what_the_store_knows_of_its_position():
    """The store may know a position while no search settles where a move from it led in time (the warm-up
    settles the misere 10-spot start, its join move leads where minutes do not): a lost position is
    judged so, and a won one is said to have been won."""
    result = play_match(GAME, players("random", "random", seed=5), config={"spots": 10}, seed=5)
    replay_data = json.loads(json.dumps(result.replay))
    rows = []
    for step in range(5, 10):
        forget_what_this_process_solved()
        before = parse_position(actions(replay_data)[step - 1]["position"])  # the position move `step` was made in
        won = solver.mover_wins(solver.components_of(before), misere=False)  # into the store
        forget_what_this_process_solved()
        rows.append((won, GAME.analyse_move(replay_data, step, seconds=0)))
    assert {won for won, _ in rows} == {True, False}
    for won, row in rows:
        if not won:
            assert row["verdict"] == "lost_position"
        elif row["verdict"] == "unsettled":
            assert row["won_before"] and "the position was won" in row["text"]
