"""The Sprouts opening book (games/sprouts/book.py, openings.txt): that it holds every opening it says it
does, that its outcomes agree with the published ones, with each other and with the search, and that the
analysis of a 10-spot game's first moves answers from it at once on an empty store."""

import os
import subprocess
import sys
import time

import pytest

from games.contracts import UNSETTLED
from games.sprouts import book, fast, solver
from games.sprouts.notation import initial_position, named_moves, parse_position
from games.sprouts.store import SolvedStore
from required import require

# OEIS A164950: 1 when the first player wins misere Sprouts from n spots (n = 1, 2, ...).
MISERE_FIRST_WINS = [1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1]
# The one first move of a 10-spot game that divides nothing: its misere position takes about 24 minutes of
# CPU to solve, so no analysis on request settles it.
JOIN_10 = "11,9,11,10;1;2;3;4;5;6;7;8"


@pytest.fixture(autouse=True)
def empty_store(tmp_path, monkeypatch):
    monkeypatch.setattr(solver, "STORE", SolvedStore(tmp_path / "solved.sqlite3"))
    if fast.CORE is not None:
        fast.CORE.lib.sp_reset()  # nothing another test solved in this process


@pytest.fixture(scope="module")
def openings():
    return book.read()


def test_the_book_holds_each_opening_position_once_in_both_plays(openings):
    keyed = {}
    for opening in openings:
        key = (opening.misere, opening.spots, opening.depth, solver.components_of(parse_position(opening.position)))
        assert key not in keyed, f"{opening} is in the book twice"
        keyed[key] = opening.mover_wins
    expected = {(misere, spots, depth, game) for misere in (False, True) for spots in book.BOOK_SPOTS
                for depth in range(book.BOOK_MOVES + 1) for game in solver.opening_games(spots, depth)}
    assert set(keyed) == expected


def test_the_books_starts_agree_with_the_published_outcomes(openings):
    starts = {(opening.misere, opening.spots): opening.mover_wins for opening in openings if opening.depth == 0}
    assert starts == {**{(False, n): n % 6 in (3, 4, 5) for n in book.BOOK_SPOTS},
                      **{(True, n): bool(MISERE_FIRST_WINS[n - 1]) for n in book.BOOK_SPOTS}}


def test_a_book_position_is_won_exactly_when_one_of_its_moves_leads_to_a_lost_book_position(openings):
    outcomes = {(opening.misere, solver.components_of(parse_position(opening.position))): opening.mover_wins
                for opening in openings}
    for opening in openings:
        if opening.depth < book.BOOK_MOVES:
            children = {solver.components_of(move.result) for _, move in named_moves(parse_position(opening.position))}
            assert opening.mover_wins == any(not outcomes[opening.misere, child] for child in children), opening


def test_the_search_agrees_with_the_book_on_its_positions_of_up_to_7_spots(openings):
    require(fast.CORE is not None, "the Sprouts compiled core (scripts/setup builds it)")
    checked = [opening for opening in openings if opening.spots <= 7]
    assert len(checked) == 2 * sum(len(solver.opening_games(spots, depth)) for spots in (6, 7) for depth in range(3))
    for opening in checked:
        game = solver.components_of(parse_position(opening.position))
        assert solver.mover_wins(game, opening.misere) == opening.mover_wins, opening


def test_a_malformed_book_is_refused_with_the_line_that_is_wrong(tmp_path):
    path = tmp_path / "openings.txt"
    path.write_text("# a comment\nnormal 6 0 1;2;3;4;5;6 first\nmisere 6 zero 1;2;3;4;5;6 first\n")
    with pytest.raises(book.BookError, match="line 3"):
        book.read(path)
    for line in ["normal 6 0 1;2;3;4;5;6", "draughts 6 0 1;2;3;4;5;6 first", "normal 6 0 1;2;3;4;5;6 nobody"]:
        path.write_text(line + "\n")
        with pytest.raises(book.BookError, match="line 1"):
            book.read(path)


def test_the_analysis_of_a_10_spot_misere_game_opened_by_the_join_answers_from_the_book(monkeypatch):
    require(fast.CORE is not None, "the Sprouts compiled core (scripts/setup builds it)")
    start, join = initial_position(10), parse_position(JOIN_10)
    name = next(name for name, move in named_moves(start)
                if solver.components_of(move.result) == solver.components_of(join))
    reply, after = named_moves(join)[0]
    began = time.process_time()
    first = solver.analyse_move(start, name, 0, misere=True, seconds=1.5, result=join)
    second = solver.analyse_move(join, reply, 1, misere=True, seconds=1.5, result=after.result)
    assert first["verdict"] != UNSETTLED and second["verdict"] != UNSETTLED
    assert first["won_before"] is True  # misere 10 spots: a first-player win (A164950)
    if first["verdict"] == "throws_win":
        assert first["winning_moves"], "a thrown win names the winning moves the book knows"
    assert time.process_time() - began < 3.0
    # Without the book, on the same empty store, the join is not settled on request.
    monkeypatch.setattr(solver, "_book", dict)
    fast.CORE.lib.sp_reset()
    assert solver.analyse_move(start, name, 0, misere=True, seconds=1.5, result=join)["verdict"] == UNSETTLED


def test_the_book_command_solves_and_writes_every_opening(tmp_path):
    """`solve sprouts --book`, its spots made small for a test run: every position is printed as it is
    solved and the file it writes reads back with the outcomes the search gives."""
    require(fast.CORE is not None, "the Sprouts compiled core (scripts/setup builds it)")
    path = tmp_path / "openings.txt"
    script = (f"import pathlib, games.__main__ as m, games.sprouts.book as b; b.BOOK_SPOTS = range(3, 6); "
              f"b.BOOK_PATH = pathlib.Path({str(path)!r}); m.main(['solve', 'sprouts', '--book'])")
    env = {**os.environ, "ARENA_SPROUTS_STORE": str(tmp_path / "solved.sqlite3")}
    printed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                             check=True).stdout
    written = book.read(path)
    positions = 2 * sum(len(solver.opening_games(spots, depth)) for spots in range(3, 6) for depth in range(3))
    assert len(written) == positions and f"wrote {path}: {positions} positions" in printed
    assert path.read_text().startswith("# The Sprouts opening book")
    for opening in written:
        game = solver.components_of(parse_position(opening.position))
        assert solver.mover_wins(game, opening.misere) == opening.mover_wins
    assert {(o.misere, o.spots): o.mover_wins for o in written if o.depth == 0} == {
        **{(False, n): n % 6 in (3, 4, 5) for n in range(3, 6)},
        **{(True, n): bool(MISERE_FIRST_WINS[n - 1]) for n in range(3, 6)}}
