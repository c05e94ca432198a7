"""End Game matches a minute on the warm Docker path, against cold Docker and the plain-process floor.

    python bench/warm_sandbox.py [--matches 40]

Measured in the same run, one backend after the other: `docker-warm` (containers kept in a pool, reset
between matches), `docker` (a container started and removed per bot per match) and `none` (a plain
child process: the floor, no sandbox at all). Two line-ups: a file bot against builtin:greedy (one
sandboxed seat) and two file bots (two seats, of two owners: two warm containers). The warm figures are
steady state: one match first fills the pool, and its time is printed apart. Back to back, a warm
container's next harness starts while the current match's reset ends; a worker's matches are rarely back
to back, so the median time of a warm match begun after a short pause is printed too.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path


import sandbox
from games import get_game
from games.bots import builtin_player
from games.referee import play_match
from sandbox import image
from sandbox_bench import GREEDY_BOT

BACKENDS = ("docker-warm", "docker", "none")
PAUSE = 0.3
LINEUPS = {"file bot vs builtin:greedy": 1, "two file bots": 2}


def lineup(backend: str, bot: Path, sandboxed_seats: int) -> list:
    game = get_game("endgame")
    limits = sandbox.Limits.for_game(game)
    players = [sandbox.open_player(backend, str(bot), name=f"seat{seat}", limits=limits, key=f"bench:owner{seat}")
               for seat in range(sandboxed_seats)]
    return players + [builtin_player(game, "greedy") for _ in range(2 - sandboxed_seats)]


def play(backend: str, bot: Path, sandboxed_seats: int, seed: int) -> None:
    result = play_match(get_game("endgame"), lineup(backend, bot, sandboxed_seats), seed=seed)
    failed = [seat.detail for seat in result.players if seat.status != "ok"]
    if failed:
        raise RuntimeError(f"a {backend} match failed: {failed}")


def matches_per_minute(backend: str, bot: Path, sandboxed_seats: int, count: int) -> float:
    began = time.perf_counter()
    for seed in range(count):
        play(backend, bot, sandboxed_seats, seed)
    return count / (time.perf_counter() - began) * 60


def after_a_pause_ms(bot: Path, sandboxed_seats: int, count: int) -> float:
    samples = []
    for seed in range(count):
        time.sleep(PAUSE)
        began = time.perf_counter()
        play("docker-warm", bot, sandboxed_seats, seed)
        samples.append(time.perf_counter() - began)
    return statistics.median(samples) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=40)
    args = parser.parse_args()

    if "docker" not in sandbox.available_backends():
        print("the Docker engine or the image is missing: run `python -m sandbox.image build`", file=sys.stderr)
        return 1
    bot = Path(tempfile.mkdtemp(prefix="warm-bench-")) / "greedy.py"
    bot.write_text(GREEDY_BOT)
    print(f"image {image.image_tag()}; {args.matches} End Game matches per backend and line-up")

    rates: dict[tuple[str, str], float] = {}
    for name, seats in LINEUPS.items():
        began = time.perf_counter()
        play("docker-warm", bot, seats, seed=-1)  # fills the pool: the cost of a new version's first match
        first_ms = (time.perf_counter() - began) * 1e3
        for backend in BACKENDS:
            rates[name, backend] = matches_per_minute(backend, bot, seats, args.matches)
        paused_ms = after_a_pause_ms(bot, seats, min(args.matches, 10))
        print(f"\n{name} (first warm match, containers started: {first_ms:.0f} ms; a warm match after a "
              f"{PAUSE:g} s pause: {paused_ms:.1f} ms)")
        print(f"  {'backend':12} {'matches/min':>12} {'ms/match':>9}")
        for backend in BACKENDS:
            rate = rates[name, backend]
            print(f"  {backend:12} {rate:12.0f} {60_000 / rate:9.1f}")
        warm, cold, floor = (rates[name, backend] for backend in BACKENDS)
        print(f"  warm / cold: {warm / cold:.1f}x the matches; warm / none: {warm / floor:.2f} of the floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
