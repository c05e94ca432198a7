"""The Docker engine's part of the `docker` and `docker-warm` backends: a bot's locked-down container, made,
started, asked how it ended and removed. The players themselves are in sandbox/pool.py: every container's
PID 1 is sandbox/supervisor.py, which starts the harness on pipes the worker hands it (nothing of a match
crosses the engine); the cold `docker` backend uses a container for one match, `docker-warm` for many.

CPU is read from the container's cgroup files. Every container carries labels naming the worker that
owns it, so `cleanup_leftovers` can remove what a killed worker left.
"""

from __future__ import annotations

import functools
import logging
import os
import socket
import time
import uuid
from pathlib import Path

# Imported here, with the backend, not in the functions that use it: a match opens its seats in threads at
# once (games.referee.seated), and two threads making a process's first import of the SDK at the same time
# can each be handed the other's half-initialised module (ImportError: "partially initialized module
# 'docker.types'"), which failed a match as a platform fault in CI.
import docker
import docker.errors

from .base import SandboxUnavailable, forget_shared_entries, owner_alive, owner_token, shared_entries_in_use

logger = logging.getLogger(__name__)

LABEL = "arena.sandbox"
OWNER_LABEL = "arena.sandbox.owner"
CREATED_LABEL = "arena.sandbox.created"
# A container older than this is removed by cleanup whoever owns it: no match lasts that long.
MAX_AGE = 6 * 3600
# How long a sweep waits for another worker's removal of the same container (one takes well under 1 s).
REMOVAL_SECONDS = 30

_client = None


def client():
    """One Docker client per process (it holds a connection pool)."""
    global _client
    if _client is None:
        try:
            _client = docker.from_env(timeout=30)
            _client.ping()
        except Exception as error:  # noqa: BLE001 - any failure to reach the engine means the same
            _client = None
            raise SandboxUnavailable(f"the Docker engine does not answer: {error}") from error
    return _client


# Overrides where bot containers' cgroups go (see `cgroup_parent`); empty: Docker's own default.
CGROUP_PARENT_SETTING = "ARENA_SANDBOX_CGROUP_PARENT"


@functools.cache
def cgroup_parent() -> str | None:
    """The cgroup a bot's container's own goes under (None: Docker's default).

    Docker's cgroupfs driver puts every container under one "/docker" group, and the kernel schedules a
    group as one: the bots of a busy host then share the CPU weight of a single process, where a bot run
    as a plain process (a session, so an autogroup, of its own) weighs as much as any other. Under load
    a sandboxed decision waited for the CPU longer than the same decision unsandboxed (issue 27). At the
    root, each container weighs as one process again; its own group keeps every limit (CPU quota,
    memory, pids). The systemd driver already gives each container a scope of its own: left alone.
    """
    configured = os.environ.get(CGROUP_PARENT_SETTING)
    if configured is not None:
        return configured or None
    return "/" if client().info().get("CgroupDriver") == "cgroupfs" else None


def container_config(image: str, staging: Path, limits, *, command: list[str], labels: dict[str, str] | None = None
                     ) -> dict:
    """The `create_container` arguments: everything a bot's container may and may not do.

    `command` is the supervisor, the container's init (it reaps the orphans itself), which speaks to the
    worker over a socket in the staging folder: nobody attaches to the container.
    """
    from docker.types import LogConfig, Mount, Ulimit

    memory = f"{limits.memory_mb}m"
    tmp_bytes = limits.tmp_mb << 20
    host_config = client().api.create_host_config(
        network_mode="none",
        read_only=True,
        cap_drop=["ALL"],
        security_opt=["no-new-privileges"],  # and Docker's default seccomp profile, which we never turn off
        init=False,
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
        cgroup_parent=cgroup_parent(),
    )
    return dict(
        image=image,
        command=command,
        name=f"arena-bot-{uuid.uuid4().hex[:12]}",
        hostname="bot",
        user="65534:65534",
        stdin_open=False,
        detach=True,
        environment={},
        working_dir="/tmp",
        labels={LABEL: "1", OWNER_LABEL: owner_token(), CREATED_LABEL: str(int(time.time())), **(labels or {})},
        host_config=host_config,
    )


def start_detached(config: dict) -> tuple[str, int]:
    """Create and start a container (nobody attaches to it): (its id, its init's host pid)."""
    api = client().api
    container_id = None
    try:
        container_id = api.create_container(**config)["Id"]
        api.start(container_id)
        pid = api.inspect_container(container_id)["State"]["Pid"]
    except docker.errors.DockerException as error:
        if container_id is not None:
            remove_container(container_id)
        raise SandboxUnavailable(f"cannot start the bot's container: {error}") from error
    return container_id, pid


def container_exit_status(container_id: str, timeout: float) -> tuple[int | None, bool]:
    """(how the container's init ended, or None if still running after `timeout`; whether OOM killed it)."""
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
    removed = []
    running = _running_container_ids()
    # ignore_removed: another worker may remove a listed container before it is inspected.
    for container in client().containers.list(all=True, filters={"label": LABEL}, ignore_removed=True):
        created = float(container.labels.get(CREATED_LABEL, 0))
        owner = container.labels.get(OWNER_LABEL, "")
        if owner_alive(owner) and not _owner_container_gone(owner, running) and time.time() - created < max_age:
            continue
        if shared_entries_in_use(container.id):
            continue  # a shared warm container whose maker is gone, in a match of another process: it goes after
        try:
            container.remove(force=True)
            forget_shared_entries(container.id)
            removed.append(container.name)
        except docker.errors.NotFound:
            pass
        except docker.errors.APIError as error:
            # Every worker on a host sweeps: another one may be removing this container right now.
            if not (error.status_code == 409 and "in progress" in str(error.explanation)):
                raise
            _await_removal(container.id)
    return removed


def _running_container_ids() -> list[str]:
    """The ids of this engine's containers whose processes still run (paused and restarting ones included)."""
    return [row["Id"] for row in client().api.containers(all=True)
            if row.get("State") not in ("created", "exited", "dead", "removing")]


def _owner_container_gone(owner: str, running: list[str]) -> bool:
    """Whether `owner` (an `owner_token`) is a worker in a container of this engine that no longer runs.

    A worker in a container (docker-compose's) names its host by the container's hostname, which is the
    container's short id unless the operator set another: its processes can't be judged from here, but
    its container can. Without this, a worker container stopped before its warm sandboxes were removed
    (killed at the end of `docker compose down`'s grace time) left them running for MAX_AGE. A host whose
    name is not a short container id is never judged by it.
    """
    host = owner.partition("/")[0]
    return (len(host) == 12 and all(c in "0123456789abcdef" for c in host) and host != socket.gethostname()
            and not any(container_id.startswith(host) for container_id in running))


def _await_removal(container_id: str, timeout: float = REMOVAL_SECONDS) -> None:
    """Wait until another worker's removal of the container ends, so that a sweep that returns has left
    no dead worker's container behind (the operator's check, and a test's, comes right after it)."""
    import requests

    try:
        client().api.wait(container_id, condition="removed", timeout=timeout)
    except docker.errors.NotFound:
        pass  # gone before the wait began
    except (docker.errors.DockerException, requests.exceptions.RequestException) as error:
        logger.warning("container %s was still being removed by another worker: %s", container_id, error)
