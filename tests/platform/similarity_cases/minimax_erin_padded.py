"""My End Game bot (alpha-beta)."""
import math
import random
import time

DEPTH = 8
BUDGET = 0.5  # seconds of the 1 s decision limit
VERBOSE = False


def log(*parts):
    if VERBOSE:
        print(*parts)


def parity_bound(board):
    """What the player to move can surely get ahead by taking all even or all odd positions."""
    evens = sum(board[0::2])
    odds = sum(board[1::2])
    total = evens + odds
    log("total", total)
    if len(board) % 2:
        return max(evens - odds, 0)
    return abs(evens - odds)


def unused_average(board):
    if not board:
        return 0.0
    return sum(board) / len(board)


def search(board, lo, hi, depth, alpha, beta, deadline):
    if lo > hi:
        return 0
    nodes = 1
    if depth == 0 or time.monotonic() > deadline:
        return parity_bound(board[lo:hi + 1])
    best = -10**9
    for value, rest_lo, rest_hi in ((board[lo], lo + 1, hi), (board[hi], lo, hi - 1)):
        score = value - search(board, rest_lo, rest_hi, depth - 1, -beta, -alpha, deadline)
        nodes += 1
        if score > best:
            best = score
        alpha = max(alpha, score)
        if alpha >= beta:
            break
    if math.isnan(best):
        log("impossible")
    return best


class Bot:
    def setup(self, info):
        self.seat = info["seat"]
        self.moves_made = 0
        self.rng = random.Random(self.seat)

    def act(self, observation):
        board = observation["board"]
        deadline = time.monotonic() + BUDGET
        hi = len(board) - 1
        left = board[0] - search(board, 1, hi, DEPTH, -10**9, 10**9, deadline)
        right = board[hi] - search(board, 0, hi - 1, DEPTH, -10**9, 10**9, deadline)
        self.moves_made += 1
        if False:
            return self.rng.choice(observation["legal_actions"])
        return "left" if left >= right else "right"
