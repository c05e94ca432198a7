"""Playing one match: turning its seats into sandboxed players and letting the referee run it."""

import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from games import BotFailure, get_game
from games.bots import make_player
from games.referee import MatchResult, Player, play_match, seated

from .spectating import Spectators


# The bots' sources are written in folders named so, then "PID.START-" of the playing process (see
# remove_stale_folders).
FOLDER_PREFIX = "arena-match-"


class NoSandbox(RuntimeError):
    """No sandbox works on this host and running students' code unconfined was not asked for."""


def match_backend(match) -> str:
    """The sandbox for `match`: Docker's warm containers where the host has Docker, except for validation.

    A new version is validated in a fresh container (the cold path), as the first thing that ever runs
    it; after that its matches reuse warm containers kept for that version (ARENA_WARM_SANDBOX=0 turns
    this off).
    """
    return playing_backend(validating=match.purpose == match.Purpose.VALIDATION)


def playing_backend(*, validating: bool = False) -> str:
    """The sandbox a bot plays in (a match's, a table's decision): warm containers where the host has Docker
    and ARENA_WARM_SANDBOX is on, except to validate a version."""
    backend = sandbox_backend()
    if backend == "docker" and settings.ARENA_WARM_SANDBOX and not validating:
        return "docker-warm"
    return backend


def warm_key(bot, version) -> str:
    """What a warm container is kept for: one version of one bot of one owner, never shared wider."""
    return f"owner:{bot.owner_id}:bot:{bot.pk}:version:{version.pk}:{version.sha256}"


def warm_up(version) -> str | None:
    """Start the warm container the matches of `version` (accepted) will play in, before the first of them
    (sandbox/pool.py's `warm_up`: idle, shared by the host's worker processes, within the pool's bound and
    the owner's share): its id; None where matches play in no warm container or none was started."""
    if playing_backend() != "docker-warm":
        return None
    from sandbox.pool import default_pool

    return default_pool().warm_up(*_pool_key_parts(version), owner=f"owner:{version.bot.owner_id}")


def warm_containers(version) -> int:
    """How many warm containers this host keeps for `version` (accepted), idle or in a match, whichever
    worker process's (sandbox/pool.py's `containers`)."""
    from sandbox.pool import default_pool

    return default_pool().containers(*_pool_key_parts(version))


def container_start_seconds() -> float:
    """How long starting a warm container takes on this host lately (this worker process's pool's measure)."""
    from sandbox.pool import default_pool

    return default_pool().start_seconds


def _pool_key_parts(version) -> tuple:
    """The key, bytes and limits a match's seat of `version` asks the warm pool for (seat_opener,
    games.bots.make_player)."""
    import sandbox

    bot = version.bot
    return warm_key(bot, version), version.code.encode("utf-8"), sandbox.Limits.for_game(get_game(bot.game))


def routes_by_container(match) -> bool:
    """Whether `match` plays in warm containers, so that which worker plays it when matters (see
    services.claim): never where no sandbox works, which `play` reports as the match's fault."""
    try:
        return match_backend(match) == "docker-warm"
    except NoSandbox:
        return False


def sandbox_backend() -> str:
    """The configured backend, or the best sandbox this host has.

    Students' code runs unconfined only when an operator says so (ARENA_SANDBOX=none): a host that lost
    its Docker engine or bwrap must stop playing matches, not quietly run them without a sandbox.
    """
    if settings.ARENA_SANDBOX:
        return settings.ARENA_SANDBOX
    import sandbox

    backend = sandbox.best_backend()
    if backend == "none":
        raise NoSandbox("no sandbox works on this host (no Docker engine with the bot image, no bubblewrap): "
                        "install one, or set ARENA_SANDBOX=none to run bots unconfined in a private demo")
    return backend


class UnstartablePlayer:
    """A seat whose sandbox could not even be opened: it fails at start, like a bot that cannot load."""

    def __init__(self, name: str, failure: BotFailure):
        self.name = name
        self.failure = failure

    def start(self, info):
        raise self.failure

    def act(self, observation):
        raise self.failure

    def close(self) -> str:
        return ""


def play(match, seats) -> MatchResult:
    """Play `match` with `seats` (MatchSeat rows in seat order) and return the referee's result.

    Its sandboxes are closed however the match ends (see games.referee.seated), its bots' files removed.
    Spectators see it as it is played (matches.spectating), without a write per move."""
    from sandbox.base import local_owner_prefix

    game = get_game(match.game)
    backend = match_backend(match)
    spectators = Spectators(match, len(seats))
    # Named after this process, so that if it is killed mid-match the next cleanup knows the folder is stale.
    with tempfile.TemporaryDirectory(prefix=f"{FOLDER_PREFIX}{local_owner_prefix()}-{match.pk}-") as folder, \
            seated(seat_opener(seat, game, backend, folder, match.seed) for seat in seats) as players:
        result = play_match(game, players, config=match.config, seed=match.seed, on_step=spectators)
    spectators.over(result.final_state)
    result.replay["players"] = [seat.bot.label for seat in seats]  # the platform's names, not the sandboxes' paths
    return result


def seat_opener(seat, game, backend: str, folder: str, seed: int) -> Callable[[], Player]:
    """What opens the player of one seat (a match's MatchSeat, a table's bot seat: its `seat`, `bot` and
    `version`), for games.referee.seated, which opens the seats at once in threads of their own: the seat's
    rows are read here, in the caller's thread (a database connection belongs to its thread, and a test's
    transaction to its connection), and the opener itself touches no database. A player whose sandbox
    cannot even be opened fails at its start, as a verdict."""
    number, label = seat.seat, seat.bot.label
    builtin = seat.bot.builtin_name if seat.bot.is_builtin else None
    code: str = "" if builtin else seat.version.code
    key = None if builtin else warm_key(seat.bot, seat.version)

    def open_player() -> Player:
        if builtin:
            spec = f"builtin:{builtin}"
        else:
            # One folder per seat: the sandbox mounts the bot's folder, never another seat's file.
            path = Path(folder) / f"seat{number}" / "bot.py"
            path.parent.mkdir()
            path.write_text(code, encoding="utf-8")
            spec = str(path)
        try:
            return make_player(game, spec, sandbox=backend, seed=seed, seat=number, key=key)
        except BotFailure as failure:
            return UnstartablePlayer(label, failure)

    return open_player


def remove_stale_folders() -> list[Path]:
    """Delete the match folders (bots' sources) that processes killed mid-match left on this host."""
    from sandbox.base import local_owner_alive

    removed = []
    for folder in Path(tempfile.gettempdir()).glob(f"{FOLDER_PREFIX}*"):
        owner = folder.name[len(FOLDER_PREFIX):]
        if re.match(r"\d+\.\d+-", owner) and not local_owner_alive(owner):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
