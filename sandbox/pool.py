"""The `docker-warm` backend: started containers kept warm and reused for many matches of one bot version.

    pool = WarmPool(max_containers=8, idle_seconds=300)
    player = pool.player("/uploads/alice/v3.py", key=f"version:{sha256}:{owner_id}", limits=limits)

A container is made exactly like the cold `docker` backend's (sandbox/docker_backend.py, same flags),
except that its PID 1 is sandbox/supervisor.py, which starts the harness for each match and, when the
match ends, kills every other process of the container, empties /tmp and removes IPC objects (its
report is read before the container's next match, not at the end of the last). The container then waits,
idle, for the next match of the same key, bot file contents and limits (never
another version, bot or owner). A container that did not reset cleanly, whose bot ran out of memory,
timed out or broke the protocol, or that is older than MAX_LIFETIME, is removed instead. Idle containers
are removed after `idle_seconds` (`reap`, also run at each acquire), and a pool holds at most
`max_containers` (idle and in use); past that a match gets a container of its own, removed after it.
See docs/operator-sandbox.md.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import shutil
import struct
import threading
import time
from pathlib import Path

from games.core import BotFailure, Verdict

from .base import Channel, SandboxPlayer, SandboxUnavailable, make_staging
from .cgroup import Cgroup
from .docker_backend import AttachChannel, container_config, container_exit_status, remove_container, start_container
from .limits import Limits

logger = logging.getLogger(__name__)

SUPERVISOR = Path(__file__).with_name("supervisor.py")
SUPERVISOR_COMMAND = ["python3", "-I", "-S", "/sandbox/supervisor.py"]
WARM_LABEL = "arena.sandbox.warm"
# The supervisor's frames (see supervisor.py): kind, length, payload.
FRAME = struct.Struct(">BL")
BOT_STDOUT, BOT_STDERR, EVENT = 1, 2, 3
STREAM_OF = {BOT_STDOUT: "stdout", BOT_STDERR: "stderr"}
# Starting python in a fresh container on a busy host; then the reset (its kill patience is 3 s).
READY_TIMEOUT = 20.0
RESET_TIMEOUT = 6.0
# A container is retired after this long, busy or not: well under docker_backend.MAX_AGE, past which
# cleanup_leftovers() removes any bot container whoever owns it.
MAX_LIFETIME = 3600.0
# A match that ended in one of these leaves a container that is safe to reuse (after its reset); any
# other verdict (timeout, memory, protocol) discards it.
REUSABLE_VERDICTS = (None, Verdict.CRASH, Verdict.ILLEGAL)


class WarmContainer:
    """A started container whose PID 1 is the supervisor, and the stream of frames it sends."""

    def __init__(self, pool_key: tuple, staging: Path, container_id: str, attach: AttachChannel,
                 cgroup: Cgroup | None, *, pooled: bool):
        self.pool_key = pool_key
        self.staging = staging
        self.id = container_id
        self.attach = attach
        self.cgroup = cgroup
        # False for a container made past the pool's bound: removed after its one match.
        self.pooled = pooled
        self.created = self.last_used = time.monotonic()
        self._buffer = bytearray()
        # Frames read but not yet taken: what follows the end of a match belongs to its reset.
        self._unread: list[tuple[int, bytes]] = []
        self.matches = 0
        # Told to reset after its last match, its report not read yet: read before it serves again.
        self.reset_pending = False

    @classmethod
    def start(cls, pool_key: tuple, bot: bytes, limits: Limits, image: str, *, pooled: bool) -> "WarmContainer":
        staging = make_staging(bot, (SUPERVISOR,))
        key_digest = hashlib.sha256(repr(pool_key[0]).encode()).hexdigest()[:16]
        config = container_config(image, staging, limits, command=SUPERVISOR_COMMAND, init=False,
                                  labels={WARM_LABEL: key_digest})
        try:
            container_id, attach, cgroup = start_container(config)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        container = cls(pool_key, staging, container_id, attach, cgroup, pooled=pooled)
        if container.wait_event("ready", READY_TIMEOUT) is None:
            container.remove()
            raise SandboxUnavailable(f"the supervisor of container {container_id[:12]} did not start")
        return container

    def send(self, data: bytes, deadline: float) -> None:
        self.attach.send(data, deadline)

    def receive(self, timeout: float) -> list[tuple[int, bytes]] | None:
        """The supervisor's frames that arrived within `timeout`; None once the container's stream ended."""
        if self._unread:
            frames, self._unread = self._unread, []
            return frames
        if not self.attach.open:
            return None
        frames = []
        for stream, chunk in self.attach.receive(timeout):
            if stream == "stderr":
                if chunk:  # the supervisor's own failure: never the bot's output, which comes framed
                    logger.warning("supervisor of container %s: %s", self.id[:12], chunk.decode(errors="replace"))
                continue
            self._buffer += chunk
        while len(self._buffer) >= FRAME.size:
            kind, size = FRAME.unpack_from(self._buffer)
            if len(self._buffer) < FRAME.size + size:
                break
            frames.append((kind, bytes(self._buffer[FRAME.size:FRAME.size + size])))
            del self._buffer[:FRAME.size + size]
        return frames if frames or self.attach.open else None

    def unread(self, frames: list[tuple[int, bytes]]) -> None:
        self._unread = frames + self._unread

    def wait_event(self, name: str, timeout: float) -> dict | None:
        """Read (and drop the bot's output) until the supervisor's event `name`; None if it does not come."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            frames = self.receive(deadline - time.monotonic())
            if frames is None:
                return None
            for kind, payload in frames:
                if kind == EVENT and json.loads(payload).get("event") == name:
                    return json.loads(payload)
        return None

    def quiet(self) -> bool:
        """Idle as it should be: its last match's reset done and clean, its stream open and nothing sent
        since. The reset's report is awaited here rather than when the match ended: the match's result is
        recorded meanwhile, and by the next match of this bot the reset is long done."""
        if self.reset_pending:
            self.reset_pending = False
            reset = self.wait_event("reset", RESET_TIMEOUT)
            if reset is None or not reset["clean"]:
                logger.warning("container %s did not reset cleanly: %s", self.id[:12],
                               "no report" if reset is None else reset["left"])
                return False
        frames = self.receive(0)
        return frames == [] and not self._buffer

    def oom_kills(self) -> int:
        return self.cgroup.oom_kills() if self.cgroup else 0

    def remove(self) -> None:
        self.attach.close()
        if self.cgroup is not None:
            self.cgroup.close()
        remove_container(self.id)
        shutil.rmtree(self.staging, ignore_errors=True)


class WarmChannel(Channel):
    """One match's view of a warm container: the bot's stdout and stderr until its "exited" event."""

    def __init__(self, container: WarmContainer):
        self.container = container
        self.exit: dict | None = None
        self.ended = False
        self.input_ended = False

    def send(self, data: bytes, deadline: float) -> None:
        # The supervisor passes on every line that does not start with "!"; protocol lines start with "{".
        self.container.send(data, deadline)

    def receive(self, timeout: float) -> list[tuple[str, bytes]]:
        if self.ended:
            time.sleep(max(timeout, 0))
            return []
        frames = self.container.receive(timeout)
        chunks = []
        for index, (kind, payload) in enumerate(frames or []):
            if kind in STREAM_OF:
                chunks.append((STREAM_OF[kind], payload))
            elif kind == EVENT and json.loads(payload).get("event") == "exited":
                self.exit = json.loads(payload)
                self.container.unread(frames[index + 1:])
                frames = None
                break
        if frames is None:  # the bot's match is over (or the container died): both streams end here
            self.ended = True
            chunks += [("stdout", b""), ("stderr", b"")]
        return chunks

    def end_input(self) -> None:
        if not self.input_ended:
            self.input_ended = True
            try:
                self.container.send(b"!end\n", time.monotonic() + RESET_TIMEOUT)
            except (OSError, TimeoutError):
                pass  # the reset will not come: the container is discarded

    def close(self) -> None:
        """Nothing to release: the stream belongs to the container, which outlives the match."""


class WarmPlayer(SandboxPlayer):
    backend = "docker-warm"

    def __init__(self, pool: "WarmPool", bot_path: str, *, key: str, name: str | None = None,
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

    def _launch(self, staging: None) -> Channel:
        prepared, self._prepared = self._prepared, None
        if isinstance(prepared, Exception):
            raise prepared
        self._container, self.reused = prepared or self.pool._acquire(self.key, self._bot, self.limits)
        self.sandbox_id = self._container.id
        try:
            self._oom_mark = self._container.oom_kills()
            self._container.send(b"!start\n", time.monotonic() + RESET_TIMEOUT)
        except BaseException:
            self.pool._release(self._container, reusable=False)
            self._container = None
            raise
        self._warm_channel = WarmChannel(self._container)
        return self._warm_channel

    def _cpu_seconds(self) -> float | None:
        container = self._container
        return container.cgroup.cpu_seconds() if container is not None and container.cgroup else None

    def _ran_out_of_memory(self, container: WarmContainer | None) -> bool:
        """Whether the kernel's OOM killer struck in the container during this match."""
        return container is not None and container.oom_kills() > self._oom_mark

    def _exit_status(self, timeout: float) -> tuple[int | None, bool]:
        if self._warm_channel is not None and self._warm_channel.exit is not None:
            return self._warm_channel.exit.get("status"), self._ran_out_of_memory(self._container)
        # No "exited" event: the supervisor itself is gone (the OOM killer, the engine): ask Docker.
        return container_exit_status(self.sandbox_id, timeout)

    def _failure(self, verdict: Verdict, message: str) -> BotFailure:
        self.verdict = self.verdict or verdict
        return super()._failure(verdict, message)

    def _destroy(self) -> None:
        prepared, self._prepared = self._prepared, None
        if isinstance(prepared, tuple):  # prepared for a match that ended before this bot started
            self.pool._release(prepared[0], reusable=True)
        container, self._container = self._container, None
        if container is None:
            return
        if self.verdict not in REUSABLE_VERDICTS or self._ran_out_of_memory(container):
            self.pool._release(container, reusable=False)  # no use waiting for its reset
            return
        self._warm_channel.end_input()
        container.reset_pending = True  # checked (quiet()) before the container serves another match
        self.pool._release(container, reusable=True)


class WarmPool:
    """The warm containers of one worker process, by key; see the module's docstring."""

    def __init__(self, *, max_containers: int = 8, idle_seconds: float = 300.0, image: str | None = None):
        if max_containers < 1:
            raise ValueError("a warm pool holds at least one container")
        self.max_containers = max_containers
        self.idle_seconds = idle_seconds
        self.image = image
        self._idle: list[WarmContainer] = []
        self._busy: set[WarmContainer] = set()
        # Containers being started for the pool (see _start), not yet busy.
        self._starting = 0
        self._lock = threading.Lock()
        self._closed = False

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
        unclean = [container for container in idle if container.reset_pending and not container.quiet()]
        with self._lock:
            self._idle = [container for container in self._idle if container not in unclean]
        for container in unclean:
            container.remove()

    def reap(self) -> int:
        """Remove the containers idle longer than `idle_seconds`; how many."""
        now = time.monotonic()
        with self._lock:
            stale = [c for c in self._idle if now - c.last_used > self.idle_seconds]
            self._idle = [c for c in self._idle if c not in stale]
        for container in stale:
            container.remove()
        return len(stale)

    def close(self) -> None:
        """Remove every idle container now; those in a match go when their player closes.

        Side by side: a worker stopping waits for this, and one removal after another took the engine
        about a second each under load (32 containers a process: half a minute before the worker ended)."""
        from concurrent.futures import ThreadPoolExecutor

        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        if not idle:
            return
        try:
            with ThreadPoolExecutor(max_workers=min(len(idle), 8)) as removers:
                list(removers.map(WarmContainer.remove, idle))
        except RuntimeError:  # called by atexit: the interpreter takes no new threads any more
            for container in idle:
                container.remove()

    def _acquire(self, key: str, bot: bytes, limits: Limits) -> tuple[WarmContainer, bool]:
        """A container for this key, bot and limits, and whether it is a reused one (safe to call from the
        threads that prepare a match's seats at once)."""
        self.reap()
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
        """The most recently used idle container kept for `pool_key`, now counted as busy."""
        with self._lock:
            if self._closed:
                raise SandboxUnavailable("the warm pool is closed")
            found = next((c for c in reversed(self._idle) if c.pool_key == pool_key), None)
            if found is not None:
                self._idle.remove(found)
                self._busy.add(found)
            return found

    def _start(self, pool_key: tuple, bot: bytes, limits: Limits) -> WarmContainer:
        """A new container, kept in the pool if it has room: least recently used idle ones make room; the
        containers still starting count, so that seats starting at once never take the pool past its bound."""
        from .image import image_tag

        evicted = []
        with self._lock:
            while self._idle and self._occupied() >= self.max_containers:
                evicted.append(self._idle.pop(0))
            pooled = self._occupied() < self.max_containers
            self._starting += pooled
        for container in evicted:
            container.remove()
        container = None
        try:
            container = WarmContainer.start(pool_key, bot, limits, self.image or image_tag(), pooled=pooled)
        finally:
            with self._lock:
                self._starting -= pooled
                if container is not None:
                    self._busy.add(container)
        return container

    def _occupied(self) -> int:
        return len(self._idle) + len(self._busy) + self._starting

    def _release(self, container: WarmContainer, *, reusable: bool) -> None:
        with self._lock:
            self._busy.discard(container)
            keep = (reusable and container.pooled and not self._closed
                    and time.monotonic() - container.created < MAX_LIFETIME)
            if keep:
                container.last_used = time.monotonic()
                self._idle.append(container)
        if not keep:
            container.remove()


_default: tuple[int, WarmPool] | None = None


def default_pool() -> WarmPool:
    """This process's pool (a forked worker gets its own: the parent's streams are not its to use)."""
    global _default
    if _default is None or _default[0] != os.getpid():
        # 32: a round robin seats every entrant each round, and a pool smaller than the field evicts each
        # container before its bot comes back (32 idle containers cost about 180 MiB).
        pool = WarmPool(max_containers=int(os.environ.get("ARENA_WARM_MAX_CONTAINERS", "32")),
                        idle_seconds=float(os.environ.get("ARENA_WARM_IDLE_SECONDS", "300")))
        _default = (os.getpid(), pool)
        atexit.register(_close_if_own, os.getpid(), pool)
    return _default[1]


def _close_if_own(pid: int, pool: WarmPool) -> None:
    if os.getpid() == pid:
        pool.close()


def close_default_pool() -> None:
    """Remove this process's warm containers now, if it made any: for a process that ends without running
    atexit hooks (a Celery pool process ends with os._exit, see matches.tasks)."""
    if _default is not None:
        _close_if_own(*_default)
