"""Helpers for the sandbox tests: test limits, bot copies, playing a match, finding leftovers."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import resource
import tempfile
import time
from pathlib import Path

import sandbox
from games import get_game
from games.bots import builtin_player
from games.referee import play_match
from sandbox.base import CLOSE_DRAIN, DEATH_GRACE, STAGING_PREFIX, local_owner_prefix

BOTS = Path(__file__).parent / "bots"

# Tight limits keep the suite fast; every bound a test states is derived from them.
LIMITS = sandbox.Limits(setup=2.0, decision=0.5, bank=0.5, memory_mb=128, pids=32, tmp_mb=8, log_bytes=16 << 10)
# Slack on top of the time limits for the referee, the opponent's turns and the protocol's round trips
# on a loaded 2-core host. Starting and removing the sandbox are not in it: they are timed apart (see
# `play`), since a container's start has no bound a test could honestly state.
SANDBOX_SLACK = 3.0
# How much the worker's peak memory may grow over one hostile match (flood buffers are capped at ~1 MiB).
WORKER_MEMORY_SLACK_MB = 48
# The longest a failing bot can hold a match once its sandbox runs: setup, one decision and the whole
# bank, the wait for a dying bot's last words and the final drain, plus the slack.
MATCH_BOUND = LIMITS.setup + LIMITS.decision + LIMITS.bank + DEATH_GRACE + CLOSE_DRAIN + SANDBOX_SLACK


def bot_file(name: str, directory: Path, **constants) -> Path:
    """A copy of tests/sandbox/bots/`name`.py with module constants set (e.g. the targets to attack)."""
    text = (BOTS / f"{name}.py").read_text()
    for constant, value in constants.items():
        # (A function, not a template: the repr of bytes holds backslashes, which a template would read.)
        text, count = re.subn(rf"^{constant} = .*$", lambda _: f"{constant} = {value!r}", text, flags=re.M)
        assert count == 1, f"{name}.py has no constant {constant}"
    path = directory / f"{name}.py"
    path.write_text(text)
    return path


def open_player(backend: str, bot: Path, **options) -> sandbox.SandboxPlayer:
    """`sandbox.open_player`, keyed for docker-warm by the bot file's contents: the matches of one bot
    file share warm containers, as one bot version does on the platform."""
    try:
        key = "test:" + hashlib.sha256(Path(bot).read_bytes()).hexdigest()
    except OSError:
        key = f"test:{bot}"
    return sandbox.open_player(backend, str(bot), key=key, **options)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclasses.dataclass
class Outcome:
    status: str
    detail: str
    log: str
    winners: list[int]
    # Seconds the match took, less the time spent starting and removing the bot's sandbox.
    seconds: float
    worker_growth_mb: float
    sandbox_id: str | None
    think_time: float
    # docker-warm: whether the match ran in a container an earlier match had used.
    reused: bool = False
    replay: dict | None = None


def play(backend: str, bot: Path, *, limits: sandbox.Limits = LIMITS, opponent=None, config: dict | None = None
         ) -> Outcome:
    """An End Game match: `bot` in a `backend` sandbox (seat 0) against the greedy built-in (seat 1)."""
    game = get_game("endgame")
    player = open_player(backend, bot, name=bot.name, limits=limits)
    opponent = opponent or builtin_player(game, "greedy")
    if hasattr(opponent, "watch"):
        opponent.watch(player)
    lifecycle = time_spent_in(player, "_launch", "_destroy")
    rss_before = peak_rss_mb()
    began = time.monotonic()
    result = play_match(game, [player, opponent], config=config, seed=7)
    seconds = time.monotonic() - began - lifecycle["seconds"]
    seat = result.players[0]
    return Outcome(seat.status, seat.detail, seat.log, result.winners, seconds, peak_rss_mb() - rss_before,
                   player.sandbox_id, player.think_time, getattr(player, "reused", False), result.replay)


def time_spent_in(player, *methods: str) -> dict:
    """Wraps `methods` of `player` to add up, in the returned {"seconds": ...}, the time spent in them."""
    spent = {"seconds": 0.0}
    for name in methods:
        def timed(*args, _method=getattr(player, name), **kwargs):
            began = time.monotonic()
            try:
                return _method(*args, **kwargs)
            finally:
                spent["seconds"] += time.monotonic() - began
        setattr(player, name, timed)
    return spent


def report(log: str) -> dict:
    """The REPORT line a probing bot printed to its stderr."""
    lines = [line for line in log.splitlines() if line.startswith("REPORT ")]
    assert lines, f"the bot printed no REPORT; its log:\n{log}"
    return json.loads(lines[-1][len("REPORT "):])


def processes_in(sandbox_id: str) -> list[int]:
    """Host processes whose cgroup names the sandbox (a container id or a bwrap cgroup)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if sandbox_id in (entry / "cgroup").read_text():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def warm_idle() -> dict[str, tuple[str, int]]:
    """The default warm pool's idle containers, their last match's reset done: id -> (their staging folder,
    their supervisor's host pid)."""
    from sandbox import pool

    pool.default_pool().settle()
    if pool.default_pool().idle_containers() == []:
        return {}
    from sandbox.docker_backend import client

    idle = {}
    for container_id in pool.default_pool().idle_containers():
        attrs = client().api.inspect_container(container_id)
        idle[container_id] = (attrs["Mounts"][0]["Source"], attrs["State"]["Pid"])
    return idle


