"""The Docker backends' players: `docker-warm`, started containers kept warm and reused for many matches of
one bot version, and the cold `docker`, a container of its own for each match (`DockerPlayer`).

    pool = WarmPool(max_containers=8, idle_seconds=300)
    player = pool.player("/uploads/alice/v3.py", key=f"version:{sha256}:{owner_id}", limits=limits)

Every container is made alike (sandbox/docker_backend.py's `container_config`): its PID 1 is
sandbox/supervisor.py, which starts the harness for each match and, when the match ends, kills every
other process of the container, empties /tmp and removes IPC objects (its report is read before the
container's next match, not at the end of the last). Nothing of a match crosses Docker: the worker makes
the harness's three pipes and hands them to the supervisor over a Unix socket in the staging folder (see
supervisor.py), and speaks to the harness straight down them.

A warm container then waits, idle, for the next match of the same key, bot file contents and limits
(never another version, bot or owner). A container that did not reset cleanly, whose bot ran out of
memory, timed out or broke the protocol, or that is older than MAX_LIFETIME, is removed instead. Idle
containers are removed after `idle_seconds` (`reap`, also run at each acquire), and a pool holds at most
`max_containers` (idle and in use); past that a match gets a container of its own, removed after it, as
every match of the cold backend does.

A pool given a `share_dir` (the default pool of every Celery worker process on a host, `share_default_pool`)
shares its idle containers with the other pools of that folder: each container it keeps has an entry
there, locked (flock) by the process whose match uses it; an idle container is parked (its supervisor
waits, unconnected) and any of those processes may take it, so a bot version is warmed up once per host,
not once per pool process or per worker. A container stays its maker's: its maker removes it when
closing, and one whose maker is gone is removed by whoever used it last. Any process of the folder
removes, when it reaps, the idle containers whose idle time is up whoever made them, and those whose
maker is gone (a killed worker process: no sweep needed).

A shared pool can also start a version's container before any match wants it (`warm_up`: the platform
does it once a new version passes its validation, so that its first match finds it warm). Such a
container is like any other idle one (its idle time, its maker, the pool's bound; a full pool makes room
for it as for a match, by removing its least recently used idle container, never one in a match), and an
owner keeps at most AHEAD_PER_OWNER of them: a newer one replaces that owner's oldest, so a student who
uploads thirty versions holds two containers, not the room of the others'.
See docs/operator-sandbox.md.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import logging
import os
import select
import shutil
import signal
import socket
import stat
import struct
import tempfile
import threading
import time
from pathlib import Path

import docker.errors

from games.core import BotFailure, Verdict, cut, loads_json

from .base import (HARNESS, READ_CHUNK, SHARE_PREFIX, PipeChannel, SandboxPlayer, SandboxUnavailable, make_staging,
                   owner_alive, owner_token, pid_namespace)
from .cgroup import Cgroup
from .docker_backend import client, container_config, container_exit_status, remove_container, start_detached
from .limits import Limits
from .protocol import quote_line

logger = logging.getLogger(__name__)

SUPERVISOR = Path(__file__).with_name("supervisor.py")
SUPERVISOR_COMMAND = ["python3", "-I", "-S", "/sandbox/supervisor.py"]
WARM_LABEL = "arena.sandbox.warm"
# The socket the supervisor connects to, in the staging folder (supervisor.CONTROL inside the container).
CONTROL_SOCKET = "control.sock"
# The supervisor's events are short JSON lines; past this, what it sends is not an event.
EVENT_LINE_BYTES = 1 << 16
# Each event the supervisor sends (supervisor.py), with the type of each of its fields; none nests deeper
# than this ({"event": "reset", "left": [...]}).
EVENT_FIELDS: dict[str, dict[str, type]] = {
    "ready": {},
    "exited": {"status": int},
    "reset": {"clean": bool, "left": list},
    "reconnected": {"clean": bool, "left": list},  # a parked container taken back by a sibling process
}
EVENT_DEPTH = 2
PEER_CREDENTIALS = struct.Struct("3i")  # SO_PEERCRED: pid, uid, gid
# Reads of a finished match's pipes: two full pipe buffers' worth, and more than a dead writer can leave.
READ_ROUNDS_AT_THE_END = 8
# Starting python in a fresh container on a busy host; then the reset (its kill patience is 3 s).
READY_TIMEOUT = 20.0
RESET_TIMEOUT = 6.0
# How often a pool's acquire looks in a shared folder for other processes' containers that are due to go.
SHARED_REAP_INTERVAL = 10.0
# What a start takes, in seconds, until a pool has timed its own (WarmPool.start_seconds): four seats'
# containers started at once on an idle 2-core host.
FIRST_START_ESTIMATE = 1.0
# A container is retired after this long, busy or not: well under docker_backend.MAX_AGE, past which
# cleanup_leftovers() removes any bot container whoever owns it.
MAX_LIFETIME = 3600.0
# A match that ended in one of these leaves a container that is safe to reuse (after its reset); any
# other verdict (timeout, memory, protocol) discards it.
REUSABLE_VERDICTS = (None, Verdict.CRASH, Verdict.ILLEGAL)
# The containers an owner may have started ahead of their matches (`WarmPool.warm_up`) on a host at once:
# a student's two bots (two games) each have their latest version warm; their thirtieth upload replaces
# their twenty-ninth's rather than filling the room others' uploads would warm up in.
AHEAD_PER_OWNER = 2


class Lease:
    """A shared pool's hold on one of its containers: an exclusive flock of the container's entry in the
    pool's folder, held by the process whose match uses it (and by nobody while it is idle)."""

    def __init__(self, entry: Path, fd: int):
        self.entry = entry
        self.fd = fd

    @classmethod
    def take(cls, entry: Path) -> "Lease | None":
        """The lease, or None if another process holds it or the entry is gone."""
        try:
            fd = os.open(entry, os.O_RDWR | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return cls(entry, fd)

    def release(self) -> None:
        """Free the container for the next match, whoever's; the entry's time is its last use."""
        try:
            os.utime(self.entry)
        except FileNotFoundError:
            pass
        os.close(self.fd)

    def forget(self) -> None:
        """The container is being removed: its entry goes (while still held, so nobody takes it meanwhile)."""
        self.entry.unlink(missing_ok=True)
        os.close(self.fd)


class SupervisorFault(RuntimeError):
    """The supervisor sent what is none of its events. The bot cannot reach it (it is PID 1 and not
    dumpable): this is a bug of ours or a compromised container, a platform error, never a verdict."""


def parse_event(line: bytes, container_id: str) -> dict:
    """One line from the supervisor as its event, each field of its type; SupervisorFault saying what the
    line was otherwise. Bounded like a bot's line (size, then depth before parsing): whatever the line
    holds, the worker never hangs on it nor recurses into it."""
    def fault(why: str) -> SupervisorFault:
        return SupervisorFault(f"the supervisor of container {container_id[:12]} sent {why}: {quote_line(line)}")

    if len(line) > EVENT_LINE_BYTES:
        raise fault(f"a line of {len(line)} bytes, longer than any event")
    try:
        event = loads_json(line.decode("utf-8"), EVENT_DEPTH)
    except ValueError as error:  # not UTF-8, not JSON, nested too deep, NaN or Infinity
        raise fault(f"a line that is no event ({cut(str(error), 120)})") from None
    name = event.get("event") if isinstance(event, dict) else None
    fields = EVENT_FIELDS.get(name) if isinstance(name, str) else None
    if fields is None or event.keys() != {"event", *fields}:
        raise fault("no event it sends")
    # `type(...) is`: true and false are ints to Python, and a status is never a bool.
    if any(type(event[field]) is not kind for field, kind in fields.items()):
        raise fault("an event with a field of the wrong type")
    return event


class WarmContainer:
    """A started container whose PID 1 is the supervisor, its connection, and the next match's pipes."""

    def __init__(self, pool_key: tuple, staging: Path, container_id: str, pid: int, *, pooled: bool):
        self.pool_key = pool_key
        self.staging = staging
        self.id = container_id
        self.pid = pid
        self.cgroup = Cgroup.of_process(pid) if pid else None
        # The worker process that made it (it reaps it and removes it when closing its pool).
        self.maker = owner_token()
        # A shared pool's container: its entry (see `Lease`), and the lease while this process uses it.
        self.entry: Path | None = None
        self.lease: Lease | None = None
        # Its supervisor waits for a process of the pool to call it back (supervisor.park).
        self.parked = False
        # The supervisor's connection (see supervisor.py), once it has connected.
        self.control: socket.socket | None = None
        self.connected = False
        # False for a container made past the pool's bound: removed after its one match.
        self.pooled = pooled
        # Started ahead of its matches for this owner (a digest, see `WarmPool.warm_up`), if it was.
        self.ahead_of: str | None = None
        self.created = self.last_used = time.monotonic()
        self._buffer = bytearray()
        # Events read but not yet taken: what follows the end of a match belongs to its reset.
        self._events: list[dict] = []
        # The pipes of the harness waiting for the next match (handed to the supervisor already).
        self.next_channel: WarmChannel | None = None
        self.matches = 0
        # Told to reset after its last match, its report not read yet: read before it serves again.
        self.reset_pending = False

    @classmethod
    def start(cls, pool_key: tuple, bot: bytes, limits: Limits, image: str, *, pooled: bool, warm: bool = True,
              share_dir: Path | None = None, ahead_of: str | None = None) -> "WarmContainer":
        """A started container, its supervisor connected and its first harness waiting; `warm` labels it as
        a warm pool's (WARM_LABEL: a hash of its key); with `share_dir`, entered there (`ahead_of` the owner
        it was started for ahead of its matches, if so) and leased."""
        staging = make_staging(bot, (SUPERVISOR,))
        config = container_config(image, staging, limits, command=SUPERVISOR_COMMAND,
                                  labels={WARM_LABEL: warm_label(pool_key[0])} if warm else None)
        listener = _listen(staging / CONTROL_SOCKET)
        try:
            container_id, pid = start_detached(config)
        except BaseException:
            listener.close()
            shutil.rmtree(staging, ignore_errors=True)
            raise
        container = cls(pool_key, staging, container_id, pid, pooled=pooled)
        container.ahead_of = ahead_of
        try:
            container.control = _accept_supervisor(listener, pid, time.monotonic() + READY_TIMEOUT)
            container.connected = container.control is not None
            if container.connected:
                container.hand_over_next()
            ready = container.connected and container.wait_event("ready", READY_TIMEOUT) is not None
        except BaseException:
            container.remove()
            raise
        finally:
            listener.close()
            (staging / CONTROL_SOCKET).unlink(missing_ok=True)  # nothing in the folder to connect to any more
        if not ready:
            container.remove()
            raise SandboxUnavailable(f"the supervisor of container {container_id[:12]} did not start")
        if share_dir is not None and pooled:
            container.enter(share_dir)
        return container

    def enter(self, share_dir: Path) -> None:
        """Put the container in a shared pool's folder, leased to this process (made again if a sweep of an
        earlier release took it for a dead worker's, empty); if it is not private, the container is not
        shared."""
        try:
            make_private_folder(share_dir)
        except (OSError, SandboxUnavailable) as error:
            logger.warning("container %s is not shared: %s", self.id[:12], error)
            return
        entry = share_dir / f"{pool_digest(self.pool_key)}.{self.id[:12]}"
        partial = entry.with_name(f".{entry.name}")
        partial.write_text(json.dumps({"id": self.id, "pid": self.pid, "staging": str(self.staging),
                                       "maker": self.maker, "created": time.time(), "ahead_of": self.ahead_of}))
        self.lease = Lease.take(partial)
        partial.rename(entry)
        self.lease.entry = self.entry = entry

    @classmethod
    def adopt(cls, entry: Path, pool_key: tuple) -> "WarmContainer | None":
        """Another process's idle container from a shared pool's folder, leased to this one (and parked);
        None if it is in use. One that is gone is removed, entry and all."""
        lease = Lease.take(entry)
        if lease is None:
            return None
        try:
            made = json.loads(entry.read_text())
        except (OSError, ValueError):
            lease.forget()
            return None
        container = cls(pool_key, Path(made["staging"]), made["id"], made["pid"], pooled=True)
        container.maker, container.entry, container.lease, container.parked = made["maker"], entry, lease, True
        container.ahead_of = made.get("ahead_of")
        container.created = time.monotonic() - (time.time() - made["created"])
        if not container.running():
            container.remove()
            return None
        return container

    def running(self) -> bool:
        """Whether its supervisor is still the process it names (a pid is reused once its container is gone)."""
        try:
            return self.id in Path(f"/proc/{self.pid}/cgroup").read_text()
        except OSError:
            return False

    def take_lease(self) -> bool:
        """Lease the container to this process (always, outside a shared pool); False if another has it."""
        if self.entry is None:
            return True
        self.lease = Lease.take(self.entry)
        return self.lease is not None or not self.entry.exists()  # (gone: removed by another; ours to finish)

    def leave(self) -> None:
        """Back to a shared pool, parked: the next match may be another process's (nothing outside one)."""
        if self.lease is None:
            return
        if self.connected and not self.parked:  # (taken, then not used: a match decided before it began)
            self.park()
        if self.next_channel is not None:
            self.next_channel.close()
            self.next_channel = None
        self.control.close()
        self.connected = False
        self.lease.release()
        self.lease = None

    def park(self) -> None:
        """End the match and reset, leaving the connection (`!park`, supervisor.py)."""
        self.parked = True
        self.control.sendall(b"!park\n")

    def call_back(self) -> bool:
        """Connect again to the parked supervisor (listen, send it SIGUSR1, accept) and start this match's
        harness; False if it did not come or its reset was not clean. The harness's pipes go with the first
        line, ahead of the reset's report (one exchange less on the way to the match): if the report is not
        clean, the container is removed before anything of the match is sent."""
        listener = _listen(self.staging / CONTROL_SOCKET)
        try:
            if not self._wake():
                return False
            self.control = _accept_supervisor(listener, self.pid, time.monotonic() + RESET_TIMEOUT)
        finally:
            listener.close()
            (self.staging / CONTROL_SOCKET).unlink(missing_ok=True)
        self.connected = self.control is not None
        if not self.connected:
            return False
        self._buffer.clear()
        self._events.clear()
        self.parked = False
        self.hand_over_next()
        report = self.wait_event("reconnected", RESET_TIMEOUT)
        if report is None or not report["clean"]:
            logger.warning("container %s did not reset cleanly: %s", self.id[:12],
                           "no report" if report is None else report["left"])
            return False
        return self.wait_event("ready", READY_TIMEOUT) is not None

    def _wake(self) -> bool:
        if not self.running():
            return False
        try:
            os.kill(self.pid, signal.SIGUSR1)
        except PermissionError:  # (a worker that is not root: the engine signals it)
            try:
                client().api.kill(self.id, signal="SIGUSR1")
            except docker.errors.DockerException:
                return False
        except ProcessLookupError:
            return False
        return True

    def hand_over_next(self) -> None:
        """Make the next match's harness pipes and hand the supervisor its ends (`!next`, supervisor.py):
        it ends the current match, if any, resets and starts the next harness on them."""
        stdin, to_harness = os.pipe()
        from_harness, stdout = os.pipe()
        errors, stderr = os.pipe()
        try:
            socket.send_fds(self.control, [b"!next\n"], [stdin, stdout, stderr])
        except OSError:
            for fd in (to_harness, from_harness, errors):
                os.close(fd)
            raise
        finally:
            for fd in (stdin, stdout, stderr):
                os.close(fd)
        self.next_channel = WarmChannel(self, to_harness, from_harness, errors)

    def read_events(self, timeout: float) -> bool:
        """Take in the supervisor's events that arrive within `timeout`; False once its connection ended;
        SupervisorFault for anything else it sends (see parse_event)."""
        if not self.connected:
            return False
        readable, _, _ = select.select([self.control], [], [], max(timeout, 0))
        if not readable:
            return True
        try:
            data = self.control.recv(READ_CHUNK)  # (descriptors sent with it are dropped by the kernel)
        except BlockingIOError:
            return True
        except OSError:
            data = b""
        if not data:
            self.connected = False
            return False
        self._buffer += data
        while (newline := self._buffer.find(b"\n")) >= 0:
            line = bytes(self._buffer[:newline])
            del self._buffer[:newline + 1]
            self._events.append(parse_event(line, self.id))
        if len(self._buffer) > EVENT_LINE_BYTES:
            raise SupervisorFault(f"the supervisor of container {self.id[:12]} sent {len(self._buffer)} bytes "
                                  "without ending a line, longer than any event")
        return self.connected

    def take_event(self, name: str) -> dict | None:
        """The first event `name` read so far, taken with the others before it; None if none was read."""
        for index, found in enumerate(self._events):
            if found.get("event") == name:
                del self._events[:index + 1]
                return found
        return None

    def wait_event(self, name: str, timeout: float) -> dict | None:
        """Read until the supervisor's event `name` (dropping the others before it); None if it does not come."""
        deadline = time.monotonic() + timeout
        while True:
            if (found := self.take_event(name)) is not None:
                return found
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.read_events(remaining):
                return None

    def quiet(self) -> bool:
        """Idle as it should be: its last match's reset done and clean, its connection open, no event and
        no output of its waiting harness since. The reset's report is awaited here rather than when the
        match ended: the match's result is recorded meanwhile, and by the next match of this bot the
        reset is long done."""
        if self.parked:
            self.reset_pending = False
            try:
                if not self.call_back():
                    return False
            except OSError:
                return False
        if self.reset_pending:
            self.reset_pending = False
            reset = self.wait_event("reset", RESET_TIMEOUT)
            if reset is None or not reset["clean"]:
                logger.warning("container %s did not reset cleanly: %s", self.id[:12],
                               "no report" if reset is None else reset["left"])
                return False
        if not self.read_events(0) or self._events or self._buffer or self.next_channel is None:
            return False
        waiting, _, _ = select.select(list(self.next_channel.streams), [], [], 0)
        return not waiting

    def take_channel(self) -> "WarmChannel":
        """The pipes of the harness waiting for this match."""
        channel, self.next_channel = self.next_channel, None
        if channel is None:
            raise SandboxUnavailable(f"container {self.id[:12]} has no harness waiting")
        return channel

    def oom_kills(self) -> int:
        return self.cgroup.oom_kills() if self.cgroup else 0

    def remove(self) -> None:
        if self.lease is not None:
            self.lease.forget()
            self.lease = None
        elif self.entry is not None:
            self.entry.unlink(missing_ok=True)  # (its entry was gone already: removed by another process)
        if self.next_channel is not None:
            self.next_channel.close()
            self.next_channel = None
        if self.control is not None:
            self.control.close()  # the supervisor sees its worker go and ends the container itself
            self.connected = False
        if self.cgroup is not None:
            self.cgroup.close()
        remove_container(self.id)
        shutil.rmtree(self.staging, ignore_errors=True)

    def idle_seconds(self) -> float:
        """How long since its last match ended (in a shared pool, whichever process's match it was)."""
        try:
            return time.time() - self.entry.stat().st_mtime if self.entry is not None else \
                time.monotonic() - self.last_used
        except FileNotFoundError:
            return float("inf")  # removed by another process: nothing left to wait for


def warm_label(key: str) -> str:
    """The WARM_LABEL of the containers kept for `key` (a hash: the key names an owner and a version)."""
    return hashlib.sha256(repr(key).encode()).hexdigest()[:16]


def pool_digest(pool_key: tuple) -> str:
    """A pool key's name in a shared pool's folder (the same in every process)."""
    return hashlib.sha256(repr(pool_key).encode()).hexdigest()[:24]


def _listen(path: Path) -> socket.socket:
    """The socket the supervisor will connect to, open to the container's user (the folder is read-only to it)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(path))
        path.chmod(0o666)  # connecting takes write permission on the socket file
        listener.listen(1)
    except OSError:
        listener.close()
        raise
    return listener


def _accept_supervisor(listener: socket.socket, pid: int, deadline: float) -> socket.socket | None:
    """The container's supervisor's connection, or None if it did not connect by `deadline`.

    Only the container's PID 1 may be the worker's peer (by its credentials; a peer in a PID namespace
    this worker cannot see, as when the worker itself runs in a container, shows as pid 0). Until the
    socket file is removed, only host processes and this container, whose only process is the supervisor
    (no bot code runs before its harness's setup), can see the folder it is in."""
    while (remaining := deadline - time.monotonic()) > 0:
        readable, _, _ = select.select([listener], [], [], remaining)
        if not readable:
            break
        connection, _ = listener.accept()
        peer_pid = PEER_CREDENTIALS.unpack(connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                                 PEER_CREDENTIALS.size))[0]
        if peer_pid in (pid, 0):
            connection.setblocking(False)
            return connection
        logger.warning("refused a connection to %s from pid %d, not the container's init (pid %d)",
                       listener.getsockname(), peer_pid, pid)
        connection.close()
    return None


class WarmChannel(PipeChannel):
    """One match's harness pipes in a warm container, until the supervisor's "exited" event: every bot
    process is dead by then, so what the bot wrote is in the pipes already, and nothing more can come."""

    def __init__(self, container: WarmContainer, stdin: int, stdout: int, stderr: int):
        super().__init__(stdin, stdout, stderr)
        for fd in self.streams:
            os.set_blocking(fd, False)
        self.container = container
        self.exit: dict | None = None
        self.input_ended = False

    def receive(self, timeout: float) -> list[tuple[str, bytes]]:
        container = self.container
        if not self.streams or not container.connected:
            return super().receive(timeout)
        readable, _, _ = select.select([*self.streams, container.control], [], [], max(timeout, 0))
        chunks = self._read(readable)
        if container.control in readable:
            container.read_events(0)
            self.exit = container.take_event("exited")
            if self.exit is not None or not container.connected:
                chunks += self._read_to_the_end()
        return chunks

    def _read_to_the_end(self) -> list[tuple[str, bytes]]:
        """What the pipes hold, and then their end: the match is over (or its container is gone)."""
        chunks = []
        for _ in range(READ_ROUNDS_AT_THE_END):  # (a process the reset could not kill may still be writing)
            readable, _, _ = select.select(list(self.streams), [], [], 0)
            if not readable:
                break
            chunks += self._read(readable)
        chunks += [(stream, b"") for stream in self.streams.values()]
        for fd in self.streams:
            os.close(fd)
        self.streams = {}
        return chunks

    def end_input(self) -> None:
        """Close the harness's stdin (it exits) and tell the supervisor to reset for the next match."""
        if self.input_ended:
            return
        self.input_ended = True
        self._close_input()
        container = self.container
        if not container.pooled:
            return  # its one match is over: the container is removed, with whatever the bot left running
        try:
            if container.lease is not None:
                container.park()  # in a shared pool, the next match's pipes are its process's to make
            else:
                container.hand_over_next()
        except OSError:
            pass  # the reset will not be reported: the container is discarded


class WarmPlayer(SandboxPlayer):
    backend = "docker-warm"

    def __init__(self, pool: "WarmPool | OneMatchPool", bot_path: str, *, key: str, name: str | None = None,
                 limits: Limits | None = None):
        super().__init__(bot_path, name=name, limits=limits)
        self.pool = pool
        self.key = key
        self._bot: bytes | None = None
        self._container: WarmContainer | None = None
        self._warm_channel: WarmChannel | None = None
        # What prepare() got ahead of start: (container, reused), or what stopped it, raised again at start.
        self._prepared: tuple[WarmContainer, bool] | Exception | None = None
        self._oom_mark = 0
        # The first verdict this player gave its bot: it decides whether the container can be reused.
        self.verdict: Verdict | None = None
        # Whether this match ran in a container an earlier match had used (for tests and benchmarks).
        self.reused = False

    def prepare(self) -> None:
        """Take this match's container now, before the referee starts the bot (see games.referee._prepare:
        the seats' containers start side by side). The bot itself is started by `start` as ever."""
        if self._prepared is not None or self._closed:
            return
        try:
            self._bot = self._read_bot()
            self._prepared = self.pool._acquire(self.key, self._bot, self.limits)
        except Exception as error:  # noqa: BLE001 - start() raises it, where the referee expects failures
            self._prepared = error

    def _stage(self) -> None:
        if self._bot is None:
            self._bot = self._read_bot()  # the very bytes the pool key's digest is made of
        return None

    def _launch(self, staging: None) -> PipeChannel:
        prepared, self._prepared = self._prepared, None
        if isinstance(prepared, Exception):
            raise prepared
        self._container, self.reused = prepared or self.pool._acquire(self.key, self._bot, self.limits)
        self.sandbox_id = self._container.id
        try:
            self._oom_mark = self._container.oom_kills()
            self._warm_channel = self._container.take_channel()
        except BaseException:
            self.pool._release(self._container, reusable=False)
            self._container = None
            raise
        return self._warm_channel

    def _cpu_seconds(self) -> float | None:
        container = self._container
        return container.cgroup.cpu_seconds() if container is not None and container.cgroup else None

    def _ran_out_of_memory(self, container: WarmContainer | None) -> bool:
        """Whether the kernel's OOM killer struck in the container during this match."""
        return container is not None and container.oom_kills() > self._oom_mark

    def _exit_status(self, timeout: float) -> tuple[int | None, bool]:
        channel = self._warm_channel
        if channel is not None and channel.exit is None and channel.container.connected:
            # The harness's pipes end as it dies; the supervisor's word on how comes a moment later.
            channel.exit = channel.container.wait_event("exited", timeout)
        if channel is not None and channel.exit is not None:
            return channel.exit.get("status"), self._ran_out_of_memory(self._container)
        # No "exited" event: the supervisor itself is gone (the OOM killer, the engine): ask Docker.
        return container_exit_status(self.sandbox_id, timeout)

    def _failure(self, verdict: Verdict, message: str) -> BotFailure:
        self.verdict = self.verdict or verdict
        return super()._failure(verdict, message)

    def _destroy(self) -> None:
        prepared, self._prepared = self._prepared, None
        if isinstance(prepared, tuple):  # prepared for a match that ended before this bot started
            self.pool._release(prepared[0], reusable=not self.discarded)
        container, self._container = self._container, None
        if container is None:
            return
        # A match that ended by an exception may have left its bot anywhere (computing, writing): never reused.
        if self.discarded or self.verdict not in REUSABLE_VERDICTS or self._ran_out_of_memory(container):
            self.pool._release(container, reusable=False)  # no use waiting for its reset
            return
        self._warm_channel.end_input()
        container.reset_pending = True  # checked (quiet()) before the container serves another match
        self.pool._release(container, reusable=True)


class WarmPool:
    """The warm containers of one worker process, by key; see the module's docstring."""

    def __init__(self, *, max_containers: int = 8, idle_seconds: float = 300.0, image: str | None = None,
                 share_dir: Path | None = None):
        if max_containers < 1:
            raise ValueError("a warm pool holds at least one container")
        self.max_containers = max_containers
        self.idle_seconds = idle_seconds
        self.image = image
        # The folder of the pools this one shares its idle containers with (see the module), if any.
        self.share_dir = share_dir
        self._idle: list[WarmContainer] = []
        self._busy: set[WarmContainer] = set()
        # Containers being started for the pool (see _start), not yet busy.
        self._starting = 0
        self._lock = threading.Lock()
        self._closed = False
        # When an acquire next looks in the shared folder for others' containers that are due to go.
        self._next_shared_reap = 0.0
        # How long a start takes here, lately (a moving average, with the host's load and the starts beside it).
        self.start_seconds = FIRST_START_ESTIMATE

    def player(self, bot_path: str, *, key: str, name: str | None = None, limits: Limits | None = None
               ) -> WarmPlayer:
        """A Player running the bot at `bot_path` in a warm container kept for `key` (see the module)."""
        if not isinstance(key, str) or not key:
            raise ValueError("a warm player needs a key naming its bot version and owner, e.g. "
                             "'version:<sha256 of the code>:<owner id>'")
        return WarmPlayer(self, bot_path, key=key, name=name, limits=limits)

    def idle_containers(self) -> list[str]:
        """The ids of the containers waiting for a match."""
        with self._lock:
            return [container.id for container in self._idle]

    def settle(self) -> None:
        """Wait for the idle containers' resets to report, and remove those that did not reset cleanly
        (otherwise done when the container is next wanted): for a look at what a pool holds between its
        matches (never while one of them runs)."""
        with self._lock:
            idle = list(self._idle)
        unclean = [container for container in idle
                   if container.reset_pending and not container.parked and not container.quiet()]
        with self._lock:
            self._idle = [container for container in self._idle if container not in unclean]
        for container in unclean:
            container.remove()

    def reap(self, *, shared: bool = True) -> int:
        """Remove the containers idle longer than `idle_seconds`; how many. With `shared`, also those other
        processes keep in the shared folder that are due to go (see `_take_due_shared`)."""
        with self._lock:
            stale = self._take_own(lambda c: c.idle_seconds() > self.idle_seconds)
        if shared:
            stale += self._take_due_shared()
        for container in stale:
            container.remove()
        return len(stale)

    def _take_due_shared(self) -> list[WarmContainer]:
        """The idle containers of the shared folder that other processes made and that are due to go,
        leased: idle past `idle_seconds` (its maker may be a process that gets no match any more), past
        MAX_LIFETIME, or made by a process that is gone (killed: nobody else would remove it before a
        sweep). A live maker finds out when it next wants the container (its entry is gone)."""
        if self.share_dir is None:
            return []
        with self._lock:
            own = {c.id[:12] for c in (*self._idle, *self._busy)}
        due = []
        now = time.time()
        for entry, last_used, made in self._shared_entries():
            if entry.name.rpartition(".")[2] in own:
                continue
            if now - last_used <= self.idle_seconds and now - made["created"] < MAX_LIFETIME and \
                    owner_alive(made["maker"]):
                continue
            container = WarmContainer.adopt(entry, pool_key=())  # None if in use (or gone: removed already)
            if container is not None:
                due.append(container)
        return due

    def _shared_entries(self) -> list[tuple[Path, float, dict]]:
        """The shared folder's entries, each with its last use (a time.time()) and what its maker wrote."""
        found = []
        for entry in self.share_dir.glob("*.*"):
            if entry.name.startswith("."):
                continue  # (an entry still being written, leased by its maker)
            try:
                found.append((entry, entry.stat().st_mtime, json.loads(entry.read_text())))
            except (OSError, ValueError):
                continue  # (removed meanwhile; a broken entry is removed by whoever adopts it)
        return found

    def warm_up(self, key: str, bot: bytes, limits: Limits, *, owner: str) -> str | None:
        """Start a container for `key`, `bot` and `limits` and leave it idle in the shared folder before any
        match wants it (see the module): its id; None if none was started: the pool is not shared (no other
        process would find it), a container of this key is there already (idle or in a match, whichever
        process's), or the pool is full of containers in matches (a match past the bound gets a container of
        its own; a warm-up then starts none). A full pool makes room as for a match: its least recently used
        idle container goes (a busy host's pool is full of idle containers, and the new version is the one
        likely to play next). `owner` names whose it is: the owner's oldest containers started ahead go
        first, so that they have AHEAD_PER_OWNER at most."""
        if self.share_dir is None:
            return None
        self.reap()
        if self.containers(key, bot, limits):
            return None
        pool_key = (key, hashlib.sha256(bot).hexdigest(), limits)
        ahead_of = hashlib.sha256(owner.encode()).hexdigest()[:16]
        for container in self._take_started_ahead(ahead_of, keep=AHEAD_PER_OWNER - 1):
            container.remove()
        container = self._start(pool_key, bot, limits, past_the_bound=False, ahead_of=ahead_of)
        if container is None:
            return None
        self._release(container, reusable=True)  # parked: the first match of any process of the host takes it
        return container.id

    def containers(self, key: str, bot: bytes, limits: Limits) -> int:
        """How many containers this pool keeps for `key`, `bot` and `limits`, idle or in a match: in a shared
        pool, every process's of its folder (a container made past the bound, for one match, is not kept)."""
        pool_key = (key, hashlib.sha256(bot).hexdigest(), limits)
        if self.share_dir is not None:
            return sum(1 for _ in self.share_dir.glob(f"{pool_digest(pool_key)}.*"))
        with self._lock:
            return sum(container.pool_key == pool_key for container in (*self._idle, *self._busy))

    def _take_started_ahead(self, ahead_of: str, *, keep: int) -> list[WarmContainer]:
        """The idle containers started ahead for the owner `ahead_of` (any process's), but for its newest
        `keep` (idle or not), leased: those to remove."""
        started = sorted((made["created"], entry) for entry, _, made in self._shared_entries()
                         if made.get("ahead_of") == ahead_of)
        excess = {entry.name.rpartition(".")[2]: entry for _, entry in started[:max(len(started) - keep, 0)]}
        with self._lock:
            own = {c.id[:12] for c in (*self._idle, *self._busy)}
            taken = self._take_own(lambda c: c.id[:12] in excess)
        for short, entry in excess.items():
            if short not in own and (container := WarmContainer.adopt(entry, pool_key=())) is not None:
                taken.append(container)  # (None: in a match, or gone already)
        return taken

    def close(self) -> None:
        """Remove every idle container now; those in a match go when their player closes (in a shared pool,
        one another process is using goes when that process's match ends: its maker is gone by then).

        Side by side: a worker stopping waits for this, and one removal after another took the engine
        about a second each under load (32 containers a process: half a minute before the worker ended)."""
        from concurrent.futures import ThreadPoolExecutor

        with self._lock:
            self._closed = True
            idle = self._take_own(lambda c: True)
            self._idle = []
        if not idle:
            return
        try:
            with ThreadPoolExecutor(max_workers=min(len(idle), 8)) as removers:
                list(removers.map(WarmContainer.remove, idle))
        except RuntimeError:  # called by atexit: the interpreter takes no new threads any more
            for container in idle:
                container.remove()

    def _take_own(self, wanted) -> list[WarmContainer]:
        """The idle containers `wanted` that no other process is using, leased and out of the idle list (with
        the lock held)."""
        taken = [c for c in self._idle if wanted(c) and c.take_lease()]
        self._idle = [c for c in self._idle if c not in taken]
        return taken

    def _acquire(self, key: str, bot: bytes, limits: Limits) -> tuple[WarmContainer, bool]:
        """A container for this key, bot and limits, and whether it is a reused one (safe to call from the
        threads that prepare a match's seats at once)."""
        shared_due = time.monotonic() >= self._next_shared_reap
        if shared_due:
            self._next_shared_reap = time.monotonic() + SHARED_REAP_INTERVAL
        self.reap(shared=shared_due)
        pool_key = (key, hashlib.sha256(bot).hexdigest(), limits)
        found = self._take_idle(pool_key)
        if found is not None:
            reusable = False
            try:
                reusable = found.quiet() and time.monotonic() - found.created < MAX_LIFETIME
            finally:  # (if quiet() raised too: a busy slot no match holds would shrink the pool for good)
                if not reusable:
                    self._release(found, reusable=False)
            if reusable:
                found.matches += 1
                return found, True
        container = self._start(pool_key, bot, limits)
        container.matches += 1
        return container, False

    def _take_idle(self, pool_key: tuple) -> WarmContainer | None:
        """The most recently used idle container kept for `pool_key`, now counted as busy: one of this pool's,
        or of a pool it shares with."""
        with self._lock:
            if self._closed:
                raise SandboxUnavailable("the warm pool is closed")
            found = next((c for c in reversed(self._idle) if c.pool_key == pool_key and c.take_lease()), None)
            if found is not None:
                self._idle.remove(found)
                self._busy.add(found)
                return found
            own = {c.id[:12] for c in (*self._idle, *self._busy)}
        if self.share_dir is None:
            return None
        entries = [(entry.stat().st_mtime, entry) for entry in self.share_dir.glob(f"{pool_digest(pool_key)}.*")
                   if entry.name.rpartition(".")[2] not in own]
        for _, entry in sorted(entries, reverse=True):
            found = WarmContainer.adopt(entry, pool_key)
            if found is not None:
                with self._lock:
                    self._busy.add(found)
                return found
        return None

    def _start(self, pool_key: tuple, bot: bytes, limits: Limits, *, past_the_bound: bool = True,
               ahead_of: str | None = None) -> WarmContainer | None:
        """A new container, kept in the pool if it has room: least recently used idle ones make room; when
        the rest are in matches, a container for one match only (None instead, without `past_the_bound`).
        The containers still starting count, so that seats starting at once never take the pool past its
        bound."""
        from .image import image_tag

        evicted = []
        with self._lock:
            # Least recently used first; not one another process is using.
            for container in list(self._idle):
                if self._occupied() < self.max_containers:
                    break
                if container.take_lease():
                    self._idle.remove(container)
                    evicted.append(container)
            pooled = self._occupied() < self.max_containers
            if not (pooled or past_the_bound):
                return None
            self._starting += pooled
        for container in evicted:
            container.remove()
        container = None
        began = time.monotonic()
        try:
            container = WarmContainer.start(pool_key, bot, limits, self.image or image_tag(), pooled=pooled,
                                            share_dir=self.share_dir, ahead_of=ahead_of)
            self.start_seconds = 0.7 * self.start_seconds + 0.3 * (time.monotonic() - began)
        finally:
            with self._lock:
                self._starting -= pooled
                if container is not None:
                    self._busy.add(container)
        return container

    def _occupied(self) -> int:
        return len(self._idle) + len(self._busy) + self._starting

    def _release(self, container: WarmContainer, *, reusable: bool) -> None:
        own = container.maker == owner_token()
        keep = (reusable and container.pooled and not self._closed
                and time.monotonic() - container.created < MAX_LIFETIME and (own or owner_alive(container.maker)))
        if keep:
            container.last_used = time.monotonic()
            container.leave()  # (in a shared pool: parked, its lease freed)
            if not own and container.cgroup is not None:
                container.cgroup.close()  # (its maker's to keep: this process lets go of all it held of it)
        with self._lock:
            self._busy.discard(container)
            if keep and own:
                self._idle.append(container)
        if not keep:
            container.remove()


class OneMatchPool:
    """The cold backend's stand-in for a pool: a container of its own for every match, removed after it."""

    def __init__(self, image: str | None = None):
        self.image = image

    def _acquire(self, key: str, bot: bytes, limits: Limits) -> tuple[WarmContainer, bool]:
        from .image import image_tag

        return WarmContainer.start((key, hashlib.sha256(bot).hexdigest(), limits), bot, limits,
                                   self.image or image_tag(), pooled=False, warm=False), False

    def _release(self, container: WarmContainer, *, reusable: bool) -> None:
        container.remove()


class DockerPlayer(WarmPlayer):
    """The cold `docker` backend: one locked-down container per bot per match, never reused."""

    backend = "docker"

    def __init__(self, bot_path: str, *, name: str | None = None, limits: Limits | None = None,
                 image: str | None = None):
        super().__init__(OneMatchPool(image), bot_path, key="cold", name=name, limits=limits)


_default: tuple[int, WarmPool] | None = None
_share_dir: Path | None = None
# This process's pools by deployment (`shared_pool`).
_shared: dict[str, WarmPool] = {}
_shared_lock = threading.Lock()


def share_default_pool(scope: str) -> None:
    """Share this process's default pool with every process of this host that shares `scope` (a deployment:
    the bot versions and owners its keys name, e.g. its database), so that each bot version is warmed up
    once per host: a Celery worker's pool processes, and the other workers' on the host. Call it before
    the pool is first used (Celery's worker_process_init). A folder that is not this user's own is not
    used: the pool is then this process's alone."""
    global _share_dir
    try:
        _share_dir = host_share_dir(scope)
    except SandboxUnavailable as error:
        logger.warning("warm containers are not shared: %s", error)
        _share_dir = None


def host_share_dir(scope: str) -> Path:
    """The folder of the host's shared pools for `scope`: one per user and PID namespace (an entry names its
    container's PID 1 by its pid), image, and release of the supervisor and the harness (a process speaks
    its own release's protocol to the containers others made). Private to the user (0700): whoever can
    write an entry there has its processes signal a pid and listen in a folder."""
    from .image import image_tag

    release = hashlib.sha256(SUPERVISOR.read_bytes() + HARNESS.read_bytes()).hexdigest()
    digest = hashlib.sha256("\0".join((scope, image_tag(), release)).encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / f"{SHARE_PREFIX}host-u{os.geteuid()}-ns{pid_namespace()}-{digest}"
    make_private_folder(folder)
    return folder


def make_private_folder(folder: Path) -> None:
    """Make `folder` unless it exists; SandboxUnavailable unless it is then this user's and 0700."""
    folder.mkdir(mode=0o700, exist_ok=True)
    found = folder.lstat()
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.geteuid() or stat.S_IMODE(found.st_mode) != 0o700:
        raise SandboxUnavailable(f"{folder} is not a private folder of this user")


def default_pool() -> WarmPool:
    """This process's pool (a forked worker gets its own: the parent's streams are not its to use)."""
    global _default
    if _default is None or _default[0] != os.getpid():
        _default = (os.getpid(), _new_pool(_share_dir))
    return _default[1]


def shared_pool(scope: str) -> WarmPool:
    """A pool of this process that shares the host's idle warm containers of `scope` (a deployment, as
    `share_default_pool`), one per scope: for a process that serves several deployments, the seat holder
    (sandbox/holder.py). A folder that is not this user's own is not used: the pool is then its own alone."""
    with _shared_lock:
        if scope not in _shared:
            try:
                folder = host_share_dir(scope)
            except SandboxUnavailable as error:
                logger.warning("warm containers are not shared: %s", error)
                folder = None
            _shared[scope] = _new_pool(folder)
        return _shared[scope]


def _new_pool(share_dir: Path | None) -> WarmPool:
    # 32: a round robin seats every entrant each round, and a pool smaller than the field evicts each
    # container before its bot comes back (32 idle containers cost about 180 MiB).
    pool = WarmPool(max_containers=int(os.environ.get("ARENA_WARM_MAX_CONTAINERS", "32")),
                    idle_seconds=float(os.environ.get("ARENA_WARM_IDLE_SECONDS", "300")), share_dir=share_dir)
    atexit.register(_close_if_own, os.getpid(), pool)
    return pool


def _close_if_own(pid: int, pool: WarmPool) -> None:
    if os.getpid() == pid:
        pool.close()


def close_default_pool() -> None:
    """Remove this process's warm containers now, if it made any: for a process that ends without running
    atexit hooks (a Celery pool process ends with os._exit, see matches.tasks)."""
    if _default is not None:
        _close_if_own(*_default)
