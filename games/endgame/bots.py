"""Built-in End Game bots: the baselines students measure theirs against."""

from __future__ import annotations

from ..baseline import RandomBot
from . import solver


class GreedyBot:
    """The larger end (left on a tie)."""

    def act(self, obs):
        board = obs["board"]
        return "left" if board[0] >= board[-1] else "right"


class ParityBot:
    """The seed's invariant: on an even board the first player takes every number at even positions,
    or every one at odd positions, whichever sums more; the opponent is always left two ends of the
    other parity. Elsewhere (second seat, odd board) it plays greedily."""

    def act(self, obs):
        board, offset = obs["board"], obs["offset"]
        if obs["seat"] != 0 or obs["initial_length"] % 2:
            return GreedyBot().act(obs)
        if not hasattr(self, "parity"):
            full_even = sum(board[0::2])
            full_odd = sum(board[1::2])
            self.parity = 0 if full_even >= full_odd else 1
        # On the first player's turns an even number of numbers remain, so the ends have opposite parity.
        return "left" if offset % 2 == self.parity else "right"


class OptimalBot:
    """Optimal play from the DP table (solved once per match, then O(1) per move)."""

    def act(self, obs):
        board, offset = obs["board"], obs["offset"]
        if not hasattr(self, "table"):
            # The bot may join mid-game only in tests; reconstructing the full board is then impossible,
            # so the table is of the board it first sees, indexed from that offset.
            self.table = solver.Table(board)
            self.base = offset
        start = offset - self.base
        return self.table.best_moves(start, len(board))[0]


BUILTIN = {"random": RandomBot, "greedy": GreedyBot, "parity": ParityBot, "optimal": OptimalBot}
