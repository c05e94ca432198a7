"""End Game solver timings on this machine: the vectorised DP against a plain-Python DP of the same recurrence.

Run: python bench/endgame_solver.py   (prints figures; asserts nothing)
"""

from __future__ import annotations

import random
import time

from games.endgame import solver


def python_dp(board):
    """The same O(N) memory recurrence, one sub-list at a time in plain Python: the floor to beat."""
    margins = list(board)
    for length in range(2, len(board) + 1):
        margins = [max(board[i] - margins[i + 1], board[i + length - 1] - margins[i])
                   for i in range(len(board) - length + 1)]
    return margins[0]


def best_of(repeats, function, *args):
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - began)
    return min(times)


def main():
    rng = random.Random(1)
    print(f"{'N':>6} {'numpy value solve':>18} {'python DP':>11} {'speed-up':>9} {'full table':>11}")
    for n in (1000, 2000, 5000, 10000):
        board = [rng.randint(-1000, 1000) for _ in range(n)]
        vectorised = best_of(3, solver.solve_value, board)
        plain = best_of(1, python_dp, board) if n <= 2000 else None
        table = best_of(1, solver.Table, board) if n <= 5000 else None
        print(f"{n:>6} {vectorised * 1000:>15.1f} ms "
              f"{'' if plain is None else f'{plain * 1000:>8.0f} ms':>11} "
              f"{'' if plain is None else f'{plain / vectorised:>8.1f}x':>9} "
              f"{'' if table is None else f'{table * 1000:>8.1f} ms':>11}")


if __name__ == "__main__":
    main()
