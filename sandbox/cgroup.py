"""The kernel's per-sandbox counters and limits: CPU used, OOM kills, memory, pids and CPU quota.

Docker makes a cgroup per container; we only read it (the CPU counter is a file read, where the stats
API takes a second). The bwrap backend makes its own. Both cgroup v1 (one hierarchy per controller, as
on the CI hosts) and the unified v2 hierarchy are read; creating cgroups is done on v1 (see
docs/operator-sandbox.md for v2 hosts).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

CONTROLLERS = ("cpu", "cpuacct", "memory", "pids")
# Where the bwrap backend makes its cgroups, in each controller's hierarchy.
PARENT = "arena-sandbox"


def _mounts() -> dict[str, tuple[Path, str]]:
    """Where each controller's hierarchy is mounted (and which of its subtrees): "unified" for v2."""
    mounts: dict[str, tuple[Path, str]] = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        before, after = line.split(" - ", 1)
        fields, (fs_type, _, options) = before.split(), after.split()[:3]
        root, mountpoint = fields[3], Path(fields[4])
        if fs_type == "cgroup2":
            mounts.setdefault("unified", (mountpoint, root))
        elif fs_type == "cgroup":
            for option in options.split(","):
                if option in CONTROLLERS:
                    mounts.setdefault(option, (mountpoint, root))
    return mounts


def _on_disk(mount: tuple[Path, str], path: str) -> Path:
    mountpoint, root = mount
    relative = os.path.relpath(path, root) if root != "/" else path.lstrip("/")
    return mountpoint / relative


class Cgroup:
    """One group of processes: its directory per controller (v1) or its one directory (v2)."""

    def __init__(self, dirs: dict[str, Path], unified: Path | None):
        self.dirs = dirs
        self.unified = unified
        self._cpu_fd: int | None = None

    @classmethod
    def of_process(cls, pid: int) -> "Cgroup | None":
        """The cgroup `pid` is in, if this process can see it."""
        mounts = _mounts()
        dirs, unified = {}, None
        try:
            lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
        except OSError:
            return None
        for line in lines:
            _, controllers, path = line.split(":", 2)
            if not controllers and "unified" in mounts:
                unified = _on_disk(mounts["unified"], path)
            for controller in controllers.split(","):
                if controller in CONTROLLERS and controller in mounts:
                    dirs[controller] = _on_disk(mounts[controller], path)
        if not dirs and unified is None:
            return None
        # On a hybrid host the unified hierarchy holds no controllers: read v1 only.
        return cls(dirs, None if dirs else unified)

    @classmethod
    def create(cls, name: str, *, memory_bytes: int, pids: int, cpus: float) -> "Cgroup | None":
        """A new v1 cgroup `arena-sandbox/name` with the limits set; None where we cannot make one."""
        mounts = _mounts()
        if not all(controller in mounts for controller in CONTROLLERS):
            return None
        group = cls({controller: mounts[controller][0] / PARENT / name for controller in CONTROLLERS}, None)
        try:
            for directory in group.dirs.values():
                directory.mkdir(parents=True)
            group._write("memory", "memory.limit_in_bytes", memory_bytes)
            swap = group.dirs["memory"] / "memory.memsw.limit_in_bytes"
            if swap.exists():  # only where the kernel accounts swap
                swap.write_text(str(memory_bytes))
            group._write("pids", "pids.max", pids)
            period = 100_000
            group._write("cpu", "cpu.cfs_period_us", period)
            group._write("cpu", "cpu.cfs_quota_us", int(cpus * period))
        except OSError:
            group.kill_all()
            group.remove()
            return None
        return group

    @classmethod
    def created(cls) -> dict[str, "Cgroup"]:
        """The cgroups `create` made (and nobody removed yet), by name."""
        mounts = _mounts()
        names = set()
        for controller in CONTROLLERS:
            parent = mounts[controller][0] / PARENT if controller in mounts else None
            if parent is not None and parent.is_dir():
                names.update(path.name for path in parent.iterdir() if path.is_dir())
        return {name: cls({c: mounts[c][0] / PARENT / name for c in CONTROLLERS if c in mounts}, None)
                for name in names}

    def _write(self, controller: str, name: str, value: int) -> None:
        (self.dirs[controller] / name).write_text(str(value))

    def add(self, pid: int) -> None:
        # Bare system calls: this also runs in a forked child before exec (see bwrap_backend).
        for directory in self.dirs.values():
            fd = os.open(directory / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, str(pid).encode())
            finally:
                os.close(fd)

    def cpu_seconds(self) -> float | None:
        """CPU used by the group so far. Read once or twice per decision: the file stays open (pread)."""
        try:
            if self._cpu_fd is None:
                counter = (self.dirs["cpuacct"] / "cpuacct.usage" if "cpuacct" in self.dirs
                           else self.unified / "cpu.stat" if self.unified is not None else None)
                if counter is None:
                    return None
                self._cpu_fd = os.open(counter, os.O_RDONLY | os.O_CLOEXEC)
            text = os.pread(self._cpu_fd, 4096, 0).decode()
            if "cpuacct" in self.dirs:
                return int(text) / 1e9
            return int(dict(line.split() for line in text.splitlines())["usage_usec"]) / 1e6
        except (OSError, KeyError, ValueError):
            return None

    def close(self) -> None:
        """Let go of the open counter (the group itself stays)."""
        if self._cpu_fd is not None:
            os.close(self._cpu_fd)
            self._cpu_fd = None

    def oom_kills(self) -> int:
        try:
            if "memory" in self.dirs:
                text = (self.dirs["memory"] / "memory.oom_control").read_text()
            elif self.unified is not None:
                text = (self.unified / "memory.events").read_text()
            else:
                return 0
        except OSError:
            return 0
        counters = dict(line.split() for line in text.splitlines())
        return int(counters.get("oom_kill", 0))

    def pids(self) -> list[int]:
        directory = self.dirs.get("pids") or self.unified
        try:
            return [int(pid) for pid in (directory / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill_all(self) -> None:
        """SIGKILL every process in the group until none is left (a fork bomb keeps forking)."""
        for _ in range(200):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.01)

    def remove(self) -> None:
        self.close()
        for directory in self.dirs.values():
            for _ in range(50):  # rmdir fails while the last killed processes are being reaped
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
