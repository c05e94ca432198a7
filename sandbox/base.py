"""What every backend shares: staging the files, the protocol, deadlines, the time bank and the log.

A backend only starts its sandbox (returning a `Channel` to the harness's stdin/stdout/stderr), reads the
CPU the sandbox used, tells how it ended, and destroys it. Everything a bot can do wrong on the channel
is judged here, once, the same way for every backend.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import select
import shutil
import signal
import socket
import tempfile
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from games.core import BotFailure, Verdict

from .limits import Limits
from .protocol import PROTOCOL_VERSION, ProtocolViolation, Reply, ReplyType, read_reply, storable_text

HARNESS = Path(__file__).with_name("harness.py")
# Private copies of bot files live in directories named so; cleanup finds what a killed worker left.
STAGING_PREFIX = "arena-sandbox-"
# Workers on one host sweep leftovers one at a time (named outside STAGING_PREFIX: a sweep never takes it).
SWEEP_LOCK = Path(tempfile.gettempdir()) / "arena-sweep.lock"
# The folders of shared warm pools (sandbox/pool.py, one per deployment, user and PID namespace on a host): an
# entry per container, locked while a match uses it. They stay, empty, once their containers are gone.
SHARE_PREFIX = "arena-warm-"
READ_CHUNK = 1 << 16
# How long to wait for the rest of stderr and the exit status once the bot's stdout has closed.
DEATH_GRACE = 2.0
# close() ends the harness's input and collects its stderr to the end (Docker delivers stdout and
# stderr independently: the last prints can trail the last answer), waiting at most this long.
CLOSE_DRAIN = 0.25


def _start_time(pid: int) -> str | None:
    """The process's start time, or None if it is gone or a zombie (dead, only not yet reaped)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    if len(fields) < 20 or fields[0] == "Z":
        return None
    return fields[19]


def owner_token() -> str:
    """This worker process, as "host/PID namespace:pid:start time": a reused pid does not pass for a live
    worker, nor does a worker of another PID namespace (a container) that shares the host name, a /tmp or
    the Docker engine. A worker of an earlier release, which knows no namespace, sees another host in it:
    it leaves alone what this one made."""
    return f"{socket.gethostname()}/{pid_namespace()}:{os.getpid()}:{_start_time(os.getpid())}"


def _owner_parts(token: str) -> tuple[bool, str, str]:
    """(whether `token` names a process this one can judge: same host and PID namespace, its pid, start)."""
    place, _, rest = token.partition(":")
    pid, _, start = rest.partition(":")
    host, _, namespace = place.partition("/")
    return host == socket.gethostname() and namespace in ("", pid_namespace()), pid, start


def owner_alive(token: str) -> bool:
    """Whether the worker named by `owner_token` still runs; workers this process cannot judge (on other
    hosts, or in other PID namespaces) count as alive."""
    judged, pid, start = _owner_parts(token)
    return not judged or (pid.isdigit() and _start_time(int(pid)) == start)


def local_owner_pid(token: str) -> int | None:
    """The pid of the worker named by `owner_token`, if it is a process of this host and PID namespace."""
    judged, pid, _ = _owner_parts(token)
    return int(pid) if judged and pid.isdigit() else None


def process_name(pid: int) -> str:
    """A process of this host as "pid.start time-nsPID namespace" (a reused pid names another process)."""
    return f"{pid}.{_start_time(pid)}-ns{pid_namespace()}"


def local_owner_prefix() -> str:
    """This worker as "pid.start time-nsPID namespace", the prefix of the names of the files and cgroups
    it makes (the part before the first "-" is what an earlier release wrote and reads)."""
    return process_name(os.getpid())


def local_owner_alive(name: str) -> bool:
    """Whether the worker whose `local_owner_prefix` starts `name` (then a "-") still runs."""
    owner, _, rest = name.partition("-")
    pid, _, start = owner.partition(".")
    marked = re.match(r"ns(\d+)-", rest)
    namespace = f"/{marked.group(1)}" if marked else ""
    return owner_alive(f"{socket.gethostname()}{namespace}:{pid}:{start}")


def pid_namespace() -> str:
    """This process's PID namespace (its inode number): pids mean something only within one."""
    try:
        return os.readlink("/proc/self/ns/pid").partition("[")[2].rstrip("]") or "0"
    except OSError:
        return "0"


