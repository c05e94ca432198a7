"""What a process left of its matches' sandboxes on this host, found by the names it gave them."""

from __future__ import annotations

import tempfile
from pathlib import Path

from sandbox.base import STAGING_PREFIX, SandboxUnavailable, local_owner_pid

# The platform's folders of bots' sources (matches.runner.FOLDER_PREFIX; games/ and sandbox/ do not know it).
MATCH_FOLDER_PREFIX = "arena-match-"


def left_behind(pid: int) -> set[str]:
    """The bot containers (cold and warm) whose owner is the process `pid`, the processes running its bots'
    files, its bwrap cgroups, its copies of bot files and its match folders."""
    owned = f"{pid}."  # the start of the names of what it made: sandbox.base.local_owner_prefix
    left = {str(path) for prefix in (STAGING_PREFIX, MATCH_FOLDER_PREFIX)
            for path in Path(tempfile.gettempdir()).glob(f"{prefix}{owned}*")}
    left |= {str(path) for path in Path("/sys/fs/cgroup").glob(f"*/arena-sandbox/{owned}*")}
    left |= {f"process {entry.name}" for entry in Path("/proc").iterdir()
             if entry.name.isdigit() and f"{STAGING_PREFIX}{owned}".encode() in _command_line(entry)}
    return left | {f"container {name}" for name, owner in bot_containers().items() if local_owner_pid(owner) == pid}


def _command_line(process: Path) -> bytes:
    try:
        return (process / "cmdline").read_bytes()
    except OSError:  # gone meanwhile
        return b""


def bot_containers() -> dict[str, str]:
    """Every bot container on this host (none without a Docker engine): name -> its owner label."""
    from sandbox import docker_backend

    try:
        listed = docker_backend.client().api.containers(all=True, filters={"label": docker_backend.LABEL})
    except SandboxUnavailable:
        return {}
    return {c["Names"][0].lstrip("/"): c["Labels"].get(docker_backend.OWNER_LABEL, "") for c in listed}
