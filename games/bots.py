"""Turning a bot spec (`builtin:NAME` or a file path) into a player for the referee."""

from __future__ import annotations

import random
from pathlib import Path

from .core import Game
from .referee import InProcessPlayer, Player

BUILTIN_PREFIX = "builtin:"


class BotSpecError(ValueError):
    """A bot spec that names no built-in bot or readable file."""


def builtin_player(game: Game, name: str, rng_seed: int | None = None) -> InProcessPlayer:
    bots = game.builtin_bots()
    if name not in bots:
        raise BotSpecError(f"{game.name} has no built-in bot {name!r}; built-ins: {', '.join(sorted(bots))}")
    return InProcessPlayer(f"{BUILTIN_PREFIX}{name}", bots[name](), rng_seed=rng_seed)


def make_player(game: Game, spec: str, *, sandbox: str, seed: int = 0, seat: int = 0, limits=None,
                key: str | None = None) -> Player:
    """A player for `spec`: built-ins run in-process (trusted), files run in the chosen sandbox.

    `key` names the bot version for the "docker-warm" sandbox, which reuses a container only for the
    same key (default: the file's own path and contents, see sandbox/pool.py)."""
    if spec.startswith(BUILTIN_PREFIX):
        # Distinct, repeatable randomness per seat: random.Random hashes the string deterministically.
        rng_seed = random.Random(f"{seed}/{seat}").getrandbits(64)
        return builtin_player(game, spec[len(BUILTIN_PREFIX):], rng_seed)
    path = Path(spec)
    if not path.is_file():
        raise BotSpecError(f"{spec}: no such bot file (or use builtin:NAME)")
    import sandbox as sandboxes  # only when a file bot is played: games/ stays importable on its own

    if limits is None:
        limits = sandboxes.Limits.for_game(game)
    if sandbox == "docker-warm" and key is None:
        key = f"file:{path.resolve()}"
    return sandboxes.open_player(sandbox, str(path), name=path.name, limits=limits, key=key)
