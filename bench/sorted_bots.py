"""Sorted! built-in bots: the team score of each bot playing all four seats over seeded deals (lower is better).

Run: python bench/sorted_bots.py [DEALS]   (prints figures; asserts nothing)
"""

from __future__ import annotations

import statistics
import sys
import time

from games import get_game
from games.bots import builtin_player
from games.referee import play_match

GAME = get_game("sorted")


def main():
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    penalty = GAME.default_config()["max_turns"]
    print(f"{deals} seeded deals (seeds 0..{deals - 1}), one bot in all four seats; a lost game scores {penalty}")
    print(f"{'bot':<10} {'average score':>13} {'won':>9} {'average when won':>17} {'seconds':>8}")
    for name in GAME.builtin_bots():
        began = time.perf_counter()
        scores, won = [], []
        for seed in range(deals):
            players = [builtin_player(GAME, name, rng_seed=seed * 4 + seat) for seat in range(4)]
            result = play_match(GAME, players, seed=seed)
            scores.append(result.players[0].score)
            if result.winners:
                won.append(result.players[0].score)
        when_won = f"{statistics.mean(won):.2f}" if won else "-"
        print(f"{name:<10} {statistics.mean(scores):>13.2f} {len(won):>5}/{deals:<3} {when_won:>17} "
              f"{time.perf_counter() - began:>8.1f}")


if __name__ == "__main__":
    main()
