"""The `docker` backend, the one the platform uses: one locked-down container per bot per match.

The harness's stdin/stdout/stderr travel over the container's attach stream (stdout and stderr
multiplexed in Docker's framing). CPU is read from the container's cgroup files. Every container carries
labels naming the worker that owns it, so `cleanup_leftovers` can remove what a killed worker left.
"""

from __future__ import annotations

import logging
import os
import select
import socket
import struct
import time
import uuid
from pathlib import Path

from .base import READ_CHUNK, Channel, SandboxPlayer, SandboxUnavailable, owner_alive, owner_token, write_by
from .cgroup import Cgroup

logger = logging.getLogger(__name__)

LABEL = "arena.sandbox"
OWNER_LABEL = "arena.sandbox.owner"
CREATED_LABEL = "arena.sandbox.created"
# A container older than this is removed by cleanup whoever owns it: no match lasts that long.
MAX_AGE = 6 * 3600
# How long a sweep waits for another worker's removal of the same container (one takes well under 1 s).
REMOVAL_SECONDS = 30
FRAME_HEADER = struct.Struct(">BxxxL")
STREAMS = {1: "stdout", 2: "stderr"}

_client = None


def client():
    """One Docker client per process (it holds a connection pool)."""
    global _client
    if _client is None:
        import docker

        try:
            _client = docker.from_env(timeout=30)
            _client.ping()
        except Exception as error:  # noqa: BLE001 - any failure to reach the engine means the same
            _client = None
            raise SandboxUnavailable(f"the Docker engine does not answer: {error}") from error
    return _client


