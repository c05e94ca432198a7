"""The End Game solver against the seed's example and against exhaustive game-tree search."""

import functools

from hypothesis import given, settings, strategies as st

from games.endgame import solver

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
    assert solver.solve_value([-1, 3, 9, 4]) == solver.Solution(8, 7)
    table = solver.Table([-1, 3, 9, 4])
    assert table.solution() == solver.Solution(8, 7)
    # Taking 4 first lets the second player take 9 and win 8-7, as the seed's first game shows.
    assert table.best_moves(0, 4) == ["left"]


@settings(max_examples=300, deadline=None)
@given(boards)
def test_solver_matches_exhaustive_search(board):
    first, best_moves = exhaustive(board)
    assert solver.solve_value(board) == solver.Solution(first, sum(board) - first)
    table = solver.Table(board)
    assert table.solution().first == first
    assert set(table.best_moves(0, len(board))) == best_moves


@settings(max_examples=100, deadline=None)
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


@settings(max_examples=100, deadline=None)
@given(boards, st.data())
def test_analysis_charges_exactly_the_non_optimal_moves(board, data):
    moves = [data.draw(st.sampled_from(["left", "right"])) for _ in board]
    rows = solver.analyse_moves(board, moves)
    assert [row["move"] for row in rows] == moves
    for row in rows:
        assert row["points_lost"] == row["best_value"] - row["move_value"] >= 0
        assert (row["points_lost"] == 0) == (row["move"] in row["best_moves"])


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
