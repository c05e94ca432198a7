"""The Sprouts solver's compiled core (core.c) against the pure Python reference (solver.py), Glop's
region rule, and both solvers against the published outcomes."""

import functools
import os
import random
import re
import subprocess
import sys
import threading

import pytest
from hypothesis import given, settings, strategies as st

from games.sprouts import fast, solver
from games.sprouts.notation import initial_position, named_moves
from games.sprouts.store import SolvedStore
from required import require
from quick_tier import examples

CORE_BUILT = "the Sprouts compiled core (scripts/setup builds it: python games/sprouts/build_core.py)"


@pytest.fixture
def compiled_core():
    require(fast.CORE is not None, CORE_BUILT)


compiled = pytest.mark.usefixtures("compiled_core")


@pytest.fixture(autouse=True)
def own_store(tmp_path, monkeypatch):
    monkeypatch.setattr(solver, "STORE", SolvedStore(tmp_path / "solved.sqlite3"))


@pytest.fixture(params=["compiled", "pure"])
def core(request, monkeypatch):
    """Each test once with the compiled core (when built) and once in pure Python."""
    if request.param == "compiled":
        require(fast.CORE is not None, CORE_BUILT)
    if request.param == "pure":
        monkeypatch.setattr(fast, "CORE", None)
    return request.param


def random_positions(spots, seed, every=2):
    rng, position, positions = random.Random(seed), initial_position(spots), []
    while True:
        positions.append(position)
        moves = named_moves(position)
        if not moves:
            return positions[::every]
        position = rng.choice(moves)[1].result


def pure_game(game):
    """The pure solver's canonical form of a game the core keyed."""
    return solver._normalise(*fast.regions_of(game))


@compiled
@settings(max_examples=examples(25), deadline=None)
@given(st.integers(2, 7), st.integers(0, 10**6))
def test_the_core_lists_exactly_the_options_the_pure_solver_lists(spots, seed):
    for position in random_positions(spots, seed, every=3):
        for component in solver._normalise([list(row) for row in position], solver.spot_lives(position)):
            [key] = fast.normalise(component)
            assert pure_game((key,)) == (component,)  # the key describes the same component
            assert {pure_game(option) for option in fast.options(key)} == set(solver.options(component))


@compiled
def test_the_core_keys_a_component_and_its_mirror_image_alike():
    loop_round_one = dict(named_moves(initial_position(4)))["1(5)1[2]"].result
    [component] = solver._normalise([list(row) for row in loop_round_one], solver.spot_lives(loop_round_one))
    mirrored = tuple(tuple(tuple(reversed(boundary)) for boundary in region) for region in component)
    assert fast.normalise(component) == fast.normalise(mirrored)


def test_in_a_region_of_three_lives_or_fewer_only_its_spots_matter():
    # Glop's rule: spot 1 (2 lives) and spot 2 (1 life, met in another region too) on one boundary or on
    # two give the same component; so do the two orders of a boundary's spots.
    lives = {1: 2, 2: 1, 3: 3, 4: 3}
    other = [(2, 3), (4,)]
    one_boundary = solver._normalise([[(1, 2)], other], lives)
    two_boundaries = solver._normalise([[(1,), (2,)], other], lives)
    assert one_boundary == two_boundaries == solver._normalise([[(2, 1)], other], lives)
    # With 4 lives the arrangement is kept (a loop from 1 could then leave 2 inside or outside).
    wide = {**lives, 1: 3}
    assert solver._normalise([[(1, 2)], other], wide) != solver._normalise([[(1,), (2,)], other], wide)


# Normal play: the first player wins exactly when N mod 6 is 3, 4 or 5 (Applegate, Jacobson and Sleator
# 1991; Lemoine and Viennot to 44). Larger N are in bench/sprouts_solver.py.
# The pure solver takes seconds to minutes from 6 spots on: it is compared up to 5, the bench measures more.
@pytest.mark.parametrize("core, spots", [("compiled", n) for n in range(1, 10)] + [("pure", n) for n in range(1, 6)],
                         indirect=["core"])
def test_normal_outcomes_are_the_published_ones_with_either_core(core, spots):
    # 9 spots, a first-player win, is solved in about a second because the first moves are tried in
    # turns (solver._widened): tried in order to the end, the first one alone took over 5 minutes.
    wins = solver.mover_wins(solver.components_of(initial_position(spots)), misere=False)
    assert wins == (spots % 6 in (3, 4, 5))