@contextmanager
def one_sweep_at_a_time() -> Iterator[None]:
    """Hold this host's sweep lock. Every worker sweeps as it starts: without the lock two starting together
    race to remove the same leftovers, and one returns while the other is still removing them."""
    lock = os.open(SWEEP_LOCK, os.O_RDONLY | os.O_CREAT, 0o644)
    try:
        if os.fstat(lock).st_uid == os.geteuid():
            os.fchmod(lock, 0o644)  # readable by the workers of other users whatever this one's umask
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
    finally:
        os.close(lock)  # releases the lock


def remove_stale_staging() -> list[Path]:
    """Delete the bot-file copies of workers on this host that are gone (but not a shared warm container's
    that a live process is using, see `shared_entries_in_use`)."""
    removed = []
    in_use = {entry["staging"] for entry in shared_entries_in_use()}
    for staging in Path(tempfile.gettempdir()).glob(f"{STAGING_PREFIX}*"):
        if stale_staging(staging, in_use):
            shutil.rmtree(staging, ignore_errors=True)
            removed.append(staging)
    return removed


def stale_staging(staging: Path, in_use: set[str]) -> bool:
    """Whether `staging` (a folder `make_staging` named, which may be deleted already) is a gone worker's
    and no live process's shared warm container uses it."""
    return (staging.parent == Path(tempfile.gettempdir()) and staging.name.startswith(STAGING_PREFIX)
            and not local_owner_alive(staging.name[len(STAGING_PREFIX):]) and str(staging) not in in_use)


def _shared_entries(container_id: str = "") -> list[Path]:
    return list(Path(tempfile.gettempdir()).glob(f"{SHARE_PREFIX}*/*.{container_id[:12] or '*'}"))


