"""What a bot can reach from inside its sandbox: checked from the inside (probing bots) and the outside."""

from __future__ import annotations

import hashlib
import os
import re
import socket
import subprocess
import uuid
from pathlib import Path

import pytest
from opponents import CpuWatchingOpponent
from sandbox_testkit import (BOTS, LIMITS, SANDBOX_SLACK, assert_contained, bot_file, default_gateway,
                             docker_bridge_gateway, leftovers, open_player, play, processes_in, report)

import sandbox
from sandbox.base import CLOSE_DRAIN, DEATH_GRACE

REDIS = ("127.0.0.1", 6379)


def test_bot_sees_only_its_own_locked_down_sandbox(backend, monkeypatch):
    monkeypatch.setenv("ARENA_TEST_SECRET", "must not leak")
    outcome = play(backend, BOTS / "introspect.py")
    seen = report(outcome.log)

    assert outcome.status == "ok"
    assert (seen["uid"], seen["gid"]) == (65534, 65534)
    assert seen["environ"] == {}
    assert int(seen["cap_eff"], 16) == 0
    assert seen["no_new_privs"] == "1"
    assert seen["sandbox_files"] == ["bot.py", "harness.py"] + (["supervisor.py"] if backend.startswith("docker") else [])
    assert "ro" in seen["mounts"]["/"]["options"]
    assert "ro" in seen["mounts"]["/sandbox"]["options"]
    assert seen["mounts"]["/tmp"]["type"] == "tmpfs"
    assert not seen["docker_socket"]
    assert len(seen["processes"]) <= 3, "the bot sees processes outside its own sandbox"
    assert set(seen["interfaces"]) <= {"lo"}
    assert seen["nofile"] == [LIMITS.open_files, LIMITS.open_files]
    assert seen["core"] == [0, 0]
    # Nothing open but /dev/null and the protocol's pipes, and a fresh interpreter's signal handlers (only
    # SIGINT caught; SIGPIPE and SIGXFSZ ignored): a warm container's harness is a fork of its supervisor,
    # which must leave it nothing of its own.
    assert seen["descriptors"] == {"0": "/dev/null", "1": "pipe", "2": "pipe", "3": "pipe", "4": "pipe"}
    assert (seen["caught_signals"], seen["ignored_signals"]) == ("0000000000000002", "0000000001001000")
    if backend.startswith("docker"):
        assert seen["seccomp"] == "2", "Docker's default seccomp profile is not applied"
        assert "noexec" in seen["mounts"]["/tmp"]["options"]


def inspect_started(backend: str) -> dict:
    """`docker inspect` of the container a `backend` player started, with the player closed after."""
    from sandbox.docker_backend import client

    player = open_player(backend, BOTS / "first_legal.py", limits=LIMITS)
    player.start({"game": "endgame"})
    try:
        return client().api.inspect_container(player.sandbox_id)
    finally:
        player.close()


@pytest.mark.parametrize("backend_name", ["docker", "docker-warm"])
def test_docker_container_is_created_locked_down(docker_image, backend_name):
    attrs = inspect_started(backend_name)
    host, config = attrs["HostConfig"], attrs["Config"]
    assert host["NetworkMode"] == "none"
    assert host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and not host["CapAdd"]
    assert "no-new-privileges" in host["SecurityOpt"]
    assert not any("seccomp" in option for option in host["SecurityOpt"])  # the default profile stays
    assert host["Privileged"] is False
    # Cold or warm, the container's init is the supervisor, which reaps for itself (no docker-init).
    assert host["Init"] is False
    assert host["Memory"] == host["MemorySwap"] == LIMITS.memory_mb << 20
    assert host["PidsLimit"] == LIMITS.pids
    assert host["NanoCpus"] == int(LIMITS.cpus * 1e9)
    assert {u["Name"] for u in host["Ulimits"]} == {"nofile", "fsize", "core"}
    assert "noexec" in host["Tmpfs"]["/tmp"] and f"size={LIMITS.tmp_mb << 20}" in host["Tmpfs"]["/tmp"]
    assert host["LogConfig"]["Type"] == "none"
    assert config["User"] == "65534:65534"
    assert not [variable for variable in config["Env"] or [] if not variable.startswith("PATH=")]
    mounts = attrs["Mounts"]
    assert len(mounts) == 1 and mounts[0]["Destination"] == "/sandbox" and mounts[0]["RW"] is False
    assert "docker.sock" not in str(attrs)


def test_warm_container_has_the_cold_containers_flags(docker_image):
    cold, warm = inspect_started("docker"), inspect_started("docker-warm")
    # What names one container (its mount's source, cgroup, log paths) or is the init differs; nothing else.
    own = {"Binds", "Mounts", "Init"}

    assert {k: v for k, v in warm["HostConfig"].items() if k not in own} == \
        {k: v for k, v in cold["HostConfig"].items() if k not in own}
    assert warm["Config"]["User"] == cold["Config"]["User"] and warm["Config"]["Env"] == cold["Config"]["Env"]
    assert warm["Config"]["Labels"]["arena.sandbox.owner"] == cold["Config"]["Labels"]["arena.sandbox.owner"]


