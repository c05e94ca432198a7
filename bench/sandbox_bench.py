"""How much the sandboxes cost, measured on this machine in one run.

    python bench/sandbox_bench.py [--starts 10] [--decisions 500] [--matches 10]

For the docker-warm, docker, bwrap and none (bare process) backends: sandbox start (to the bot's "ready")
and close, and the per-decision round trip through the protocol. Floors: the same bot as a plain process
(`none`), a bare `docker run` of the same image doing nothing, and a raw pipe round trip (an echo loop, no
harness, no JSON) into bwrap and into a plain process (a container's harness is started by its supervisor,
on the same kind of pipes). Then End Game matches per minute with both seats in
Docker. Ratios are printed at the end, with the load average (the figures move with it on a shared host).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


import sandbox
from games import get_game
from games.referee import play_match
from sandbox import bwrap_backend, docker_backend, image
from sandbox.base import PipeChannel

GREEDY_BOT = '''
def act(observation):
    board = observation["board"]
    return "left" if board[0] >= board[-1] else "right"
'''
# The floor for a round trip: the same python in the same sandbox, echoing lines with no harness.
ECHO = "import os\nwhile True:\n    line = os.read(0, 65536)\n    if not line: break\n    os.write(1, line)\n"
OBSERVATION = {"board": [3, 1, 4, 1, 5, 9, 2, 6], "offset": 0, "legal_actions": ["left", "right"]}


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


# docker-warm: every start but the first takes the container the one before left (the pool's steady state).
WARM_KEY = "bench:greedy"


def time_starts(backend: str, bot: Path, count: int) -> tuple[list[float], list[float]]:
    starts, closes = [], []
    for _ in range(count):
        player = sandbox.open_player(backend, str(bot), key=WARM_KEY)
        began = time.perf_counter()
        player.start({"game": "endgame"})
        starts.append(time.perf_counter() - began)
        began = time.perf_counter()
        player.close()
        closes.append(time.perf_counter() - began)
    return starts, closes


def time_decisions(backend: str, bot: Path, count: int) -> list[float]:
    player = sandbox.open_player(backend, str(bot), key=WARM_KEY)
    player.start({"game": "endgame"})
    samples = []
    try:
        for _ in range(count):
            began = time.perf_counter()
            player.act(OBSERVATION)
            samples.append(time.perf_counter() - began)
    finally:
        player.close()
    return samples


def echo_round_trips(channel, count: int) -> list[float]:
    line = (str(OBSERVATION) + "\n").encode()
    samples = []
    for _ in range(count):
        began = time.perf_counter()
        channel.send(line, time.monotonic() + 5)
        received = b""
        while not received.endswith(b"\n"):
            received += b"".join(chunk for stream, chunk in channel.receive(5) if stream == "stdout")
        samples.append(time.perf_counter() - began)
    return samples


class EchoPlayer:
    """A backend's sandbox running the echo loop instead of the harness (same launch, same channel)."""

    def __init__(self, player_class, staging: Path):
        self.player = player_class(str(staging / "bot.py"))
        self.staging = staging

    def __enter__(self):
        self.channel = self.player._launch(self.staging)
        return self.channel

    def __exit__(self, *_):
        self.channel.close()
        self.player._destroy()


def raw_pipe_round_trips(backend: str, staging: Path, count: int) -> list[float]:
    """The echo loop run in place of the harness: harness.py in the staging copy is the echo script."""
    if backend == "none":
        process = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        try:
            return echo_round_trips(PipeChannel.of_process(process), count)
        finally:
            process.kill()
            process.wait()
    with EchoPlayer(bwrap_backend.BwrapPlayer, staging) as channel:
        return echo_round_trips(channel, count)


def bare_docker_runs(tag: str, count: int) -> list[float]:
    engine = docker_backend.client()
    samples = []
    for _ in range(count):
        began = time.perf_counter()
        engine.containers.run(tag, ["true"], remove=True, network_mode="none")
        samples.append(time.perf_counter() - began)
    return samples


