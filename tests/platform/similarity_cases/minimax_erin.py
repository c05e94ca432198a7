"""Erin's End Game bot: depth-limited alpha-beta search with a parity heuristic at the horizon."""
import time

DEPTH = 8
BUDGET = 0.5  # seconds of the 1 s decision limit


def parity_bound(board):
    """What the player to move can surely get ahead by taking all even or all odd positions."""
    evens = sum(board[0::2])
    odds = sum(board[1::2])
    if len(board) % 2:
        return max(evens - odds, 0)
    return abs(evens - odds)


def search(board, lo, hi, depth, alpha, beta, deadline):
    if lo > hi:
        return 0
    if depth == 0 or time.monotonic() > deadline:
        return parity_bound(board[lo:hi + 1])
    best = -10**9
    for value, rest_lo, rest_hi in ((board[lo], lo + 1, hi), (board[hi], lo, hi - 1)):
        score = value - search(board, rest_lo, rest_hi, depth - 1, -beta, -alpha, deadline)
        if score > best:
            best = score
        alpha = max(alpha, score)
        if alpha >= beta:
            break
    return best


class Bot:
    def setup(self, info):
        self.seat = info["seat"]
        self.moves_made = 0

    def act(self, observation):
        board = observation["board"]
        deadline = time.monotonic() + BUDGET
        hi = len(board) - 1
        left = board[0] - search(board, 1, hi, DEPTH, -10**9, 10**9, deadline)
        right = board[hi] - search(board, 0, hi - 1, DEPTH, -10**9, 10**9, deadline)
        self.moves_made += 1
        return "left" if left >= right else "right"
