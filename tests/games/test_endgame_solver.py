"""The End Game solver against the seed's example and against exhaustive game-tree search."""

import functools
import json

import pytest
from hypothesis import given, settings, strategies as st

from games.endgame import solver
from quick_tier import examples

boards = st.lists(st.integers(min_value=-50, max_value=50), min_size=1, max_size=12)


def exhaustive(board):
    """Plain minimax over the whole game tree: (mover's points, set of optimal first moves)."""

    @functools.lru_cache(maxsize=None)
    def best(left, right):
        if left > right:
            return 0
        remaining = sum(board[left : right + 1])
        return max(
            board[left] + (remaining - board[left]) - best(left + 1, right),
            board[right] + (remaining - board[right]) - best(left, right - 1),
        )

    n = len(board)
    total = sum(board)
    values = {
        "left": board[0] + (total - board[0]) - best(1, n - 1),
        "right": board[-1] + (total - board[-1]) - best(0, n - 2),
    }
    top = max(values.values())
    return best(0, n - 1), {move for move, value in values.items() if value == top}


def test_seed_example_first_player_8_second_7():
    assert str(solver.solve_value([-1, 3, 9, 4])) == "Solution(first=8, second=7)"  # whole points, as shown
    table = solver.Table([-1, 3, 9, 4])
    assert table.solution() == solver.Solution(8, 7)
    # Taking 4 first lets the second player take 9 and win 8-7, as the seed's first game shows.
    assert table.best_moves(0, 4) == ["left"]


@settings(max_examples=examples(300), deadline=None)
@given(boards)
def test_solver_matches_exhaustive_search(board):
    first, best_moves = exhaustive(board)
    assert solver.solve_value(board) == solver.Solution(first, sum(board) - first)
    table = solver.Table(board)
    assert table.solution().first == first
    assert set(table.best_moves(0, len(board))) == best_moves


@settings(max_examples=examples(100), deadline=None)
@given(boards, st.data())
def test_best_moves_at_every_position_of_a_random_game(board, data):
    table = solver.Table(board)
    start, length = 0, len(board)
    while length:
        sub = board[start : start + length]
        assert set(table.best_moves(start, length)) == exhaustive(sub)[1]
        move = data.draw(st.sampled_from(["left", "right"]))
        start += move == "left"
        length -= 1


@settings(max_examples=examples(100), deadline=None)
@given(boards, st.data())
def test_analysis_charges_exactly_the_non_optimal_moves(board, data):
    moves = [data.draw(st.sampled_from(["left", "right"])) for _ in board]
    rows = solver.analyse_moves(board, moves)
    assert [row["move"] for row in rows] == moves
    for row in rows:
        assert row["points_lost"] >= 0
        assert (row["points_lost"] == 0) == (row["move"] in row["best_moves"])


# The seed's board played badly, analysed by hand. A move's value is what its mover collects from there to
# the end if both play optimally afterwards: the number taken plus what the opponent leaves of the rest.
#   [-1, 3, 9, 4], first to move. "left" (-1): the opponent's best on [3, 9, 4] is 7 (either end, then 4
#   or 3 after the other takes 9), so -1 + (16 - 7) = 8. "right" (4): the opponent's best on [-1, 3, 9] is
#   9 + -1 = 8, so 4 + (11 - 8) = 7. Best 8 (left); right loses 1.
#   [-1, 3, 9], second to move. "right" (9): 9 + (2 - 3) = 8. "left" (-1): the first takes 9 of [3, 9], so
#   -1 + (12 - 9) = 2. Best 8 (right); left loses 6.
#   [3, 9], first to move. "right" (9): 9 + 3 - 3 = 9. "left" (3): 3 + 9 - 9 = 3. Best 9; left loses 6.
#   [9], second to move: either end takes 9; both are best, nothing lost. Final score 4 + 3 = 7 to 8.
SEED_GAME_BADLY_PLAYED = [
    # (seat, move, best value, move value, points lost, best moves)
    (0, "right", 8, 7, 1, ["left"]),
    (1, "left", 8, 2, 6, ["right"]),
    (0, "left", 9, 3, 6, ["right"]),
    (1, "right", 9, 9, 0, ["left", "right"]),
]