# Misere play: OEIS A164950, the first player wins for 1, 5, 6, 10, 11, 12 ... spots.
MISERE_FIRST_WINS = {1: True, 2: False, 3: False, 4: False, 5: True, 6: True, 7: False}


@pytest.mark.parametrize("core, spots", [("compiled", n) for n in range(1, 8)] + [("pure", n) for n in range(1, 6)],
                         indirect=["core"])
def test_misere_outcomes_are_oeis_a164950_with_either_core(core, spots):
    first_wins = MISERE_FIRST_WINS[spots]
    assert solver.mover_wins(solver.components_of(initial_position(spots)), misere=True) == first_wins


@compiled
@pytest.mark.parametrize("misere, spots", [(False, 7), (True, 6), (True, 7)])
def test_the_core_solves_right_in_tables_far_too_small_for_its_search(misere, spots):
    """The core's tables keep two generations (core.c): past its limit a table drops what the search has
    not met for a generation, and keeps what it meets again. With limits a hundredth of the positions the
    search meets, entries are dropped and brought back thousands of times; the outcome stays the
    published one and the tables stay within their limits."""
    game = solver.components_of(initial_position(spots))
    fast.CORE.lib.sp_reset()
    fast.CORE.lib.sp_table_limits(2000, 200)
    try:
        wins = fast.misere(game, 0.0) if misere else fast.normal(game, 0, 0.0)
        listed = fast.CORE.lib.sp_listed()
    finally:
        fast.CORE.lib.sp_reset()
        fast.CORE.lib.sp_table_limits(0, 0)

    assert wins == (MISERE_FIRST_WINS[spots] if misere else spots % 6 in (3, 4, 5))
    assert 0 < listed <= 200


@compiled
def test_a_position_too_large_for_the_core_is_solved_in_pure_python():
    # 40 spots: more than the core's tables can hold over a whole game, so the pure keys are used.
    game = solver.components_of(initial_position(40))
    assert all(isinstance(component, tuple) for component in game)
    assert all(isinstance(component, bytes) for component in solver.components_of(initial_position(11)))