def test_a_containers_cgroup_is_scheduled_as_one_process_and_holds_the_limits(docker_image):
    """Under Docker's "/docker" group every bot of the host would share one process's CPU weight, where a bot
    run as a plain process has a whole one: with the cgroupfs driver each container's group is the host's
    own (sandbox/docker_backend.py cgroup_parent), and keeps every limit."""
    from sandbox.cgroup import Cgroup, _mounts
    from sandbox.docker_backend import client

    player = open_player("docker-warm", BOTS / "first_legal.py", limits=LIMITS)
    player.start({"game": "endgame"})
    try:
        group = Cgroup.of_process(client().api.inspect_container(player.sandbox_id)["State"]["Pid"])

        def read(controller, name):
            return int((group.dirs[controller] / name).read_text())

        if client().info()["CgroupDriver"] == "cgroupfs":
            assert group.dirs["cpu"].parent == _mounts()["cpu"][0]
        assert group.dirs["cpu"].name == player.sandbox_id
        assert read("memory", "memory.limit_in_bytes") == LIMITS.memory_mb << 20
        assert read("pids", "pids.max") == LIMITS.pids
        assert read("cpu", "cpu.cfs_quota_us") == int(LIMITS.cpus * read("cpu", "cpu.cfs_period_us"))
    finally:
        player.close()


def test_bwrap_cgroup_holds_the_limits(bwrap_ready):
    player = sandbox.open_player("bwrap", str(BOTS / "first_legal.py"), limits=LIMITS)
    player.start({"game": "endgame"})
    try:
        def read(controller, name):
            return int(next(Path("/sys/fs/cgroup").glob(f"{controller}/arena-sandbox/{player.sandbox_id}/{name}"))
                       .read_text())

        assert read("memory", "memory.limit_in_bytes") == LIMITS.memory_mb << 20
        assert read("pids", "pids.max") == LIMITS.pids
        assert read("cpu", "cpu.cfs_quota_us") == int(LIMITS.cpus * read("cpu", "cpu.cfs_period_us"))
        assert processes_in(player.sandbox_id), "the sandbox's processes are not in its cgroup"
    finally:
        player.close()


def test_network_is_unreachable(backend, tmp_path):
    with socket.create_connection(REDIS, timeout=2):
        pass  # the host's Redis is really there for the bot to try
    targets = [list(REDIS), [docker_bridge_gateway(), 6379], ["1.1.1.1", 53]]
    if default_gateway():
        targets.append([default_gateway(), 6379])
    outcome = play(backend, bot_file("network", tmp_path, TARGETS=targets))
    attempts = report(outcome.log)

    assert_contained(outcome, backend, "crash")
    assert "no way out" in outcome.detail
    assert len(attempts) == len(targets) + 1
    assert all(result.startswith("refused") for result in attempts.values()), attempts


def test_bot_cannot_write_outside_tmp_or_change_its_file(backend, tmp_path):
    bot = bot_file("escape_files", tmp_path)
    original = hashlib.sha256(bot.read_bytes()).hexdigest()
    outcome = play(backend, bot)
    attempts = report(outcome.log)

    assert_contained(outcome, backend, "crash")
    assert "no way out" in outcome.detail
    assert attempts.pop("write to /tmp") == "done"
    run_from_tmp = attempts.pop("run a program from /tmp")
    if backend.startswith("docker"):  # bwrap cannot mount /tmp noexec (docs/operator-sandbox.md)
        assert run_from_tmp.startswith("refused")
    assert all(result.startswith("refused") for result in attempts.values()), attempts
    assert hashlib.sha256(bot.read_bytes()).hexdigest() == original


def test_bot_cannot_kill_anything_outside_its_sandbox(backend):
    # A host process running as the very uid the bots run as: the likeliest victim of kill(-1).
    bystander = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sleep", "60"])
    try:
        outcome = play(backend, BOTS / "kill_everything.py")

        assert_contained(outcome, backend, "crash")
        assert bystander.poll() is None, "a bot killed a process on the host"
    finally:
        bystander.kill()
        bystander.wait()


def processes_with_argument(argument: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and argument.encode() in open(f"/proc/{entry}/cmdline", "rb").read().split(b"\0"):
                found.append(int(entry))
        except OSError:
            pass
    return found


def test_daemon_does_not_outlive_the_match(backend, tmp_path):
    marker = f"{7000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6}"
    outcome = play(backend, bot_file("daemon", tmp_path, MARKER=marker))

    assert_contained(outcome, backend, "crash")
    assert "the daemon is out" in outcome.detail
    assert processes_with_argument(marker) == []


@pytest.mark.parametrize("bot, status", [("cpu_threads", "timeout"), ("first_legal", "ok")])
def test_cpu_used_between_turns_is_charged(backend, bot, status):
    # Both bots answer at once; only the first keeps computing while its opponent thinks. Wall clock alone
    # would never catch it; the CPU charge does. The opponent thinks until the bot has burnt 0.5 s of CPU
    # (however busy the host), against 0.3 s per decision: 0.2 s a turn from its 0.5 s bank, gone on its
    # third of 4 turns. The well-behaved bot burns nothing: its opponent thinks 2 s a turn, and its
    # container round trips (tens of milliseconds) fit in 0.3 s with the whole bank to spare.
    limits = sandbox.Limits(**{**LIMITS.__dict__, "decision": 0.3, "bank": 0.5})
    opponent = CpuWatchingOpponent(cpu=0.5, patience=2.0 if status == "ok" else 120.0)
    outcome = play(backend, BOTS / f"{bot}.py", limits=limits, opponent=opponent, config={"length": 8})

    if status == "timeout":
        # Blamed on the CPU between turns, in whichever of the three places the charge ran out: before the
        # request ("used 0.52s of CPU between turns"), while waiting for the answer ("the 0.24s left in its
        # bank, less the 0.50s of CPU it used between turns") or at the answer ("0.50s CPU between turns").
        assert re.search(r"\d\.\d\ds (of )?CPU (it used )?between turns", outcome.detail), outcome.detail
        assert_contained(outcome, backend, "timeout",
                         bound=opponent.thought + limits.setup + DEATH_GRACE + CLOSE_DRAIN + SANDBOX_SLACK)
    else:
        assert outcome.status == "ok", outcome.detail
        assert leftovers(backend, outcome.sandbox_id) == []