def test_analysis_of_a_badly_played_seed_game_by_hand():
    rows = solver.analyse_moves([-1, 3, 9, 4], [row[1] for row in SEED_GAME_BADLY_PLAYED])
    assert [(r["seat"], r["move"], r["best_value"], r["move_value"], r["points_lost"], r["best_moves"])
            for r in rows] == SEED_GAME_BADLY_PLAYED
    # Moves read from a replay file (strings made at run time, not the program's own constants) alike.
    assert solver.analyse_moves([-1, 3, 9, 4], json.loads(json.dumps([row[1] for row in SEED_GAME_BADLY_PLAYED]))) == rows
    # The replay shows each move's analysis in words.
    assert rows[1]["text"] == "best 8, this move 2, lost 6"


def test_a_board_where_every_choice_is_bad_by_hand():
    # [-5, 1, -5]: either end is -5, then the opponent takes 1 and leaves the other -5: -10 both ways.
    rows = solver.analyse_moves([-5, 1, -5], ["left", "right", "left"])
    assert [(r["best_value"], r["move_value"], r["points_lost"], r["best_moves"]) for r in rows] == [
        (-10, -10, 0, ["left", "right"]),
        (1, -5, 6, ["left"]),   # [1, -5]: taking 1 leaves the opponent -5; taking -5 gives it 1
        (1, 1, 0, ["left", "right"]),
    ]


def test_taking_the_larger_end_is_not_always_best_by_hand():
    # [5, 3, 7, 10]: "left" (5) lets the opponent take 10 then 3 of [3, 7] (13), so 5 + 20 - 13 = 12;
    # "right" (10) leaves [5, 3, 7], where the opponent's best is 7 then 3 (10), so 10 + 15 - 10 = 15.
    # Final score 15 to 10 of the total 25.
    assert solver.solve_value([5, 3, 7, 10]) == solver.Solution(15, 10)
    assert solver.solve_value([5, 3, 7, 10]).margin == 5  # the first player wins by five points
    assert solver.Table([5, 3, 7, 10]).best_moves(0, 4) == ["right"]


def test_optimal_game_loses_no_points_and_reaches_the_solved_scores():
    board = [5, -3, 12, 7, 7, 1, -9, 30]
    table = solver.Table(board)
    start, length, moves, points = 0, len(board), [], [0, 0]
    while length:
        move = table.best_moves(start, length)[0]
        points[len(moves) % 2] += board[start] if move == "left" else board[start + length - 1]
        moves.append(move)
        start += move == "left"
        length -= 1
    assert all(row["points_lost"] == 0 for row in solver.analyse_moves(board, moves))
    assert tuple(points) == (table.solution().first, table.solution().second)


def test_empty_and_single_boards():
    assert solver.solve_value([]) == solver.Solution(0, 0)
    assert solver.solve_value([-4]) == solver.Solution(-4, 0)
    assert solver.solve_value([-4]).margin == -4  # the first player must take it and finishes behind
    # Once every number is taken there is no move left, best or not.
    assert solver.Table([]).best_moves(0, 0) == [] and solver.Table([7, 2]).best_moves(1, 0) == []


@pytest.mark.parametrize("move", ["up", "centre", "Left"])
def test_a_move_that_is_neither_end_is_refused(move):
    with pytest.raises(ValueError, match="unknown move"):
        solver.analyse_moves([-1, 3, 9, 4], ["left", move])


def test_a_board_that_is_not_a_flat_list_is_refused():
    with pytest.raises(ValueError, match="a board is a flat list of integers"):
        solver.solve_value([[1, 2], [3, 4]])