@compiled
def test_threads_solving_at_once_share_the_core_safely():
    # The web server analyses in threads; the core's tables and buffers are C globals.
    results = {}

    def solve(spots, misere):
        results[spots, misere] = solver.mover_wins(solver.components_of(initial_position(spots)), misere)

    threads = [threading.Thread(target=solve, args=(spots, misere)) for spots in (4, 5, 6) for misere in (False, True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    misere_first = {4: False, 5: True, 6: True}
    assert results == {(spots, misere): misere_first[spots] if misere else spots % 6 in (3, 4, 5)
                       for spots in (4, 5, 6) for misere in (False, True)}


AFTER_ONE_MOVE = """
from games.sprouts import solver
from games.sprouts.notation import initial_position, named_moves
start = initial_position(8)
if {solve_start}:
    solver.mover_wins(solver.components_of(start), misere=False)
else:
    # every first move's result; the start is lost, so a solve of it searched every one of them
    wins = [solver.mover_wins(solver.components_of(move.result), misere=False) for _, move in named_moves(start)]
    print(all(wins), solver.expanded())
"""


@compiled
def test_positions_searched_inside_an_earlier_solve_answer_at_once_in_a_new_process(tmp_path):
    # 8 spots: the first moves leave 23 lives, enough to be kept (solver.CORE_STORE_MIN_LIVES).
    def run(solve_start, store):
        env = {**os.environ, "ARENA_SPROUTS_STORE": str(tmp_path / store)}
        code = AFTER_ONE_MOVE.format(solve_start=solve_start)
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                              check=True).stdout.split()

    cold = run(False, "cold.sqlite3")
    run(True, "shared.sqlite3")  # solves the start only, not the positions asked next
    warm = run(False, "shared.sqlite3")
    assert cold[0] == warm[0] == "True"
    assert int(cold[1]) > 1000 and int(warm[1]) < 10


@compiled
def test_a_won_start_is_answered_with_the_moves_not_settled_in_time_listed_apart():
    # 9 spots: the start is won and its winning moves come out of its own search; refuting every losing
    # first move would take minutes, so with a time per move those are listed as not settled.
    solved = solver.solve_position(initial_position(9), misere=False, seconds_per_move=0.0)
    assert solved["winner"] == "first" and solved["winning_moves"] and solved["unsettled_moves"]
    assert not set(solved["winning_moves"]) & set(solved["unsettled_moves"])
    assert solver.solve_position(initial_position(8), misere=False)["unsettled_moves"] == []


@compiled
@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("spots", [3, 4, 5, 6])
def test_the_search_in_turns_settles_what_the_plain_search_settles(spots, misere):
    search = fast.misere if misere else fast.normal
    for position in random_positions(spots, seed=spots, every=2):
        game = solver.components_of(position)
        args = () if misere else (0,)
        plain = search(game, *args, 0.0)
        fast.CORE.lib.sp_reset()  # the turns search from empty tables too
        assert solver._widened((search, game, *args), solver.WIDENED_DEPTH, 0.0) == plain


def random_game(rng, depth):
    """An impartial game as the sorted tuple of its options (each a game), at most `depth` moves long."""
    if depth == 0:
        return ()
    return tuple(sorted({random_game(rng, rng.randrange(depth)) for _ in range(rng.randrange(4))}))


@functools.lru_cache(maxsize=None)
def misere_wins_plain(parts):
    """The misere outcome of a sum of games (a sorted tuple of them), searched on the games as they are."""
    moves = [tuple(sorted(parts[:i] + ((option,) if option else ()) + parts[i + 1:]))
             for i, game in enumerate(parts) for option in game]
    return not moves or any(not misere_wins_plain(move) for move in moves)


def form(game):
    """The core's simplified misere form of a game given as options."""
    options = [form(option) for option in game]
    return fast.CORE.lib.sp_form(fast.CORE.ffi.new("int[]", options), len(options))


@compiled
@pytest.mark.parametrize("seed", range(4))
def test_misere_forms_are_simplified_only_where_every_sum_keeps_its_outcome(seed):
    """The rules that simplify a misere form keep the outcome of the game in any company: sums of random
    games, through their forms, against the plain search of the sums."""
    rng = random.Random(seed)
    games = [random_game(rng, 5) for _ in range(40)]
    for _ in range(150):
        parts = rng.sample(games, rng.randrange(1, 4))
        total = 0
        for part in parts:
            total = fast.CORE.lib.sp_form_sum(total, form(part))
        assert fast.CORE.lib.sp_form_wins(total) == misere_wins_plain(tuple(sorted(p for p in parts if p)))


@compiled
def test_misere_forms_know_star_plus_star_is_zero_but_not_that_a_game_of_one_move_to_star_two_is():
    star, star_two = form(((),)), form(((), ((),)))
    assert fast.CORE.lib.sp_form_sum(star, star) == form(()) == form((((),),))
    assert form(((((),), ()),)) != form(())  # {*2} is lost alone, 0 is won
    assert star_two != star and form(((),)) == star


@compiled
@pytest.mark.parametrize("form_lives", [0, fast.MISERE_FORM_LIVES, 12])
@pytest.mark.parametrize("seed", range(3))
def test_misere_forms_of_small_components_keep_every_outcome(form_lives, seed):
    """The core's misere search with small components replaced by their simplified game forms (none, the
    default, and most of the position: their sums and simplifications all tried) agrees with the pure
    Python search of the drawings themselves, position by position through random games."""
    fast.CORE.lib.sp_reset()
    fast.CORE.lib.sp_misere_small(form_lives)
    try:
        for position in random_positions(6, seed, every=1)[3:]:
            game = solver.components_of(position)
            assert fast.misere(game, 0.0) == solver.misere_wins(pure_game(game)), position
    finally:
        fast.CORE.lib.sp_misere_small(fast.MISERE_FORM_LIVES)
        fast.CORE.lib.sp_reset()


@compiled
def test_misere_outcomes_of_games_with_a_small_part_are_kept_under_its_forms_name_for_other_processes():
    """A misere result of a game with a small component (searched as its form) goes to the store under the
    form's name, which is the same in a process that numbered its forms in another order: put back into
    emptied tables, it answers that game without a component of its drawn part listed."""
    # A game of a 9-life component and a 2-life one (whose form, {0}, does not simplify away).
    game = next(game for game in map(solver.components_of, random_positions(5, 13, every=1))
                if len(game) == 2 and sorted(map(fast.lives, game)) == [2, 9])
    small, large = sorted(game, key=fast.lives)
    fast.CORE.lib.sp_reset()
    try:
        fast.restore(b"", fast.lives(large))  # every result of at least the large part's lives goes out
        wins = fast.misere(game, 0.0)
        kept = fast.exported()
        fast.CORE.lib.sp_reset()
        fast.misere((small,), 0.0)  # the small part's forms first: numbered otherwise than in the search
        listed_for_the_small_part = fast.CORE.lib.sp_listed()
        for key, value in kept:  # through the store, as another process would have them
            solver.STORE.put(key, value)
        fast.restore(solver.STORE.core_records(), fast.lives(large))
        assert fast.misere(game, 0.0) == wins == solver.misere_wins(pure_game(game))
        assert fast.CORE.lib.sp_listed() == listed_for_the_small_part
    finally:
        fast.CORE.lib.sp_reset()


@compiled
@pytest.mark.parametrize("misere", [False, True])
def test_an_outcome_the_search_in_turns_settles_is_kept_as_the_cores_own(misere, monkeypatch):
    """The search in turns (solver.py) decides a position from its options' outcomes itself; the core is
    told, so that its tables (for a search with that position among its options) and the store have it."""
    fast.CORE.lib.sp_reset()
    solver.misere_wins.cache_clear()  # (an earlier test of this process solved the 7-spot start: searched again)
    monkeypatch.setattr(solver, "_restored_from", solver.STORE)
    fast.restore(b"", 1)  # every result goes to the store, whatever its lives
    try:
        game = solver.components_of(initial_position(7))  # well over a turn's 0.02 s, in either play
        with solver.deadline(600):
            wins = solver.mover_wins(game, misere)
        key = game[0] + (b"\xff" if misere else b"\x00")  # the core's key: the game, or the component and heap
        assert (f"core {'m' if misere else 'h'} {key.hex()}", int(wins)) in solver.STORE.items("core ")
    finally:
        fast.CORE.lib.sp_reset()
        fast.restore(b"", solver.CORE_STORE_MIN_LIVES)


@compiled
@pytest.mark.parametrize("misere", [False, True])
def test_each_move_is_judged_by_two_searches_and_the_winning_moves_are_the_ones_that_win(misere):
    position = initial_position(4)
    moves = named_moves(position)
    for name, move in moves:
        row = solver.analyse_move(position, name, 0, misere)
        won = solver.mover_wins(solver.components_of(position), misere)
        loses_after = not solver.mover_wins(solver.components_of(move.result), misere)
        assert row["won_before"] == won and row["keeps_win"] == (won and loses_after)
        assert row["verdict"] == ("keeps_win" if won and loses_after else "throws_win" if won else "lost_position")
        assert row["winning_moves_complete"]
        expected = [other for other, result in moves
                    if won and not solver.mover_wins(solver.components_of(result.result), misere)]
        assert row["winning_moves"] == expected
        if row["verdict"] == "throws_win":
            assert expected[0] in row["text"]


@compiled
def test_warming_fills_the_store_so_a_new_process_answers_the_openings_at_once(tmp_path):
    store = tmp_path / "warmed.sqlite3"
    env = {**os.environ, "ARENA_SPROUTS_STORE": str(store)}
    # The 5-spot openings alone (WARM_SPOTS made small for a test run; the opening book starts at 6 spots),
    # three moves deep.
    warmed = subprocess.run(
        [sys.executable, "-c", "import games.__main__ as m; m.WARM_SPOTS = (5, 5); m.main(['solve', 'sprouts', '--warm', '120'])"],
        capture_output=True, text=True, env=env, check=True).stdout
    positions = sum(len(solver.opening_games(5, depth)) for depth in range(4))
    # (A few reduce to a position of the opening book's 6-spot games: it answers them.)
    counts = re.search(r"(\d+) answered by the opening book, (\d+) solved and 0 not settled", warmed)
    assert counts and int(counts[1]) + int(counts[2]) == 2 * positions, warmed
    # A new process: the first move's analysis answers without a single component's options listed.
    analyse = ("from games.sprouts import solver; from games.sprouts.notation import initial_position, named_moves; "
               "p = initial_position(5); name = named_moves(p)[3][0]; "
               "row = solver.analyse_move(p, name, 0, True); print(row['verdict'], solver.expanded())")
    verdict, expanded = subprocess.run([sys.executable, "-c", analyse], capture_output=True, text=True, env=env,
                                       check=True).stdout.split()
    assert verdict in ("keeps_win", "throws_win", "lost_position") and int(expanded) == 0
