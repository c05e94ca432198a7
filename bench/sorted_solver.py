"""Sorted! solver timings on this machine: exact minimum turns of 1,000 seeded random deals, then of the
hardest deals known (the 12-turn ones, and the slowest that a local search for slow deals found).

Run: python bench/sorted_solver.py [DEALS]   (prints figures; asserts nothing)
Times are CPU seconds of this process (wall time on a busy machine says more about the other processes).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections import Counter


from games.sorted_game import solver

HARDEST = [
    "2341/2341/2341/2341", "4123/4123/4123/4123",  # four 4-cycles: 12 turns, the most any deal needs
    # The slowest deals a hill climb over single swaps found (maximising solve time from random deals).
    "3113/2143/2442/2143", "2142/1341/1342/3342", "4332/4342/3112/1142", "4442/3111/2123/2343",
]


def solve(cards):
    """Minimum turns with seat 0 first, by a fresh solver (nothing carried over), and the CPU seconds."""
    began = time.process_time()
    needed = solver.Solver().min_turns(cards, 0)
    return needed, time.process_time() - began


def main():
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = random.Random(1)
    solve(solver.SORTED[::-1])  # warm the cycle-split caches once, as a long-lived worker would be
    times, turns, slowest = [], Counter(), (0.0, "")
    for _ in range(deals):
        cards = list(solver.SORTED)
        rng.shuffle(cards)
        needed, spent = solve(cards)
        times.append(spent)
        turns[needed] += 1
        slowest = max(slowest, (spent, solver.format_deal(cards)))
    print(f"{deals} seeded random deals, seat 0 first, a fresh solver each (CPU time)")
    print(f"  per deal: median {statistics.median(times) * 1000:.2f} ms, mean {statistics.mean(times) * 1000:.2f} ms, "
          f"max {slowest[0] * 1000:.1f} ms ({slowest[1]})")
    print("  minimum turns: " + ", ".join(f"{k}: {turns[k]}" for k in sorted(turns)))
    print("hardest deals known:")
    for text in HARDEST:
        needed, spent = solve(solver.parse_deal(text))
        print(f"  {text}: {needed} turns, {spent * 1000:.1f} ms")


if __name__ == "__main__":
    main()
