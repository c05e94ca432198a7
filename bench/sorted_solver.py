"""Sorted! solver timings on this machine: exact minimum turns of 1,000 seeded random deals.

Run: python bench/sorted_solver.py [DEALS]   (prints figures; asserts nothing)
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.sorted import solver  # noqa: E402


def main():
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = random.Random(1)
    solver.Solver().min_turns(solver.SORTED[::-1], 0)  # warm the cycle-split cache once, as a worker would
    times, turns, slowest = [], Counter(), (0.0, None)
    for _ in range(deals):
        cards = list(solver.SORTED)
        rng.shuffle(cards)
        began = time.perf_counter()
        needed = solver.Solver().min_turns(cards, 0)  # a fresh solver per deal: nothing carried over
        spent = time.perf_counter() - began
        times.append(spent)
        turns[needed] += 1
        slowest = max(slowest, (spent, solver.format_deal(cards)))
    print(f"{deals} seeded deals, seat 0 first, a fresh solver each")
    print(f"time per deal: median {statistics.median(times) * 1000:.2f} ms, mean {statistics.mean(times) * 1000:.2f} ms, "
          f"max {max(times) * 1000:.1f} ms ({slowest[1]})")
    print("minimum turns: " + ", ".join(f"{k}: {turns[k]}" for k in sorted(turns)))


if __name__ == "__main__":
    main()