def warm_processes(supervisor: int) -> set[int]:
    """An idle warm container's own processes: its supervisor, its zygote and at most one spare harness
    waiting for the next match's setup (sandbox/supervisor.py); each the supervisor's child."""
    children = {"zygote": [], "harness": []}
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and f"PPid:\t{supervisor}\n" in (entry / "status").read_text():
                kind = process_kind(int(entry.name))
                if kind in children:
                    children[kind].append(int(entry.name))
        except OSError:
            pass
    return {supervisor, *children["zygote"][:1], *children["harness"][:1]}


def process_kind(pid: int) -> str:
    """"harness" or "zygote" for a warm container's harness or zygote (named for what they run: both run
    the supervisor's program, sandbox/supervisor.py), "supervisor" for its supervisor, else "other"."""
    from sandbox.supervisor import HARNESS_NAME, ZYGOTE_NAME

    name = Path(f"/proc/{pid}/comm").read_bytes().rstrip(b"\n")
    if name in (HARNESS_NAME, ZYGOTE_NAME):
        return name.decode().removeprefix("arena-")
    return "supervisor" if b"/sandbox/supervisor.py" in Path(f"/proc/{pid}/cmdline").read_bytes() else "other"


# The system calls a supervisor waits in (/proc/PID/syscall's first field): select and pselect6 on x86_64,
# pselect6 on arm64.
WAITING_CALLS = {"23", "270", "72"}


def parked_supervisor(container_id: str, timeout: float = 10.0) -> int:
    """The pid of a warm container's supervisor once it has parked (sandbox/supervisor.py `park`): holding
    one socket, its zygote's (its worker's connection closed, no spare's socket pair), and waiting, with no
    time limit, for the signal that calls it back. Polled: nothing outside the container is told when it parks."""
    deadline = time.monotonic() + timeout
    while True:
        for pid in processes_in(container_id):
            proc = Path(f"/proc/{pid}")
            try:
                if process_kind(pid) != "supervisor":
                    continue
                call = (proc / "syscall").read_text().split()
                sockets = [fd for fd in (proc / "fd").iterdir() if fd.readlink().name.startswith("socket:")]
            except OSError:
                continue
            if call[0] in WAITING_CALLS and call[5] == "0x0" and len(sockets) == 1:
                return pid
        if time.monotonic() > deadline:
            raise AssertionError(f"the supervisor of container {container_id[:12]} did not park within {timeout:g} s")
        time.sleep(0.02)


def leftovers(backend: str, sandbox_id: str | None) -> list[str]:
    """Everything a finished match left on the host: containers, processes, cgroups, bot-file copies.

    A warm container waiting in the pool for its next match is not a leftover: it, its supervisor and its
    staging folder are expected (whichever backend this match used); anything else of the match is.
    """
    idle = warm_idle()
    kept = {staging for staging, _ in idle.values()}
    left = [str(path) for path in Path(tempfile.gettempdir()).glob(f"{STAGING_PREFIX}{local_owner_prefix()}-*")
            if str(path) not in kept]
    assert sandbox_id, "the sandbox never got an id: it did not start"
    expected = warm_processes(idle[sandbox_id][1]) if sandbox_id in idle else set()
    left += [f"process {pid}" for pid in processes_in(sandbox_id) if pid not in expected]
    if backend.startswith("docker"):
        from sandbox.docker_backend import client

        left += [f"container {c.name}" for c in client().containers.list(all=True, filters={"id": sandbox_id})
                 if c.id not in idle]
    else:
        left += [str(path) for path in Path("/sys/fs/cgroup").glob(f"*/arena-sandbox/{sandbox_id}")]
    return left


def default_gateway() -> str | None:
    """The host's default route gateway, from the kernel's routing table."""
    import socket
    import struct

    for line in Path("/proc/net/route").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == "00000000" and fields[2] != "00000000":
            return socket.inet_ntoa(struct.pack("<L", int(fields[2], 16)))
    return None


def docker_bridge_gateway() -> str:
    """The Docker bridge network's gateway (Docker's default address when the host has no bridge, or no
    engine: a bwrap bot must not reach it either)."""
    import docker.errors

    from sandbox.docker_backend import client

    try:
        configs = client().networks.get("bridge").attrs["IPAM"]["Config"] or []
    except (docker.errors.NotFound, sandbox.SandboxUnavailable):
        configs = []
    return next((config["Gateway"] for config in configs if config.get("Gateway")), "172.17.0.1")


def assert_contained(outcome: Outcome, backend: str, verdict: str, *, bound: float = MATCH_BOUND) -> None:
    """What every hostile bot must come to: its verdict, a win for the opponent, a match that ends in
    time, a worker whose memory stayed bounded, and nothing of the sandbox left on the host."""
    assert outcome.status == verdict, outcome.detail + "\n" + outcome.log[-2000:]
    assert outcome.winners == [1]
    assert outcome.seconds < bound
    assert outcome.worker_growth_mb < WORKER_MEMORY_SLACK_MB
    assert leftovers(backend, outcome.sandbox_id) == []
