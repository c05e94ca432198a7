"""A worker killed mid-match leaves its sandbox behind; cleanup removes it (and only it)."""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from sandbox_testkit import BOTS, LIMITS, leftovers, processes_in

import sandbox
from sandbox.base import STAGING_PREFIX

# A worker that starts a match against a bot that never answers, says which sandbox it made, and waits.
WORKER = """
import sys
import sandbox
player = sandbox.open_player(sys.argv[1], sys.argv[2], limits=sandbox.Limits(decision=600, bank=0))
player.start({})
print(player.sandbox_id, flush=True)
player.act({"legal_actions": ["left"]})
"""


def kill_worker_mid_match(backend: str) -> tuple[str, int]:
    worker = subprocess.Popen([sys.executable, "-c", WORKER, backend, str(BOTS / "sleeper.py")],
                              stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
    sandbox_id = worker.stdout.readline().strip()
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    return sandbox_id, worker.pid


def staging_of(pid: int) -> list[Path]:
    return list(Path(tempfile.gettempdir()).glob(f"{STAGING_PREFIX}{pid}.*"))


def test_cleanup_removes_the_container_of_a_killed_worker(docker_image):
    from sandbox.docker_backend import cleanup_leftovers, client

    own = sandbox.open_player("docker", str(BOTS / "first_legal.py"), limits=LIMITS)
    own.start({})  # a live worker's match, which cleanup must not touch
    try:
        sandbox_id, worker_pid = kill_worker_mid_match("docker")
        assert client().containers.list(filters={"id": sandbox_id}), "the container should outlive its worker"
        assert staging_of(worker_pid)

        removed = cleanup_leftovers()

        assert len(removed) >= 1
        assert not client().containers.list(all=True, filters={"id": sandbox_id})
        assert processes_in(sandbox_id) == []
        assert staging_of(worker_pid) == []
        assert own.act({"legal_actions": ["left"]}) == "left"
    finally:
        own.close()
    assert leftovers("docker", own.sandbox_id) == []


def test_cleanup_removes_the_cgroup_of_a_killed_bwrap_worker(bwrap_ready):
    sandbox_id, worker_pid = kill_worker_mid_match("bwrap")
    cgroups = list(Path("/sys/fs/cgroup").glob(f"*/arena-sandbox/{sandbox_id}"))
    assert cgroups and staging_of(worker_pid)

    sandbox.cleanup_leftovers()

    assert not any(path.exists() for path in cgroups)
    assert processes_in(sandbox_id) == []
    assert staging_of(worker_pid) == []