def shared_entries_in_use(container_id: str = "") -> list[dict]:
    """The entries of shared warm containers (of `container_id`, or all) that a live process holds."""
    held = []
    for entry in _shared_entries(container_id):
        try:
            fd = os.open(entry, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                held.append(json.loads(os.pread(fd, 1 << 16, 0)))
            except ValueError:
                pass
        finally:
            os.close(fd)
    return held


def waiting_in_shared_pool(container_id: str) -> bool:
    """Whether the container waits, idle, in a shared warm pool's folder: entered there (its entry written
    whole), and no process holding it (starting it, or playing a match in it)."""
    entries = [entry for entry in _shared_entries(container_id) if not entry.name.startswith(".")]
    return bool(entries) and not shared_entries_in_use(container_id)


def forget_shared_entries(container_id: str) -> None:
    """The container is gone: so are its entries in shared warm pools' folders."""
    for entry in _shared_entries(container_id):
        entry.unlink(missing_ok=True)


def make_staging(bot: bytes, extra: tuple[Path, ...] = ()) -> Path:
    """A private, read-only folder with the bot (bot.py), the harness and `extra` files: all the sandbox
    sees from the host."""
    staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{local_owner_prefix()}-"))
    (staging / "bot.py").write_bytes(bot)
    for path in (HARNESS, *extra):
        shutil.copyfile(path, staging / path.name)
    for path in staging.iterdir():
        path.chmod(0o444)
    staging.chmod(0o755)
    return staging


class SandboxUnavailable(RuntimeError):
    """The sandbox itself could not be started (engine down, image missing): not the bot's fault."""


class CappedLog:
    """A bounded copy of a stream: its first and last halves, with how much was cut in between."""

    def __init__(self, limit: int):
        self.half = max(limit // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.cut = 0

    def write(self, data: bytes) -> None:
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        excess = len(self.tail) - self.half
        if excess > 0:
            del self.tail[:excess]
            self.cut += excess

    def text(self) -> str:
        middle = f"\n[... {self.cut} bytes cut ...]\n" if self.cut else ""
        return bytes(self.head).decode(errors="replace") + middle + bytes(self.tail).decode(errors="replace")


class Channel(ABC):
    """The harness's stdin (to write) and its stdout and stderr (to read), however they are carried."""

    @abstractmethod
    def send(self, data: bytes, deadline: float) -> None:
        """Write all of `data` by `deadline` (time.monotonic); TimeoutError if the bot does not read it."""

    @abstractmethod
    def receive(self, timeout: float) -> list[tuple[str, bytes]]:
        """What arrived within `timeout`, as ("stdout" | "stderr", chunk); an empty chunk marks the end."""

    @abstractmethod
    def end_input(self) -> None:
        """Close the harness's stdin (it then exits), keeping its output readable."""

    @abstractmethod
    def close(self) -> None:
        """Release the channel (idempotent)."""


def write_by(fd: int, data: bytes, deadline: float, write) -> None:
    view = memoryview(data)
    while view:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the bot did not read its input in time")
        _, writable, _ = select.select([], [fd], [], remaining)
        if writable:
            try:
                view = view[write(view):]
            except BlockingIOError:
                continue


class PipeChannel(Channel):
    """The harness's three pipes, held by their descriptors: its stdin's write end, its stdout's and its
    stderr's read ends. The `none` and `bwrap` backends' child process (`of_process`), and a warm
    container's harness (sandbox/pool.py), whose pipes the worker makes and hands to the container."""

    def __init__(self, stdin: int, stdout: int, stderr: int):
        self.stdin: int | None = stdin
        os.set_blocking(stdin, False)
        self.streams = {stdout: "stdout", stderr: "stderr"}

    @classmethod
    def of_process(cls, process) -> "PipeChannel":
        """The pipes of a child started with stdin, stdout and stderr=PIPE, taken over from its file objects."""
        fds = []
        for stream in (process.stdin, process.stdout, process.stderr):
            fds.append(os.dup(stream.fileno()))
            stream.close()
        return cls(*fds)

    def send(self, data: bytes, deadline: float) -> None:
        fd = self.stdin
        if fd is None:
            raise BrokenPipeError(errno.EPIPE, "the harness's input is closed")
        write_by(fd, data, deadline, lambda view: os.write(fd, view))

    def receive(self, timeout: float) -> list[tuple[str, bytes]]:
        if not self.streams:
            time.sleep(max(timeout, 0))
            return []
        readable, _, _ = select.select(list(self.streams), [], [], max(timeout, 0))
        return self._read(readable)

    def _read(self, readable: list[int]) -> list[tuple[str, bytes]]:
        chunks = []
        for fd in readable:
            if fd not in self.streams:
                continue
            try:
                chunk = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                continue
            chunks.append((self.streams[fd], chunk))
            if not chunk:
                del self.streams[fd]
                os.close(fd)
        return chunks

    def end_input(self) -> None:
        self._close_input()

    def _close_input(self) -> None:
        if self.stdin is not None:
            os.close(self.stdin)
            self.stdin = None

    def close(self) -> None:
        self._close_input()
        for fd in self.streams:
            os.close(fd)
        self.streams = {}


def describe_exit(status: int | None) -> str:
    """A reader's account of an exit status: negative for a signal (as subprocess reports it)."""
    if status is None:
        return "closed its protocol channel"
    if status < 0:
        try:
            return f"was killed by signal {signal.Signals(-status).name}"
        except ValueError:
            return f"was killed by signal {-status}"
    return f"exited with status {status}"


class SandboxPlayer(ABC):
    """A `games.referee.Player` whose bot runs in a sandbox and speaks the line protocol."""

    backend: str

    def __init__(self, bot_path: str, *, name: str | None = None, limits: Limits | None = None):
        self.bot_path = Path(bot_path)
        self.name = name or self.bot_path.stem
        self.limits = limits or Limits()
        self.bank = self.limits.bank
        # Seconds charged to the bot for its decisions (see `_exchange`), and how many it made.
        self.think_time = 0.0
        self.decisions = 0
        self._seq = 0
        self._stdout = bytearray()
        self._stdout_open = True
        self._stderr_open = True
        self._stderr = CappedLog(self.limits.log_bytes)
        self._notes: list[str] = []
        self._channel: Channel | None = None
        self._staging: Path | None = None
        self._cpu_mark: float | None = None
        self._closed = False
        # Set by discard(): the match ended by an exception, so a warm container is not kept (sandbox/pool.py).
        self.discarded = False
        # What names this sandbox on the host (container id, cgroup name), once started.
        self.sandbox_id: str | None = None

    # --- what a backend provides ---------------------------------------------------------------------
    @abstractmethod
    def _launch(self, staging: Path | None) -> Channel:
        """Start the sandbox running the harness on `staging`/bot.py; SandboxUnavailable if it cannot."""

    @abstractmethod
    def _cpu_seconds(self) -> float | None:
        """CPU seconds the whole sandbox used so far (all its processes and threads), None if unknown."""

    @abstractmethod
    def _exit_status(self, timeout: float) -> tuple[int | None, bool]:
        """(exit status or None if still running after `timeout`, whether it ran out of memory)."""

    @abstractmethod
    def _destroy(self) -> None:
        """Kill every process of the sandbox and free what it held; safe to call again."""

    # --- the Player interface ------------------------------------------------------------------------
    def start(self, info: dict) -> None:
        self._staging = self._stage()
        try:
            self._channel = self._launch(self._staging)
        except BaseException:
            self.close()  # the referee only closes players whose start it saw through
            raise
        self._cpu_mark = self._cpu_seconds()
        self._exchange({"type": "setup", "info": info}, "ready", self.limits.setup, use_bank=False)

    def act(self, observation: dict) -> Any:
        if self._channel is None:
            raise BotFailure(Verdict.CRASH, "the bot was not started")
        reply = self._exchange({"type": "act", "observation": observation}, "action", self.limits.decision,
                               use_bank=True)
        self.decisions += 1
        return reply.action

    def close(self) -> str:
        if not self._closed:
            self._closed = True
            try:
                if self._channel is not None:
                    try:
                        self._channel.end_input()
                        self._drain(time.monotonic() + CLOSE_DRAIN)
                    finally:
                        self._channel.close()
            finally:  # the sandbox goes, whatever reading its last words raised
                try:
                    self._destroy()
                finally:
                    if self._staging is not None:
                        shutil.rmtree(self._staging, ignore_errors=True)
        return self.log()

    def discard(self) -> str:
        """close() for a match that ended by an exception: nothing of this sandbox serves another match."""
        self.discarded = True
        return self.close()

    def log(self) -> str:
        """The bot's stderr (first and last halves of it) followed by what went wrong, if anything."""
        return storable_text("\n".join([self._stderr.text(), *self._notes]).strip("\n"))

    # --- the protocol --------------------------------------------------------------------------------
    def _stage(self) -> Path | None:
        """The folder the sandbox sees (see `make_staging`); None where the sandbox keeps its own (warm pool)."""
        return make_staging(self._read_bot())

    def _read_bot(self) -> bytes:
        try:
            return self.bot_path.read_bytes()
        except OSError as error:
            raise BotFailure(Verdict.CRASH, f"cannot read the bot file: {error}") from error

    def _exchange(self, message: dict, reply_type: ReplyType, allowance: float, *, use_bank: bool) -> Reply:
        """Send `message`, wait for its reply and charge the time it took.

        The charge is the CPU the sandbox used since the last reply (computing between turns on spare
        threads) plus the longer of the wall time and the CPU time of this decision. Over `allowance` it
        draws on the bank (when `use_bank`); a decision with no time left is a timeout.
        """
        seq = self._seq
        self._seq += 1
        cpu_before = self._cpu_seconds()
        idle_cpu = cpu_before - self._cpu_mark if cpu_before is not None and self._cpu_mark is not None else 0.0
        spare = self.bank if use_bank else 0.0
        available = allowance + spare - idle_cpu
        if available <= 0:
            raise self._timeout(f"used {idle_cpu:.2f}s of CPU between turns, more than the {allowance:g}s per "
                               f"decision and the {spare:.2f}s left in its bank")
        began = time.monotonic()
        deadline = began + available
        data = json.dumps({"v": PROTOCOL_VERSION, "seq": seq, **message}, separators=(",", ":")).encode() + b"\n"
        try:
            self._channel.send(data, deadline)
        except TimeoutError:
            raise self._timeout("did not read its input within its time")
        except OSError as error:
            if error.errno not in (errno.EPIPE, errno.ECONNRESET):
                raise
            raise self._death() from None
        bank = f" and the {spare:.2f}s left in its bank" if spare else ""
        between = f", less the {idle_cpu:.2f}s of CPU it used between turns" if idle_cpu >= 0.01 else ""
        try:
            reply = self._read_reply(seq, reply_type, deadline, f"did not answer within {allowance:g}s{bank}{between}")
        except BotFailure:
            # Reading and checking what it sent is its time, its verdict's too (a crafted line is charged).
            self.think_time += idle_cpu + time.monotonic() - began
            raise
        wall = time.monotonic() - began
        cpu_after = self._cpu_seconds()
        cpu = cpu_after - cpu_before if cpu_after is not None and cpu_before is not None else 0.0
        self._cpu_mark = cpu_after
        charge = idle_cpu + max(wall, cpu)
        self.think_time += charge
        overage = charge - allowance
        if overage > 0:
            self.bank -= overage if use_bank else 0.0
            if not use_bank or self.bank < 0:
                raise self._timeout(f"was charged {charge:.2f}s ({wall:.2f}s wall, {cpu:.2f}s CPU, {idle_cpu:.2f}s "
                                   f"CPU between turns) against {allowance:g}s and a bank of {spare:.2f}s")
        return reply

    def _read_reply(self, seq: int, reply_type: ReplyType, deadline: float, late: str) -> Reply:
        """The reply to message `seq`; a timeout saying `late` if none came by `deadline`; any other line
        the protocol does not allow is a protocol verdict (sandbox/protocol.py reads them all)."""
        while True:
            line = self._next_line(deadline, late)
            try:
                reply = read_reply(line, seq, reply_type)
            except ProtocolViolation as violation:
                raise self._protocol(str(violation)) from None
            if time.monotonic() > deadline:
                # Checking its line is part of its clock: a line it sent in time but that took past its
                # deadline to read is its timeout, the same as an answer that came late.
                raise self._timeout(f"{late} (its {len(line)}-byte line was read and checked past its time)")
            if reply is None:
                continue  # a late answer to an earlier message is never this decision's answer
            if reply.type == "error":
                raise self._bot_error(reply)
            return reply

    def _next_line(self, deadline: float, late: str) -> bytes:
        while True:
            newline = self._stdout.find(b"\n", 0, self.limits.message_bytes + 1)
            if newline >= 0:
                line = bytes(self._stdout[:newline])
                del self._stdout[:newline + 1]
                return line
            if len(self._stdout) > self.limits.message_bytes:
                raise self._protocol(f"sent a line longer than {self.limits.message_bytes} bytes")
            if not self._stdout_open:
                raise self._death()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._timeout(late)
            self._pump(remaining)

    def _pump(self, timeout: float) -> bool:
        """Move what arrives within `timeout` into the buffers; False if nothing did."""
        chunks = self._channel.receive(timeout)
        for stream, chunk in chunks:
            if stream == "stdout":
                # Past the longest allowed line the rest is garbage: judged, never kept.
                if len(self._stdout) <= self.limits.message_bytes:
                    self._stdout += chunk
                self._stdout_open = bool(chunk)
            else:
                self._stderr.write(chunk)
                self._stderr_open = bool(chunk)
        return bool(chunks)

    def _drain(self, deadline: float) -> None:
        """Collect the bot's stderr to its end, or until `deadline` if it does not end."""
        while self._stderr_open and time.monotonic() < deadline:
            self._pump(deadline - time.monotonic())

    # --- verdicts ------------------------------------------------------------------------------------
    def _note(self, text: str) -> None:
        limit = self.limits.traceback_bytes
        self._notes.append(text if len(text) <= limit else f"[... cut ...]\n{text[-limit:]}")

    def _failure(self, verdict: Verdict, message: str) -> BotFailure:
        message = storable_text(message)  # it may quote what the bot sent
        self._note(f"[arena] {verdict.value}: {message}")
        return BotFailure(verdict, message)

    def _timeout(self, message: str) -> BotFailure:
        return self._failure(Verdict.TIMEOUT, message)

    def _protocol(self, message: str) -> BotFailure:
        return self._failure(Verdict.PROTOCOL, message)

    def _bot_error(self, reply: Reply) -> BotFailure:
        self._note(reply.error.rstrip("\n"))
        lines = reply.error.strip().splitlines()
        return self._failure(reply.verdict, lines[-1] if lines else "the bot failed")

    def _death(self) -> BotFailure:
        """The harness's stdout ended: find out how the bot died."""
        self._drain(time.monotonic() + DEATH_GRACE)
        status, out_of_memory = self._exit_status(DEATH_GRACE)
        if out_of_memory:
            return self._failure(Verdict.MEMORY, f"ran out of memory (limit {self.limits.memory_mb} MiB) and "
                                                 f"{describe_exit(status)}")
        return self._failure(Verdict.CRASH, describe_exit(status))
