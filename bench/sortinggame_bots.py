"""SortingGame built-in bots against each other: win rates over many seeded matches (no assertions).

    python bench/sortinggame_bots.py [--games 200]

Seats rotate so that every bot plays every seat equally often; a shared first place counts as a
fraction of a win.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path


from games import get_game
from games.bots import builtin_player
from games.referee import InProcessPlayer, play_match

ROOT = Path(__file__).resolve().parents[1]

LINEUPS = [
    ["shrewd", "random"],
    ["shrewd", "honest"],
    ["honest", "random"],
    ["shrewd", "honest", "random"],
    ["shrewd", "honest", "honest", "honest"],
    ["shrewd", "random", "random", "random"],
    ["shrewd", "honest", "random", "honest", "random", "honest"],
    ["shrewd", "example"],
    ["shrewd", "example", "honest"],
]


def player(name: str, rng_seed: int):
    """A built-in bot, or `example`: the documented example bot, which questions every invalid card."""
    if name != "example":
        return builtin_player(get_game("sortinggame"), name, rng_seed=rng_seed)
    spec = importlib.util.spec_from_file_location("sortinggame_example", ROOT / "docs/bots/examples/sortinggame_example.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return InProcessPlayer(name, module.Bot())


def win_shares(lineup: list[str], games: int, robbery: bool) -> dict[str, float]:
    """Each bot's share of the wins over `games` matches, seats rotated every match."""
    game = get_game("sortinggame")
    wins = {name: 0.0 for name in lineup}
    for seed in range(games):
        shift = seed % len(lineup)
        names = lineup[shift:] + lineup[:shift]
        players = [player(name, seed * 10 + seat) for seat, name in enumerate(names)]
        result = play_match(game, players, config={"robbery": robbery}, seed=seed)
        for seat in result.winners:
            wins[names[seat]] += 1 / len(result.winners)
    return {name: wins[name] / games for name in wins}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    for robbery in (False, True):
        for lineup in LINEUPS:
            began = time.perf_counter()
            shares = win_shares(lineup, args.games, robbery)
            # A bot entered several times shares its wins: report per copy, to compare with a fair 1/seats.
            line = ", ".join(f"{name} {share / lineup.count(name):.0%}" + (f" (each of {lineup.count(name)})" if lineup.count(name) > 1 else "")
                             for name, share in shares.items())
            print(f"robbery={'on ' if robbery else 'off'} {len(lineup)} seats [{' '.join(lineup)}]: {line}; "
                  f"fair share {1 / len(lineup):.0%}; {time.perf_counter() - began:.1f}s")


if __name__ == "__main__":
    main()
