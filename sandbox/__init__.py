"""Running untrusted student bots: one sandbox per bot per match, spoken to by a line-based JSON protocol.

    player = sandbox.open_player("docker", "bots/alice.py", limits=sandbox.Limits.for_game(game))

returns a `games.referee.Player`. Backends: "docker" (the platform's), "docker-warm" (the same containers
kept warm and reused for the matches of one bot version, sandbox/pool.py), "bwrap" (hosts without
Docker) and "none" (a plain child process: trusted local use only). See docs/operator-sandbox.md and
docs/bot-protocol.md.
"""

from __future__ import annotations

import time

from .base import PROTOCOL_VERSION, SandboxPlayer, SandboxUnavailable
from .limits import Limits

BACKENDS = ("docker", "docker-warm", "bwrap", "none")
# How long `best_backend` keeps what it found: asking the Docker engine is a round trip for every match
# otherwise (15 ms at a load of 14, as long as a short match's decisions). An engine lost meanwhile shows
# as a container that cannot start (a platform fault, never a match played without its sandbox).
BEST_BACKEND_SECONDS = 30.0
_best: tuple[float, str] | None = None


def open_player(backend: str, bot_path: str, *, name: str | None = None, limits: Limits | None = None,
                key: str | None = None) -> SandboxPlayer:
    """A Player running the bot file at `bot_path` in a `backend` sandbox (started by its `start`).

    "docker-warm" takes a container of this process's default pool kept for `key` (which must name the
    bot version and its owner, e.g. "version:<sha256 of the code>:<owner id>"); the others ignore `key`.
    """
    if backend == "docker-warm":
        from .pool import default_pool

        return default_pool().player(bot_path, key=key, name=name, limits=limits)
    if backend == "docker":
        from .pool import DockerPlayer as player_class
    elif backend == "bwrap":
        from .bwrap_backend import BwrapPlayer as player_class
    elif backend == "none":
        from .local_backend import LocalPlayer as player_class
    else:
        raise ValueError(f"unknown sandbox backend {backend!r}; use one of {', '.join(BACKENDS)}")
    return player_class(bot_path, name=name, limits=limits)


def docker_ready() -> bool:
    """The Docker engine answers and has the bot image."""
    from . import docker_backend, image

    try:
        return image.image_exists(docker_backend.client())
    except SandboxUnavailable:
        return False


def available_backends() -> list[str]:
    """The backends that work on this host, best first ("none" always does)."""
    from .bwrap_backend import bwrap_works

    return [backend for backend, works in (("docker", docker_ready), ("bwrap", bwrap_works)) if works()] + ["none"]


def best_backend() -> str:
    """The best sandbox this host has (as `available_backends`), found at most every BEST_BACKEND_SECONDS."""
    global _best
    if _best is None or time.monotonic() - _best[0] > BEST_BACKEND_SECONDS:
        _best = (time.monotonic(), available_backends()[0])
    return _best[1]


def cleanup_leftovers() -> None:
    """Remove what killed workers left on this host: containers, bwrap cgroups, plain bot processes,
    bot-file copies.

    When it returns, all of them are gone: another worker's sweep running at the same time is waited for.
    """
    from . import bwrap_backend, docker_backend, local_backend
    from .base import one_sweep_at_a_time, remove_stale_staging

    with one_sweep_at_a_time():
        try:
            docker_backend.cleanup_leftovers()
        except SandboxUnavailable:
            pass  # no Docker engine here: the bot-file copies of bwrap workers still go below
        bwrap_backend.cleanup_leftovers()
        local_backend.cleanup_leftovers()
        remove_stale_staging()


__all__ = ["BACKENDS", "Limits", "PROTOCOL_VERSION", "SandboxUnavailable", "available_backends", "best_backend",
           "cleanup_leftovers", "open_player"]
