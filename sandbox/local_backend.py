"""The `none` backend: the bot as a plain child process, with no isolation at all.

For trusted local use only (a student trying their own bot, an instructor's reference bots): it speaks
the same protocol with the same deadlines, but the bot can read and write whatever this user can.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

from .base import PipeChannel, SandboxPlayer, shared_entries_in_use, stale_staging

logger = logging.getLogger(__name__)
WARNING = "sandbox 'none': %s runs as a plain child process with NO isolation; for trusted local use only"
# The bot files this process has warned about: a tournament plays each bot in many games, and one warning
# per bot says all there is to say.
_warned: set[Path] = set()


def process_cpu_seconds(stat_fd: int) -> float | None:
    """User+system CPU of one process (all its threads), from its open /proc/PID/stat."""
    try:
        fields = os.pread(stat_fd, 4096, 0).decode().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class LocalPlayer(SandboxPlayer):
    backend = "none"
    _process: subprocess.Popen | None = None
    _stat_fd: int | None = None

    def _launch(self, staging: Path) -> PipeChannel:
        if self.bot_path.resolve() not in _warned:
            _warned.add(self.bot_path.resolve())
            logger.warning(WARNING, self.bot_path)
        self._process = subprocess.Popen(
            [sys.executable, "-I", "-S", str(staging / "harness.py"), str(staging / "bot.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=staging, env={},
            start_new_session=True,
        )
        # Kept open: read once or twice per decision.
        self._stat_fd = os.open(f"/proc/{self._process.pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        return PipeChannel.of_process(self._process)

    def _cpu_seconds(self) -> float | None:
        return process_cpu_seconds(self._stat_fd) if self._stat_fd is not None else None

    def _exit_status(self, timeout: float) -> tuple[int | None, bool]:
        try:
            return self._process.wait(timeout), False
        except subprocess.TimeoutExpired:
            return None, False

    def _destroy(self) -> None:
        if self._stat_fd is not None:
            os.close(self._stat_fd)
            self._stat_fd = None
        if self._process is None:
            return
        try:
            os.killpg(self._process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._process.wait()


def cleanup_leftovers() -> list[int]:
    """Kill the plain bot processes of workers on this host that are gone; the pids killed.

    A worker's close kills its bot's session; a worker that was killed never does, and the bot (in a session
    of its own, so that a Ctrl-C to the worker does not reach it) ran on, a sleeping one for hours. Its
    harness runs in its staging folder, whose name says which worker made it: the sweep finds it by its
    working directory, even once that folder is removed."""
    in_use = {entry["staging"] for entry in shared_entries_in_use()}
    killed = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:  # gone, or not ours to read
            continue
        if not stale_staging(Path(cwd.removesuffix(" (deleted)")), in_use):
            continue
        pid = int(entry.name)
        try:
            group = os.getpgid(pid)
            if group == pid:  # the harness, leader of its session: its bot's children too
                os.killpg(group, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except ProcessLookupError:
            pass
    return killed
