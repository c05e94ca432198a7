"""A worker killed mid-match leaves its sandbox behind; cleanup removes it (and only it)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from left_behind import left_behind
from required import require
from sandbox_testkit import BOTS, LIMITS, leftovers, open_player, play, processes_in

import sandbox
from sandbox.base import STAGING_PREFIX, one_sweep_at_a_time

# A worker that starts a match against a bot that never answers, says which sandbox it made, and waits.
WORKER = """
import sys
import sandbox
player = sandbox.open_player(sys.argv[1], sys.argv[2], limits=sandbox.Limits(decision=600, bank=0), key="test:kill")
player.start({})
print(player.sandbox_id, flush=True)
player.act({"legal_actions": ["left"]})
"""
# A worker whose finished match left a warm container idle in its pool, which then waits.
IDLE_WORKER = """
import sys, time
import sandbox
player = sandbox.open_player("docker-warm", sys.argv[2], limits=sandbox.Limits(), key="test:idle")
player.start({})
player.close()
print(player.sandbox_id, flush=True)
time.sleep(600)
"""


def kill_worker_mid_match(backend: str, script: str = WORKER, bot: Path = BOTS / "sleeper.py",
                          before_the_kill=lambda: None) -> tuple[str, int]:
    worker = subprocess.Popen([sys.executable, "-c", script, backend, str(bot)],
                              stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
    sandbox_id = worker.stdout.readline().strip()
    before_the_kill()
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    return sandbox_id, worker.pid


def staging_of(pid: int) -> list[Path]:
    return list(Path(tempfile.gettempdir()).glob(f"{STAGING_PREFIX}{pid}.*"))


@pytest.mark.parametrize("backend_name, script", [("docker", WORKER), ("docker-warm", WORKER),
                                                 ("docker-warm", IDLE_WORKER)], ids=["cold", "warm", "warm-idle"])
def test_cleanup_removes_the_container_of_a_killed_worker(docker_image, backend_name, script):
    from sandbox.docker_backend import client

    idle = play("docker-warm", BOTS / "first_legal.py")  # this live worker's idle warm container stays too
    own = open_player(backend_name, BOTS / "first_legal.py", limits=LIMITS)
    own.start({})  # a live worker's match, which cleanup must not touch
    try:
        # The sweep lock held as by a sweep: a test on another xdist worker, or a Celery worker starting,
        # may sweep too, and would take what the killed worker left before it could be looked at.
        with one_sweep_at_a_time():
            sandbox_id, worker_pid = kill_worker_mid_match(backend_name, script)
            # (A warm container's supervisor sees its worker's stream end and stops; it is still there.)
            assert client().containers.list(all=True, filters={"id": sandbox_id}), "it should outlive its worker"
            assert staging_of(worker_pid)

        sandbox.cleanup_leftovers()

        assert not client().containers.list(all=True, filters={"id": sandbox_id})
        assert processes_in(sandbox_id) == []
        assert staging_of(worker_pid) == []
        assert own.act({"legal_actions": ["left"]}) == "left"
        assert client().containers.list(filters={"id": idle.sandbox_id})
    finally:
        own.close()
    assert leftovers(backend_name, own.sandbox_id) == []
    assert play("docker-warm", BOTS / "first_legal.py").sandbox_id == idle.sandbox_id


def test_cleanup_waits_for_a_leftover_another_worker_is_removing(docker_image, monkeypatch):
    import threading

    import docker.errors
    import requests
    from docker.models.containers import Container

    from sandbox.docker_backend import client, remove_container

    with one_sweep_at_a_time():  # no sweep of another test may take them first
        first, first_pid = kill_worker_mid_match("docker")
        second, second_pid = kill_worker_mid_match("docker")
    remove = Container.remove
    other_sweep = threading.Timer(0.5, remove_container, [first])  # ends after this sweep met its conflict

    def removed_meanwhile_by_another_worker(container, **kwargs):
        if container.id == first:
            other_sweep.start()
            answer = requests.Response()
            answer.status_code = 409
            raise docker.errors.APIError("conflict", response=answer,
                                         explanation=f"removal of container {container.id} is already in progress")
        return remove(container, **kwargs)

    monkeypatch.setattr(Container, "remove", removed_meanwhile_by_another_worker)
    try:
        # What Docker answers a sweep when another worker removes the same container (a match ending past
        # MAX_AGE; seen between sweeps in bench/soak.py before they took the host's sweep lock).
        sandbox.cleanup_leftovers()

        # Both are gone when the sweep returns: it went on past the conflict, then waited for the other.
        assert not client().containers.list(all=True, filters={"id": second})
        assert not client().containers.list(all=True, filters={"id": first})
        assert staging_of(first_pid) == [] and staging_of(second_pid) == []
    finally:
        monkeypatch.undo()
        other_sweep.cancel()
        remove_container(first)


def test_cleanup_removes_the_cgroup_of_a_killed_bwrap_worker(bwrap_ready):
    with one_sweep_at_a_time():
        sandbox_id, worker_pid = kill_worker_mid_match("bwrap")
        cgroups = list(Path("/sys/fs/cgroup").glob(f"*/arena-sandbox/{sandbox_id}"))
        assert cgroups and staging_of(worker_pid)

    sandbox.cleanup_leftovers()

    assert not any(path.exists() for path in cgroups)
    assert processes_in(sandbox_id) == []
    assert staging_of(worker_pid) == []


def test_cleanup_on_a_host_without_docker_still_removes_the_bot_files_and_plain_bots_of_killed_workers(
        monkeypatch, tmp_path):
    from sandbox import docker_backend
    from sandbox.base import SandboxUnavailable

    def no_engine():
        raise SandboxUnavailable("the Docker engine does not answer")

    # A sleeper that says when it is deciding: killed before the question reaches it, the worker's end of
    # the pipe closing would end the bot on its own, and nothing would be left to sweep.
    deciding = tmp_path / "deciding"
    bot = tmp_path / "sleeper.py"
    bot.write_text(f"import pathlib, time\n\ndef act(observation):\n    pathlib.Path({str(deciding)!r}).touch()\n"
                   "    time.sleep(3600)\n")

    def until_it_decides():
        deadline = time.monotonic() + 30
        while not deciding.exists() and time.monotonic() < deadline:  # another process: no event to await
            time.sleep(0.02)

    with one_sweep_at_a_time():
        _, worker_pid = kill_worker_mid_match("none", bot=bot, before_the_kill=until_it_decides)
        assert staging_of(worker_pid)
        bots = {thing for thing in left_behind(worker_pid) if thing.startswith("process ")}
        assert bots, "the killed worker's bot died with it: nothing was tested"
    monkeypatch.setattr(docker_backend, "client", no_engine)

    sandbox.cleanup_leftovers()

    # Its bot too, asleep for an hour in a session of its own (SIGKILL is delivered in a moment).
    deadline = time.monotonic() + 10
    while left_behind(worker_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left_behind(worker_pid) == set()


# A worker in a PID namespace of its own (a container sharing this host's /tmp or Docker engine): it makes
# its bot-file copy, says its name, and waits. Its pid means another process here, or none.
NAMESPACED_WORKER = """
import sys, time
from sandbox.base import make_staging
print(make_staging(b"def act(observation):\\n    return 0\\n"), flush=True)
time.sleep(600)
"""


def test_cleanup_leaves_alone_what_a_worker_of_another_pid_namespace_made():
    require(shutil.which("unshare") is not None and os.geteuid() == 0, "unshare as root (a new PID namespace)")
    worker = subprocess.Popen(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", NAMESPACED_WORKER],
                              stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
    try:
        staging = Path(worker.stdout.readline().strip())
        assert staging.name.startswith(STAGING_PREFIX) and staging.is_dir()

        removed = sandbox.base.remove_stale_staging()

        # Its pid (1 or 2 in its namespace) is another process here: judged by it, the copy would go.
        assert staging not in removed and staging.is_dir()
    finally:
        worker.kill()
        worker.wait()
    shutil.rmtree(staging, ignore_errors=True)


def test_cleanup_removes_what_a_worker_in_a_container_left_once_its_container_is_gone(docker_image):
    """A worker in a container (docker-compose's) names its host by the container's short id: while that
    container runs its sandboxes stay; once it is gone (`docker compose down` killed it before its warm
    containers went), the next sweep removes them instead of leaving them running for hours."""
    import contextlib
    import time
    import uuid

    import docker.errors

    from sandbox.docker_backend import CREATED_LABEL, LABEL, OWNER_LABEL, client
    from sandbox.image import image_tag

    engine = client()
    worker_container = engine.containers.run(image_tag(), ["sleep", "600"], detach=True, network_mode="none")
    gone_container = engine.containers.create(image_tag(), ["true"], network_mode="none")
    gone_host = gone_container.id[:12]
    gone_container.remove()

    def sandbox_of(host: str):
        labels = {LABEL: "1", OWNER_LABEL: f"{host}/4026532000:9:51576", CREATED_LABEL: str(time.time())}
        return engine.containers.create(image_tag(), ["true"], labels=labels, network_mode="none",
                                        name=f"arena-bot-test-{uuid.uuid4().hex[:12]}")

    kept, orphan = sandbox_of(worker_container.id[:12]), sandbox_of(gone_host)
    try:
        sandbox.cleanup_leftovers()

        left = {row["Id"] for row in engine.api.containers(all=True, filters={"label": LABEL})}
        assert kept.id in left and orphan.id not in left
    finally:
        for container in (kept, orphan, worker_container):
            with contextlib.suppress(docker.errors.NotFound):
                container.remove(force=True)


def test_workers_of_another_user_share_the_sweep_lock_whatever_the_umask_of_its_creator(monkeypatch):
    require(os.geteuid() == 0 and shutil.which("flock") is not None, "root and flock(1), to sweep as another user")
    folder = Path(tempfile.mkdtemp())  # in /tmp itself: pytest's own folders are closed to other users
    folder.chmod(0o755)
    lock = folder / "arena-sweep.lock"
    monkeypatch.setattr(sandbox.base, "SWEEP_LOCK", lock)
    old_umask = os.umask(0o077)
    try:
        with one_sweep_at_a_time():  # the first sweep on the host makes the file
            pass
    finally:
        os.umask(old_umask)
    try:
        other_user = subprocess.run(["flock", "--exclusive", str(lock), "echo", "swept"], user=65534,
                                    capture_output=True, text=True, timeout=30)
        assert other_user.stdout.strip() == "swept", other_user.stderr
    finally:
        shutil.rmtree(folder)


# `python -m games` playing End Game with a bug that strikes at the game's third move, once every bot
# has started and decided (the sandboxes are up and in use).
BROKEN_GAME_CLI = """
import sys
from games.__main__ import main
from games.endgame import EndGameState

applied = EndGameState._apply

def apply_until_the_bug(state, action):
    if state.step >= 2:
        raise RuntimeError("a bug of the game")
    applied(state, action)

EndGameState._apply = apply_until_the_bug
sys.exit(main(sys.argv[1:]))
"""
BROKEN_GAME_RUNS = {
    "none": ["match", "--sandbox", "none"],
    "bwrap": ["match", "--sandbox", "bwrap"],
    "docker": ["match", "--sandbox", "docker"],
    "docker-warm": ["tournament", "--format", "round-robin", "--sandbox", "docker"],  # one warm container per entrant
}


@pytest.mark.parametrize("backend", sorted(BROKEN_GAME_RUNS))
def test_a_game_that_raises_mid_match_leaves_nothing_of_the_cli_s_sandboxes(backend, request):
    if backend != "none":
        request.getfixturevalue("bwrap_ready" if backend == "bwrap" else "docker_image")
    command, *options = BROKEN_GAME_RUNS[backend]
    # Held so that no sweep (another test's, a Celery worker's) takes what the run leaves before it is seen.
    with one_sweep_at_a_time():
        cli = subprocess.Popen([sys.executable, "-c", BROKEN_GAME_CLI, command, "endgame", str(BOTS / "first_legal.py"),
                                "builtin:greedy", *options], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=Path(__file__).parents[2])
        _, errors = cli.communicate(timeout=120)

        assert cli.returncode == 1 and "RuntimeError: a bug of the game" in errors, errors[-3000:]
        assert left_behind(cli.pid) == set()
