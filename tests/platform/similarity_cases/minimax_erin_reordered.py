"""Alpha-beta End Game player."""
import time


class Bot:
    def act(self, observation):
        row = observation["board"]
        limit = time.monotonic() + ALLOWANCE
        end = len(row) - 1
        left = row[0] - alphabeta(row, 1, end, PLIES, -10**9, 10**9, limit)
        right = row[end] - alphabeta(row, 0, end - 1, PLIES, -10**9, 10**9, limit)
        self.count += 1
        return "left" if left >= right else "right"

    def setup(self, info):
        self.seat = info["seat"]
        self.count = 0


def alphabeta(row, start, end, plies, alpha, beta, limit):
    if start > end:
        return 0
    if plies == 0 or time.monotonic() > limit:
        return evaluate(row[start:end + 1])
    best = -10**9
    for value, next_start, next_end in ((row[start], start + 1, end), (row[end], start, end - 1)):
        score = value - alphabeta(row, next_start, next_end, plies - 1, -beta, -alpha, limit)
        if score > best:
            best = score
        alpha = max(alpha, score)
        if alpha >= beta:
            break
    return best


ALLOWANCE = 0.5
PLIES = 8


def evaluate(row):
    evens = sum(row[0::2])
    odds = sum(row[1::2])
    if len(row) % 2:
        return max(evens - odds, 0)
    return abs(evens - odds)
