"""Crazy-KING built-in bots against each other: win rates over many seeded matches (figures, no assertions).

    python bench/crazyking_bots.py [--games N] [--players 2 3 4 5] [--target 500]

For each table size, each bot plays N matches in a rotating seat against opponents drawn (seeded) from
the other built-ins; a win is a first place (shared first places count as wins). The fair share of wins
at a table of n is 1/n.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from games.crazyking import GAME
from games.referee import InProcessPlayer, play_match


def seat_bots(hero: str, opponents: list[str], players: int, match: int) -> list[str]:
    """The bot names for one match: the hero in a rotating seat, opponents drawn from `opponents`."""
    chooser = random.Random(f"{hero}/{players}/{match}")
    names = [chooser.choice(opponents) for _ in range(players - 1)]
    names.insert(match % players, hero)
    return names


def win_rate(hero: str, opponents: list[str], players: int, games: int, config: dict) -> float:
    """The share of `games` seeded matches in which `hero` places first."""
    bots = GAME.builtin_bots()
    wins = 0
    for match in range(games):
        names = seat_bots(hero, opponents, players, match)
        seated = [InProcessPlayer(name, bots[name](), rng_seed=match * 8 + seat) for seat, name in enumerate(names)]
        result = play_match(GAME, seated, config=config, seed=match)
        hero_seat = match % players
        wins += result.players[hero_seat].placing == 1
    return wins / games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="matches per bot and table size")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--target", type=int, default=500, help="the target score")
    args = parser.parse_args(argv)
    names = list(GAME.builtin_bots())
    config = {"target_score": args.target}
    began = time.perf_counter()
    print(f"Crazy-KING, {args.games} seeded matches per cell, target {args.target}: share of first places")
    print(f"{'bot':<11} {'opponents':<22}" + "".join(f"{f'{n} players':>11}" for n in args.players))
    for hero in names:
        others = [name for name in names if name != hero]
        for opponents in [[other] for other in others] + [others]:
            rates = [win_rate(hero, opponents, n, args.games, config) for n in args.players]
            print(f"{hero:<11} {' or '.join(opponents):<22}" + "".join(f"{rate:>11.1%}" for rate in rates))
    print("fair share      " + " " * 17 + "".join(f"{1 / n:>11.1%}" for n in args.players))
    print(f"({time.perf_counter() - began:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
