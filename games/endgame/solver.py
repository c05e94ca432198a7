"""End Game solver: the seed's dynamic programme over sub-lists, vectorised with NumPy.

For a sub-list a[i..j] let margin(i, j) be the most the player on move can finish ahead of the other
player from there on (their points minus the opponent's, counting only the numbers still on the board):

    margin(i, i) = a[i]
    margin(i, j) = max(a[i] - margin(i+1, j), a[j] - margin(i, j-1))

This is the seed's `loser` table in another form (loser = (sum - margin) / 2). Every length is one vector
step over all sub-lists of that length, so the value-only solve needs O(N) memory and O(N^2) time; the
full table (for optimal moves at any position and for the analysis of a played game) keeps every length.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..contracts import AnalysisRow


class MoveAnalysis(AnalysisRow):
    """End Game's analysis of a move: the points it collects to the end against the best move's."""

    move: str
    best_value: int
    move_value: int
    best_moves: list[str]

MOVES = ("left", "right")


def _as_array(board) -> np.ndarray:
    array = np.asarray(board, dtype=np.int64)
    if array.ndim != 1:
        raise ValueError("a board is a flat list of integers")
    return array


def margins_by_length(board):
    """Yield, for length 1, 2, ..., N, the margins of every sub-list of that length (index = its start)."""
    a = _as_array(board)
    margins = a.copy()
    yield margins
    for length in range(2, len(a) + 1):
        count = len(a) - length + 1
        take_left = a[:count] - margins[1 : count + 1]
        take_right = a[length - 1 :] - margins[:count]
        margins = np.maximum(take_left, take_right)
        yield margins


@dataclasses.dataclass(frozen=True)
class Solution:
    first: int
    second: int

    @property
    def margin(self) -> int:
        return self.first - self.second


def solve_value(board) -> Solution:
    """Optimal final scores of the player moving first and the other one, in O(N) memory."""
    if len(board) == 0:
        return Solution(0, 0)
    for margins in margins_by_length(board):
        pass
    total = int(np.sum(_as_array(board)))
    margin = int(margins[0])
    return Solution((total + margin) // 2, (total - margin) // 2)


class Table:
    """The full DP table of a board: optimal play from every sub-list, O(N^2) memory."""

    def __init__(self, board):
        self.board = [int(x) for x in board]
        self._margins = list(margins_by_length(self.board)) if self.board else []
        self._prefix = np.concatenate(([0], np.cumsum(np.asarray(self.board, dtype=np.int64))))

    def margin(self, start: int, length: int) -> int:
        """Best margin for the player on move over board[start : start + length]."""
        if length == 0:
            return 0
        return int(self._margins[length - 1][start])

    def total(self, start: int, length: int) -> int:
        return int(self._prefix[start + length] - self._prefix[start])

    def best_points(self, start: int, length: int) -> int:
        """Points the player on move collects from here under optimal play by both."""
        return (self.total(start, length) + self.margin(start, length)) // 2

    def move_points(self, start: int, length: int, move: str) -> int:
        """Points the player on move collects from here by playing `move`, then optimal play by both."""
        if move == "left":
            taken, rest_start = self.board[start], start + 1
        elif move == "right":
            taken, rest_start = self.board[start + length - 1], start
        else:
            raise ValueError(f"unknown move {move!r}")
        # After the move the opponent is on move over the rest and collects its best points there.
        rest_total = self.total(rest_start, length - 1)
        return taken + rest_total - self.best_points(rest_start, length - 1)

    def best_moves(self, start: int, length: int) -> list[str]:
        """Every move that keeps optimal value (both when they are equal)."""
        if length == 0:
            return []
        values = {move: self.move_points(start, length, move) for move in MOVES}
        best = max(values.values())
        return [move for move in MOVES if values[move] == best]

    def solution(self) -> Solution:
        n = len(self.board)
        first = self.best_points(0, n)
        return Solution(first, self.total(0, n) - first)


def analyse_moves(board, moves: list[str]) -> list[MoveAnalysis]:
    """For each move of a played game: the best value available, the value of the move played, the cost.

    Values are the points the mover collects from that position to the end under optimal play after it.
    """
    table = Table(board)
    start, length = 0, len(board)
    rows: list[MoveAnalysis] = []
    for index, move in enumerate(moves):
        best = table.best_points(start, length)
        played = table.move_points(start, length, move)
        rows.append(
            {
                "step": index,
                "seat": index % 2,
                "move": move,
                "best_value": best,
                "move_value": played,
                "points_lost": best - played,
                "verdict": None,
                "best_moves": table.best_moves(start, length),
                "text": f"best {best}, this move {played}, lost {best - played}",
            }
        )
        if move == "left":
            start += 1
        length -= 1
    return rows