class AttachChannel(Channel):
    """The container's stdin and its multiplexed stdout/stderr, over one attach socket."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        sock.setblocking(False)
        self.pending = bytearray()
        self.open = True

    def send(self, data: bytes, deadline: float) -> None:
        write_by(self.sock.fileno(), data, deadline, self.sock.send)

    def receive(self, timeout: float) -> list[tuple[str, bytes]]:
        if not self.open:
            return []
        readable, _, _ = select.select([self.sock], [], [], max(timeout, 0))
        if not readable:
            return []
        try:
            data = self.sock.recv(READ_CHUNK)
        except BlockingIOError:
            return []
        except ConnectionError:
            data = b""
        if not data:
            self.open = False
            return [("stdout", b""), ("stderr", b"")]
        self.pending += data
        chunks = []
        # Docker frames each write of the process (at most 32 KiB), so `pending` stays small.
        while len(self.pending) >= FRAME_HEADER.size:
            kind, size = FRAME_HEADER.unpack_from(self.pending)
            if len(self.pending) < FRAME_HEADER.size + size:
                break
            payload = bytes(self.pending[FRAME_HEADER.size:FRAME_HEADER.size + size])
            del self.pending[:FRAME_HEADER.size + size]
            if payload and kind in STREAMS:
                chunks.append((STREAMS[kind], payload))
        return chunks

    def end_input(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self) -> None:
        # Shut the connection itself down, whatever else still holds a descriptor of it: Docker cannot
        # stop a container whose output it is still trying to deliver to us.
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


HARNESS_COMMAND = ["python3", "-I", "-S", "/sandbox/harness.py", "/sandbox/bot.py"]


def container_config(image: str, staging: Path, limits, *, command: list[str] = HARNESS_COMMAND, init: bool = True,
                     labels: dict[str, str] | None = None, attached: bool = True) -> dict:
    """The `create_container` arguments: everything a bot's container may and may not do.

    The warm pool (sandbox/pool.py) passes its supervisor as `command`, which is then the container's
    init (`init=False`), its own `labels`, and `attached=False`: its supervisor speaks to the worker over
    a socket in the staging folder, not over Docker's attach stream. Every other setting is the same.
    """
    from docker.types import LogConfig, Mount, Ulimit

    memory = f"{limits.memory_mb}m"
    tmp_bytes = limits.tmp_mb << 20
    host_config = client().api.create_host_config(
        network_mode="none",
        read_only=True,
        cap_drop=["ALL"],
        security_opt=["no-new-privileges"],  # and Docker's default seccomp profile, which we never turn off
        init=init,
        ipc_mode="none",  # no /dev/shm: the only writable place is the size-limited /tmp
        mem_limit=memory,
        memswap_limit=memory,
        pids_limit=limits.pids,
        nano_cpus=int(limits.cpus * 1e9),
        ulimits=[
            Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
            Ulimit(name="fsize", soft=tmp_bytes, hard=tmp_bytes),
            Ulimit(name="core", soft=0, hard=0),
        ],
        tmpfs={"/tmp": f"rw,noexec,nosuid,nodev,size={tmp_bytes},mode=1777"},
        log_config=LogConfig(type=LogConfig.types.NONE),
        mounts=[Mount(target="/sandbox", source=str(staging), type="bind", read_only=True)],
    )
    return dict(
        image=image,
        command=command,
        name=f"arena-bot-{uuid.uuid4().hex[:12]}",
        hostname="bot",
        user="65534:65534",
        stdin_open=attached,
        detach=not attached,  # attached, StdinOnce: the end of our input is the end of the harness's stdin
        environment={},
        working_dir="/tmp",
        labels={LABEL: "1", OWNER_LABEL: owner_token(), CREATED_LABEL: str(int(time.time())), **(labels or {})},
        host_config=host_config,
    )


class DockerPlayer(SandboxPlayer):
    backend = "docker"
    _cgroup: Cgroup | None = None

    def __init__(self, bot_path: str, *, name: str | None = None, limits=None, image: str | None = None):
        super().__init__(bot_path, name=name, limits=limits)
        self.image = image

    def _launch(self, staging: Path) -> Channel:
        from .image import image_tag

        self.sandbox_id, channel, self._cgroup = start_container(
            container_config(self.image or image_tag(), staging, self.limits))
        return channel

    def _cpu_seconds(self) -> float | None:
        return self._cgroup.cpu_seconds() if self._cgroup else None

    def _exit_status(self, timeout: float) -> tuple[int | None, bool]:
        return container_exit_status(self.sandbox_id, timeout)

    def _destroy(self) -> None:
        if self._cgroup is not None:
            self._cgroup.close()
        if self.sandbox_id is not None:
            remove_container(self.sandbox_id)


def start_container(config: dict) -> tuple[str, AttachChannel, Cgroup | None]:
    """Create and start a container attached to its stdin/stdout/stderr: (its id, the stream, its cgroup)."""
    streams = []

    def attach(api, container_id):
        attached = api.attach_socket(container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
        # Our own descriptor for the stream, independent of the HTTP response objects' lifetimes.
        raw = getattr(attached, "_sock", attached)
        streams.append(socket.socket(fileno=os.dup(raw.fileno())))
        attached.close()
        raw.close()

    container_id, pid = _create_and_start(config, before_start=attach)
    return container_id, AttachChannel(streams[0]), (Cgroup.of_process(pid) if pid else None)


def start_detached(config: dict) -> tuple[str, int]:
    """Create and start a container nobody attaches to (`attached=False`): (its id, its init's host pid)."""
    return _create_and_start(config)


def _create_and_start(config: dict, before_start=None) -> tuple[str, int]:
    import docker.errors

    api = client().api
    container_id = None
    try:
        container_id = api.create_container(**config)["Id"]
        if before_start is not None:
            before_start(api, container_id)
        api.start(container_id)
        pid = api.inspect_container(container_id)["State"]["Pid"]
    except docker.errors.DockerException as error:
        if container_id is not None:
            remove_container(container_id)
        raise SandboxUnavailable(f"cannot start the bot's container: {error}") from error
    return container_id, pid


def container_exit_status(container_id: str, timeout: float) -> tuple[int | None, bool]:
    """(how the container's init ended, or None if still running after `timeout`; whether OOM killed it)."""
    import docker.errors
    import requests

    api = client().api
    try:
        status = api.wait(container_id, timeout=timeout)["StatusCode"]
        out_of_memory = api.inspect_container(container_id)["State"].get("OOMKilled")
    except (docker.errors.DockerException, requests.exceptions.RequestException):
        return None, False
    # The init process exits 128+N when the harness was killed by signal N.
    return (-(status - 128) if status > 128 else status), bool(out_of_memory)


def remove_container(container_id: str) -> None:
    """Force-remove a container (gone already is fine)."""
    import docker.errors
    import requests

    try:
        client().api.remove_container(container_id, force=True)
    except docker.errors.NotFound:
        pass
    except (docker.errors.DockerException, requests.exceptions.RequestException) as error:
        # The match result stands; the labelled container goes at the next cleanup_leftovers().
        logger.warning("could not remove container %s: %s", container_id, error)


def cleanup_leftovers(*, max_age: float = MAX_AGE) -> list[str]:
    """Remove bot containers whose worker is gone (or older than `max_age` s); `sandbox.cleanup_leftovers`
    calls it with the host's sweep lock held.

    Safe to run while other workers on the same host play matches: their containers are left alone.
    Returns the names of the containers removed.
    """
    import docker.errors

    removed = []
    # ignore_removed: another worker may remove a listed container before it is inspected.
    for container in client().containers.list(all=True, filters={"label": LABEL}, ignore_removed=True):
        created = float(container.labels.get(CREATED_LABEL, 0))
        if owner_alive(container.labels.get(OWNER_LABEL, "")) and time.time() - created < max_age:
            continue
        try:
            container.remove(force=True)
            removed.append(container.name)
        except docker.errors.NotFound:
            pass
        except docker.errors.APIError as error:
            # Every worker on a host sweeps: another one may be removing this container right now.
            if not (error.status_code == 409 and "in progress" in str(error.explanation)):
                raise
            _await_removal(container.id)
    return removed


def _await_removal(container_id: str, timeout: float = REMOVAL_SECONDS) -> None:
    """Wait until another worker's removal of the container ends, so that a sweep that returns has left
    no dead worker's container behind (the operator's check, and a test's, comes right after it)."""
    import docker.errors
    import requests

    try:
        client().api.wait(container_id, condition="removed", timeout=timeout)
    except docker.errors.NotFound:
        pass  # gone before the wait began
    except (docker.errors.DockerException, requests.exceptions.RequestException) as error:
        logger.warning("container %s was still being removed by another worker: %s", container_id, error)
