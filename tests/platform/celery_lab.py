"""Celery processes for the tests that start, kill and restart their own workers and schedulers."""

import os
import signal
import subprocess
from pathlib import Path

from platform_helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]


class CeleryProcess:
    """`celery -A arena worker` (or our beat) in its own process group, logging to a file."""

    def __init__(self, name: str, argv: list[str], env: dict, folder: Path, ready: str):
        self.log = folder / f"{name}.log"
        self.ready = ready
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)

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
