"""Processes for the tests (and bench/soak.py) that start, kill and restart their own Celery workers,
schedulers and brokers."""

import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from left_behind import bot_containers
from platform_helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]
# `python -c BEAT SECONDS SCHEDULE_FILE`: the production scheduler with every entry sent each SECONDS.
BEAT = """
import sys
from arena.celery import app
from django.conf import settings

every = float(sys.argv[1])
app.conf.beat_schedule = {name: dict(entry, schedule=every) for name, entry in settings.CELERY_BEAT_SCHEDULE.items()}
app.start(["beat", "--schedule", sys.argv[2], "--loglevel", "INFO"])
"""


class CeleryProcess:
    """`celery -A arena worker` (or our beat) in its own process group, logging to a file."""

    def __init__(self, name: str, argv: list[str], env: dict, folder: Path, ready: str):
        self.log = folder / f"{name}.log"
        self.ready = ready
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)

    @classmethod
    def worker(cls, name: str, queue: str, env: dict, folder: Path) -> "CeleryProcess":
        """A worker of one pool process on `queue` alone (named after `name` and the queue), started and
        ready: the tests' own workers, which they stop, kill and start again. One that never gets ready is
        stopped before the failure is raised, so nothing is left running."""
        process = cls(name, [sys.executable, "-m", "celery", "-A", "arena", "worker", "-Q", queue,
                             "-n", f"{name}-{queue}@%h", "--concurrency", "1", "--loglevel", "INFO",
                             "--without-gossip", "--without-mingle", "--without-heartbeat"], env, folder, "ready.")
        try:
            process.wait_ready()
        except BaseException:
            process.stop()
            raise
        return process

    def wait_ready(self, timeout: float = 60) -> None:
        wait_for(lambda: self.ready in self.log.read_text() or self.process.poll() is not None, timeout, self.log.name)
        assert self.process.poll() is None, f"{self.log.name} exited:\n{self.tail()}"

    def pids(self) -> set[int]:
        """The processes of its group: the worker and its pool children."""
        group = set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == self.process.pid:  # the process group id
                group.add(int(stat.parent.name))
        return group

    def kill(self) -> None:
        """SIGKILL the worker and its pool children at once: no shutdown code runs anywhere."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()

    def stop(self, timeout: float = 20) -> None:
        """A warm shutdown (after `terminate`), then SIGKILL for whatever is left of the group."""
        self.terminate()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
        self.kill()

    def terminate(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()

    def tail(self) -> str:
        """The end of the log, without the scheduler's routine every second."""
        lines = [line for line in self.log.read_text().splitlines()
                 if "requeue_stuck_matches" not in line or "succeeded" in line and ": 0" not in line[-4:]]
        return "\n".join(lines)[-6000:]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """A private redis-server without persistence (like the CI one): a restart loses every message."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder), "--logfile", str(self.folder / "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
        )
        wait_for(lambda: self.ping() or self.process.poll() is not None, 10, f"redis-server on port {self.port}")
        assert self.process.poll() is None, (self.folder / "redis.log").read_text()[-2000:]

    def ping(self) -> bool:
        import redis

        try:
            return redis.Redis(port=self.port, socket_timeout=1).ping()
        except redis.exceptions.ConnectionError:
            return False

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
        if self.process:
            self.process.wait()

    def send(self, queue: str, task: str, *args) -> None:
        """Publish a task on `queue` of this broker, as `task.delay` would on the production one."""
        from arena.celery import app

        with app.connection_for_write(self.url) as connection:
            app.send_task(task, args=args, queue=queue, connection=connection)


def sandboxes_of(pids: set[int]) -> set[str]:
    """Names of the bot containers whose owning worker process is one of `pids`."""
    from sandbox.base import local_owner_pid

    return {name for name, owner in bot_containers().items() if local_owner_pid(owner) in pids}


def match_folders_of(pids: set[int]) -> set[Path]:
    """The folders with the bots' sources that the processes `pids` made to play matches."""
    from arena.matches import runner

    return folders_of(pids, runner.FOLDER_PREFIX)


def folders_of(pids: set[int], prefix: str) -> set[Path]:
    """The temporary folders named `prefix`PID.START-... that the processes `pids` made."""
    return {folder for folder in Path(tempfile.gettempdir()).glob(f"{prefix}*")
            if folder.name[len(prefix):].partition(".")[0] in {str(pid) for pid in pids}}
