"""The `bwrap` backend, for hosts without Docker: bubblewrap namespaces, rlimits and a cgroup.

The bot runs as uid 65534 (dropped before bwrap starts, so it is nobody outside its namespaces too) in
new user, pid, network, mount, ipc, uts and cgroup namespaces, on a read-only root made of the cached
Debian root file system (see sandbox/image.py) or, without it, of the host's /usr. Memory, pids and CPU
quota come from a cgroup v1 made per sandbox (root only); without one, RLIMIT_AS and RLIMIT_NPROC stand
in and CPU is not charged (docs/operator-sandbox.md lists what differs from the Docker backend). A seccomp
filter equivalent to Docker's default profile (syscall_filter) is loaded just before the harness starts.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
import uuid
from pathlib import Path

from .base import PipeChannel, SandboxPlayer, SandboxUnavailable, local_owner_alive, local_owner_prefix
from .cgroup import Cgroup
from .syscall_filter import FilterUnavailable, program_fd

BWRAP = shutil.which("bwrap") or "/usr/bin/bwrap"
NOBODY = 65534
# Host directories the fallback root is made of (when the cached Debian root is missing).
HOST_SYSTEM_DIRS = ("usr", "bin", "lib", "lib64", "sbin")


def sandbox_root() -> Path:
    from .image import rootfs_dir

    root = rootfs_dir()
    return root if root.is_dir() else Path("/")


def _root_arguments(root: Path) -> list[str]:
    arguments = []
    names = HOST_SYSTEM_DIRS + (("etc",) if root != Path("/") else ())
    for name in names:
        path = root / name
        if path.is_symlink():
            arguments += ["--symlink", os.readlink(path), f"/{name}"]
        elif path.is_dir():
            arguments += ["--ro-bind", str(path), f"/{name}"]
    if root == Path("/") and Path("/etc/ld.so.cache").exists():
        arguments += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    return arguments


def bwrap_command(staging: Path, limits, command: list[str], seccomp_fd: int) -> list[str]:
    """The bwrap command line; `seccomp_fd` holds the compiled filter (syscall_filter) and must be passed on."""
    return [
        BWRAP, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
        "--uid", str(NOBODY), "--gid", str(NOBODY), "--hostname", "bot", "--cap-drop", "ALL",
        "--seccomp", str(seccomp_fd),
        *_root_arguments(sandbox_root()),
        "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
        "--size", str(limits.tmp_mb << 20), "--tmpfs", "/tmp",
        "--ro-bind", str(staging), "/sandbox",
        "--remount-ro", "/",
        "--chdir", "/tmp", "--clearenv",
        *command,
    ]


def _filter_fd() -> int:
    try:
        return program_fd()
    except FilterUnavailable as error:
        raise SandboxUnavailable(str(error)) from error


def _limit(kind: int, value: int) -> None:
    resource.setrlimit(kind, (value, value))


class BwrapPlayer(SandboxPlayer):
    backend = "bwrap"
    _process: subprocess.Popen | None = None
    _cgroup: Cgroup | None = None

    def _launch(self, staging: Path) -> PipeChannel:
        limits = self.limits
        memory = limits.memory_mb << 20
        if os.geteuid() == 0:
            name = f"{local_owner_prefix()}-{uuid.uuid4().hex[:12]}"
            self._cgroup = Cgroup.create(name, memory_bytes=memory, pids=limits.pids, cpus=limits.cpus)
            self.sandbox_id = name if self._cgroup else None
        cgroup = self._cgroup

        def enter_sandbox() -> None:
            # Runs in the child between fork and exec: only system calls, nothing that takes locks.
            if cgroup is not None:
                cgroup.add(os.getpid())
            else:
                _limit(resource.RLIMIT_AS, memory)
                _limit(resource.RLIMIT_NPROC, limits.pids)
            _limit(resource.RLIMIT_NOFILE, limits.open_files)
            _limit(resource.RLIMIT_FSIZE, limits.tmp_mb << 20)
            _limit(resource.RLIMIT_CORE, 0)
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)

        command = ["python3", "-I", "-S", "/sandbox/harness.py", "/sandbox/bot.py"]
        seccomp_fd = _filter_fd()
        try:
            self._process = subprocess.Popen(
                bwrap_command(staging, limits, command, seccomp_fd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env={}, preexec_fn=enter_sandbox, start_new_session=True,
                pass_fds=(seccomp_fd,),
            )
        except OSError as error:
            raise SandboxUnavailable(f"cannot start bwrap: {error}") from error
        finally:
            os.close(seccomp_fd)
        return PipeChannel.of_process(self._process)

    def _cpu_seconds(self) -> float | None:
        return self._cgroup.cpu_seconds() if self._cgroup else None

    def _exit_status(self, timeout: float) -> tuple[int | None, bool]:
        try:
            status = self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None, False
        # bwrap exits 128+N when the bot was killed by signal N.
        status = -(status - 128) if status > 128 else status
        return status, bool(self._cgroup and self._cgroup.oom_kills())

    def _destroy(self) -> None:
        if self._process is not None:
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._process.wait()
        if self._cgroup is not None:
            self._cgroup.kill_all()
            self._cgroup.remove()
            self._cgroup = None


@functools.cache
def bwrap_works() -> bool:
    """Whether bwrap can make its namespaces here (some container hosts forbid user namespaces)."""
    from .limits import Limits

    if not shutil.which(BWRAP):
        return False
    try:
        seccomp_fd = _filter_fd()
    except SandboxUnavailable:
        return False
    probe = bwrap_command(Path("/var/empty") if Path("/var/empty").is_dir() else Path("/tmp"), Limits(),
                          ["python3", "-I", "-S", "-c", "pass"], seccomp_fd)
    try:
        return subprocess.run(probe, stdin=subprocess.DEVNULL, capture_output=True, timeout=20,
                              pass_fds=(seccomp_fd,)).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        os.close(seccomp_fd)


def cleanup_leftovers() -> list[str]:
    """Kill and remove the cgroups of bwrap sandboxes whose worker on this host is gone."""
    removed = []
    for name, group in Cgroup.created().items():
        if not local_owner_alive(name):
            group.kill_all()
            group.remove()
            removed.append(name)
    return removed
