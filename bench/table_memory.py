"""What a bot's memory costs at a person's table: a decision late in a long game, against the first.

    python bench/table_memory.py [--backend docker-warm] [--games crazyking sortinggame] [--repeat 3]

A table keeps no process between a bot's moves: each decision starts the bot afresh (a warm container) and
tells it its seat's earlier observations, in order, before asking it (games.table.Table.bot_move_afresh). So
a decision costs the start, the rebuilding of those observations from the table's facts, and the bot's
answers to them: the more it has played, the more. Here a full game of each card game (its default options,
the game's example bot at seat 0, built-in `random` at the others) is played once, kept as a table, and the
seat-0 decisions at its first, middle and last turns are made afresh again from those facts, each
`--repeat` times (median). Printed for each: how many earlier decisions it was told, the whole decision's
wall time, the part spent rebuilding the observations, and the time the bot was charged for its answers
(`think_time`, catch-up and decision). The sum over a whole game is estimated from the three points.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from games import get_game
from games.bots import make_player
from games.referee import seated
from games.table import Seat, Table

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "bots" / "examples"
EXAMPLE_FILES = {"crazyking": "crazyking_example.py", "sortinggame": "sortinggame_example.py",
                 "endgame": "endgame_example.py", "sorted": "sorted_example.py", "sprouts": "sprouts_example.py"}


def full_game(name: str, seed: int) -> Table:
    """A finished game of `name`: every seat built-in `random` (its moves are what the measured bot is told)."""
    game = get_game(name)
    seats = game.default_players
    players = {seat: make_player(game, "builtin:random", sandbox="none", seed=seed, seat=seat) for seat in range(seats)}
    table = Table.open(game, [Seat(f"random{seat}") for seat in range(seats)], seed=seed)
    for seat, player in players.items():
        table.start_bot(seat, player)
    table.play_bots(players)
    return table


def at_decision(table: Table, seat: int, number: int) -> Table:
    """The table as it was when `seat` was to take its decision `number` (0: its first)."""
    own = [index for index, event in enumerate(table.events) if event["seat"] == seat and "action" in event]
    facts = table.to_json()
    facts["events"] = table.events[:own[number]]
    return Table.from_json(facts)


def one_decision(table: Table, game, bot: Path, backend: str) -> tuple[float, float, float]:
    """(wall seconds of the whole decision, of rebuilding the observations, the bot's charged think time)."""
    began = time.perf_counter()
    table.seat_observations(table.seat_on_move)
    rebuilt = time.perf_counter() - began
    began = time.perf_counter()
    with seated([lambda: make_player(game, str(bot), sandbox=backend, key=f"bench:table-memory:{bot.name}")]) as [player]:
        table.bot_move_afresh(player)
    wall = time.perf_counter() - began
    failed = [event for event in table.events if "verdict" in event]
    if failed:
        raise RuntimeError(f"the bot failed: {failed} {table.details}")
    return wall, rebuilt, getattr(player, "think_time", 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="docker-warm", help="docker-warm (production), docker, bwrap or none")
    parser.add_argument("--games", nargs="+", default=["crazyking", "sortinggame"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"backend {args.backend}, load average {os.getloadavg()[0]:.1f} at the start")
    print("| game | decision of seat 0 | told before it | wall | rebuilding | bot's time |")
    print("|---|---|---|---|---|---|")
    for name in args.games:
        game = get_game(name)
        table = full_game(name, args.seed)
        decisions = sum(1 for event in table.events if event["seat"] == 0 and "action" in event)
        points = {}
        for label, number in (("first", 0), ("middle", decisions // 2), ("last", decisions - 1)):
            samples = [one_decision(at_decision(table, 0, number), game, EXAMPLES / EXAMPLE_FILES[name], args.backend)
                       for _ in range(args.repeat)]
            wall, rebuilt, think = (statistics.median(column) for column in zip(*samples))
            points[label] = wall
            print(f"| {name} | {label} ({number + 1} of {decisions}) | {number} | {wall * 1000:.0f} ms | "
                  f"{rebuilt * 1000:.0f} ms | {think * 1000:.0f} ms |")
        # The decisions' times grow about linearly with the number told: the whole game's is about the mean.
        total = decisions * (points["first"] + 2 * points["middle"] + points["last"]) / 4
        print(f"| {name} | all {decisions} (estimated) | | {total:.1f} s | | |")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
