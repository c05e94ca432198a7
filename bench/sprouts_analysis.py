"""The replay page's Sprouts analysis, timed per move: random games of up to 10 spots, every move analysed
as the site does it (solver.analyse_move with the site's ANALYSIS_SECONDS and the position each move led
to; the last move first, then once more each move left unsettled, as the replay page asks), first with an
empty store of solved positions (cold: the opening book, games/sprouts/openings.txt, answers what it holds), then again in a new process that has only that store (again), and, with
--warm SECONDS, once more on a store filled beforehand by `python -m games solve sprouts --warm SECONDS` as
scripts/setup does (warmed: the openings of 6- to 10-spot games solved, nothing of these games' own).

Run: python bench/sprouts_analysis.py [--spots 10] [--games 2] [--seconds 1.5] [--moves 6 | --tries 2]
     [--warm 600 | --warmed FILE]
(prints figures; --moves N analyses only each game's first N moves, the hard ones, the first first and each
once, and prints each move's wall and CPU time and verdict)

Each pass runs in its own process on a store file of its own (not var/). Wall and CPU time per move are
printed with the load average, because other work on the machine lengthens the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANALYSE = """
import json, random, sys, time
from games.sprouts import solver
from games.sprouts.notation import initial_position, named_moves
spots, misere, seed, seconds, first, tries = {spots}, {misere}, {seed}, {seconds}, {moves}, {tries}
rng, position, played = random.Random(seed), initial_position(spots), []
while True:
    moves = named_moves(position)
    if not moves:
        break
    name, move = rng.choice(moves)
    played.append((position, name, move.result))
    position = move.result
# As the site does it (Sprouts.analyse_move): the positions before and after each move from the replay's
# actions, in the replay page's order: the last move first, then once more each move left unsettled (--tries
# in all: the page's 2); or,
# with --moves N, only the first N moves, the first first.
order = list(range(len(played)))[:first] if first else list(range(len(played)))[::-1]
rows = [None] * len(played)
for attempt in range(1 if first else tries):
    for step in order:
        if attempt and rows[step][3] != "unsettled":
            continue
        position, name, result = played[step]
        wall, cpu = time.perf_counter(), time.process_time()
        row = solver.analyse_move(position, name, step, misere, seconds, result=result)
        rows[step] = [time.perf_counter() - wall, time.process_time() - cpu, step, row["verdict"], attempt]
print(json.dumps([row for row in rows if row]))
"""


def run(spots: int, misere: bool, seed: int, seconds: float, store: Path, moves: int | None, tries: int) -> list:
    code = ANALYSE.format(spots=spots, misere=misere, seed=seed, seconds=seconds, moves=moves, tries=tries)
    env = {**os.environ, "ARENA_SPROUTS_STORE": str(store)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env,
                          check=True)
    return json.loads(done.stdout)


def summary(rows: list) -> str:
    walls = sorted(row[0] for row in rows)
    cpus = sorted(row[1] for row in rows)
    unsettled = [str(row[2] + 1) for row in rows if row[3] == "unsettled"]
    retried = sum(row[4] > 0 for row in rows)
    text = (f"{len(rows):>3} moves  wall max {walls[-1]:5.2f} s median {walls[len(walls) // 2]:5.2f} s  "
            f"CPU max {cpus[-1]:5.2f} s  unsettled {len(unsettled)}" + (f" (moves {', '.join(unsettled)})" if unsettled else "")
            + (f"  ({retried} asked again, the last try's figures)" if retried else ""))
    if len(rows) <= 8:  # the first moves alone: each one's figures
        text += "".join(f"\n      move {row[2] + 1}: {row[0]:5.2f} s wall {row[1]:5.2f} s CPU  {row[3]}" for row in rows)
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spots", type=int, default=10)
    parser.add_argument("--games", type=int, default=2, help="random games per play (seeds 0, 1, ...)")
    parser.add_argument("--seconds", type=float, default=1.5, help="search time per move (the site's 1.5)")
    parser.add_argument("--moves", type=int, help="analyse only the first N moves of each game")
    parser.add_argument("--tries", type=int, default=2, help="times a move left unsettled is asked (the page's 2)")
    warming = parser.add_mutually_exclusive_group()
    warming.add_argument("--warm", type=float, help="also a pass on a store warmed for this long, as scripts/setup does")
    warming.add_argument("--warmed", type=Path, help="also a pass on a copy of this store, warmed beforehand (by "
                         "`python -m games solve sprouts --warm SECONDS` with ARENA_SPROUTS_STORE=FILE)")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{load:.2f}' for load in os.getloadavg())} ({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory() as warmed_dir:
        warmed = args.warmed or Path(warmed_dir) / "warmed.sqlite3"
        if args.warm:
            print(f"warming: {warm(warmed, args.warm)}", flush=True)
        for misere in (False, True):
            for seed in range(args.games):
                label = f"{args.spots} spots {'misere' if misere else 'normal'} game {seed}"

                def analysed(store: Path) -> str:
                    return summary(run(args.spots, misere, seed, args.seconds, store, args.moves, args.tries))

                with tempfile.TemporaryDirectory() as scratch:
                    store = Path(scratch) / "solved.sqlite3"
                    print(f"{label}: cold    {analysed(store)}", flush=True)
                    print(f"{label}: again   {analysed(store)}", flush=True)
                    if args.warm or args.warmed:
                        copy = Path(scratch) / "warmed.sqlite3"
                        shutil.copy(warmed, copy)  # each game starts from the warmed store alone
                        print(f"{label}: warmed  {analysed(copy)}", flush=True)
    print(f"load average after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")


def warm(store: Path, seconds: float) -> str:
    """The store filled as scripts/setup does; the command's report with its wall and CPU time."""
    env = {**os.environ, "ARENA_SPROUTS_STORE": str(store)}
    wall, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    done = subprocess.run([sys.executable, "-m", "games", "solve", "sprouts", "--warm", str(seconds)], cwd=ROOT,
                          capture_output=True, text=True, env=env, check=True)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - cpu
    return f"{done.stdout.strip()} in {time.perf_counter() - wall:.0f} s wall, {cpu:.0f} s CPU"


if __name__ == "__main__":
    main()
