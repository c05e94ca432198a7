# Carol's bot: memoised recursion over the remaining interval.
from functools import lru_cache


def best_difference(board):
    @lru_cache(maxsize=None)
    def solve(i, j):
        """Most the player to move can get ahead of the other on board[i..j]."""
        if i > j:
            return 0
        return max(board[i] - solve(i + 1, j), board[j] - solve(i, j - 1))

    return solve


def act(observation):
    board = tuple(observation["board"])
    n = len(board)
    if n == 1:
        return "left"
    solve = best_difference(board)
    take_left = board[0] - solve(1, n - 1)
    take_right = board[-1] - solve(0, n - 2)
    return "left" if take_left >= take_right else "right"