class TimedPlayer:
    """A player whose start and close are timed: the part of a match that is the sandbox's own cost."""

    def __init__(self, player, spent: list[float]):
        self.player = player
        self.name = player.name
        self.spent = spent

    def start(self, info):
        began = time.perf_counter()
        try:
            self.player.start(info)
        finally:
            self.spent.append(time.perf_counter() - began)

    def act(self, observation):
        return self.player.act(observation)

    def close(self):
        began = time.perf_counter()
        try:
            return self.player.close()
        finally:
            self.spent.append(time.perf_counter() - began)


def docker_matches(bot: Path, count: int) -> tuple[float, float, float]:
    """(matches a minute, decisions a match, share of the time spent starting and removing containers)."""
    game = get_game("endgame")
    spent: list[float] = []
    decisions = 0
    began = time.perf_counter()
    for seed in range(count):
        players = [TimedPlayer(sandbox.open_player("docker", str(bot), name=f"seat{seat}",
                                                   limits=sandbox.Limits.for_game(game)), spent)
                   for seat in range(2)]
        decisions += play_match(game, players, seed=seed).final_state.step
    elapsed = time.perf_counter() - began
    return count / elapsed * 60, decisions / count, sum(spent) / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--decisions", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=20)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="sandbox-bench-"))
    bot = work / "greedy.py"
    bot.write_text(GREEDY_BOT)
    # The raw-pipe floor reuses each backend's launch with the echo loop staged as its "harness".
    echo_staging = work / "echo"
    echo_staging.mkdir()
    (echo_staging / "harness.py").write_text(ECHO)
    (echo_staging / "bot.py").write_text("")
    for path in (work, echo_staging):
        path.chmod(0o755)

    available = sandbox.available_backends()
    backends = [name for name in ("docker-warm", "docker", "bwrap", "none")
                if name in available or (name == "docker-warm" and "docker" in available)]
    print(f"backends: {', '.join(backends)}; image {image.image_tag()}")
    rows = {}
    for backend in backends:
        starts, closes = time_starts(backend, bot, args.starts)
        decisions = time_decisions(backend, bot, args.decisions)
        # (a container's harness is started by its supervisor: no echo loop stands in for it)
        raw = raw_pipe_round_trips(backend, echo_staging, args.decisions) if backend in ("bwrap", "none") else []
        rows[backend] = (median_ms(starts), median_ms(closes), median_ms(decisions), median_ms(raw) if raw else None)
    load = os.getloadavg()

    print(f"\n{'backend':11} {'start ms':>9} {'close ms':>9} {'decision ms':>12} {'raw pipe ms':>12} {'ratio':>6} "
          f"{'/ none':>7}")
    for backend, (start, close, decision, raw) in rows.items():
        raw_columns = f"{raw:12.3f} {decision / raw:6.2f}" if raw else f"{'-':>12} {'-':>6}"
        floor = f"{decision / rows['none'][2]:6.2f}x" if "none" in rows else ""
        print(f"{backend:11} {start:9.1f} {close:9.1f} {decision:12.3f} {raw_columns} {floor:>7}")
    print(f"(load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores)")
    if "docker-warm" in rows and "none" in rows:
        print(f"decision round trip, warm container / plain process: {rows['docker-warm'][2] / rows['none'][2]:.2f}x "
              f"(goal: within 1.3x)")

    if "docker" in rows:
        bare = median_ms(bare_docker_runs(image.image_tag(), args.starts))
        start, close, decision, raw = rows["docker"]
        per_minute, steps, sandbox_share = docker_matches(bot, args.matches)
        print(f"\nbare `docker run IMAGE true` (create, start, wait, remove): {bare:.1f} ms")
        print(f"docker start+close / bare docker run: {(start + close) / bare:.2f}x")
        print(f"End Game, both seats in Docker, {steps:.0f} decisions a match: {per_minute:.1f} matches/minute "
              f"({60_000 / per_minute:.0f} ms a match, {sandbox_share:.0%} of it starting and removing the "
              f"two containers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
