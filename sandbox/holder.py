"""The seat holder: a table's bots kept running between their decisions, one process per host.

At a person's table a bot decides, then waits (often minutes) for the person. Starting it afresh for each
decision and telling it the game so far (games.table.Table.bot_move_afresh) makes each decision cost more
than the last: a table's cost grows with the square of its length. The holder keeps each seat's bot (its
sandbox: a warm container with its harness, a bwrap sandbox or a plain process, exactly as a match opens
it) between decisions, so a decision is one observation sent and one action read, whatever the turn.

Celery may run consecutive decisions of a table on different worker processes, or hosts. So the players
are held not by a worker process but by this holder, one per host (per user, PID namespace and code
checkout): a small server on a Unix socket in a private folder (0700), started on demand by the first
worker process that needs it (`HolderClient.decide`), in a session of its own so that a worker's restart
leaves it running. Each worker process of the host asks it, keyed by `scope/table:ID/seat:N`:

- `decide`: the seat's `SeatHistory` (games.table), the bot (its code, game, sandbox, seed, seat, warm key)
  and the observation. The held bot decides when it is the same bot and was last asked exactly where the
  table recorded the seat's last decision (a decision recorded by another host, a duplicate task, a lost
  holder: it was not): one observation, one action. Otherwise the holder answers `miss`; the worker sends
  again with the seat's setup and earlier observations, and the holder starts the bot, tells it the game
  so far (its answers discarded, as bot_move_afresh does), lets it decide, and keeps it. A fault at any
  point is the bot's verdict, and its process goes.
- `release`: the held bots of a table (at its end) go. Each bot also goes after `idle_seconds` without a
  decision, after `max_age` seconds whatever it does (a warm container's lifetime), and the least recently
  used goes when `max_held` are held. The holder itself exits once it has held nothing for `idle_seconds`.

A held bot is the player a match opens: the same sandbox, limits (memory, pids, CPU) and clock (the time
per decision and one bank, drawn from over the whole table as over a whole match). It only ever sees its
own seat's observations. A holder that is killed loses its bots (their sandboxes die with their
connection, or the sweep `sandbox.cleanup_leftovers` removes them): the next decision starts a new holder
and replays once. Where no holder can be started, the worker replays as before (`HolderUnavailable`).
See docs/operator-sandbox.md, "A table's bots".
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import fcntl
import hashlib
import json
import logging
import logging.handlers
import os
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from games.core import BotFailure, Verdict

from .base import SandboxUnavailable, pid_namespace
from .pool import make_private_folder

logger = logging.getLogger(__name__)

# Longer than a person's default time per move (games.table.DEFAULT_MOVE_SECONDS, 300 s): a bot waiting for
# a person who thinks to the end of their time is still held.
IDLE_SECONDS = 360.0
# Each held bot is a sandbox (a warm container's ~11 MiB plus the bot's own memory): past this many the least
# recently used goes, and its table replays once at its next decision.
MAX_HELD = 32
# Under sandbox/pool.py's MAX_LIFETIME and well under docker_backend.MAX_AGE, past which the sweep removes
# any bot container: a bot held this long is released and its table replays once.
MAX_AGE = 3600.0
# A request or answer is one line; earlier observations of a long game make the longest (a few MiB).
LINE_BYTES = 256 << 20
STARTUP_SECONDS = 15.0
# Waiting for an answer that is no bot's decision (status, release), or for a decision when the caller names
# no bound (a decision's own bound is its bot's limits: `HeldPlayer`'s `patience`).
ANSWER_SECONDS = 60.0


class HolderUnavailable(RuntimeError):
    """No holder answers on this host and none could be started: the caller plays the decision itself."""


# The code a holder runs: a worker never asks a holder of another checkout or release (one started before an
# upgrade idles out on its own).
RELEASE_FILES = ("holder.py", "base.py", "pool.py", "supervisor.py", "harness.py", "protocol.py")


def holder_dir() -> Path:
    """This host's holder folder for this user, PID namespace, code checkout and release
    (ARENA_TABLE_HOLDER_DIR overrides it)."""
    chosen = os.environ.get("ARENA_TABLE_HOLDER_DIR")
    if chosen:
        return Path(chosen)
    here = Path(__file__).resolve().parent
    release = hashlib.sha256(str(here).encode())
    for name in RELEASE_FILES:
        release.update((here / name).read_bytes())
    return Path(tempfile.gettempdir()) / f"arena-holder-{os.geteuid()}-ns{pid_namespace()}-{release.hexdigest()[:12]}"


# --- the holder process -----------------------------------------------------------------------------------

@dataclasses.dataclass
class HeldSeat:
    """One seat's bot, kept: its player, what it is (`fingerprint`), how many decisions it was asked and
    where (a digest of the table's events) it was asked the last one."""

    player: Any
    fingerprint: str
    folder: Path
    told: int = 0
    asked_at: str = ""
    started: float = dataclasses.field(default_factory=time.monotonic)
    last_used: float = dataclasses.field(default_factory=time.monotonic)

    def close(self) -> None:
        try:
            self.player.close()
        except Exception:  # a bot's last words are not worth a holder's life
            logger.exception("closing a held bot")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


class Holder:
    """The held bots of this host (see the module's docstring), safe to use from many threads."""

    def __init__(self, folder: Path, *, idle_seconds: float = IDLE_SECONDS, max_held: int = MAX_HELD,
                 max_age: float = MAX_AGE):
        self.idle_seconds, self.max_held, self.max_age = idle_seconds, max_held, max_age
        self.seats: dict[str, HeldSeat] = {}
        self.starts: dict[str, int] = {}  # bots started per seat held (counted for the operator and tests)
        self.lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}  # one per seat in use: one decision of a seat at a time
        self._in_flight = 0
        self.last_busy = time.monotonic()
        self.folder = folder
        folder.mkdir(mode=0o700, exist_ok=True)

    def decide(self, request: dict) -> dict:
        key, history = request["key"], request["history"]
        with self._seat_lock(key):
            held = self.seats.get(key)
            if held is not None and (held.fingerprint != request["fingerprint"] or held.told != history["told"]
                                     or held.asked_at != history["previous"]):
                self._drop(key)  # another bot, or one that was asked a decision the table did not record
                held = None
            if held is None:
                if request.get("earlier") is None:
                    return {"miss": True}
                held, failure = self._start(key, request)
                if held is None:
                    return failure or {"error": "the bot was not started"}
            try:
                action = held.player.act(request["observation"])
            except BotFailure as failure:
                self._drop(key)
                return _failure(failure.verdict, failure.message)
            except Exception:
                self._drop(key)
                raise
            held.told, held.asked_at, held.last_used = history["told"] + 1, history["position"], time.monotonic()
            return {"action": action}

    def _start(self, key: str, request: dict) -> tuple[HeldSeat | None, dict | None]:
        """Start the seat's bot, tell it the game so far and keep it: (it, None), or (None, its verdict)."""
        from games import get_game
        from games.bots import BotSpecError, make_player
        from games.table import catching_up_detail

        from .limits import Limits
        from .pool import shared_pool

        self._make_room()
        bot = request["bot"]
        folder = Path(tempfile.mkdtemp(prefix="seat-", dir=self.folder))
        if bot["builtin"]:
            spec = f"builtin:{bot['builtin']}"
        else:
            path = folder / "bot.py"
            path.write_text(bot["code"], encoding="utf-8")
            spec = str(path)
        game = get_game(bot["game"])
        player: Any
        try:
            if bot["sandbox"] == "docker-warm" and not bot["builtin"]:
                # The host's warm containers of its deployment, shared with its workers (a version their
                # validation warmed up is warm here, and the other way round).
                player = shared_pool(bot["scope"]).player(spec, key=bot["key"], name=path.name,
                                                          limits=Limits.for_game(game))
            else:
                player = make_player(game, spec, sandbox=bot["sandbox"], seed=bot["seed"], seat=bot["seat"],
                                     key=bot["key"])
        except (BotFailure, BotSpecError) as failure:
            shutil.rmtree(folder, ignore_errors=True)
            verdict = failure.verdict if isinstance(failure, BotFailure) else Verdict.CRASH
            return None, _failure(verdict, str(getattr(failure, "message", failure)))
        held = HeldSeat(player, request["fingerprint"], folder)
        with self.lock:
            self.starts[key] = self.starts.get(key, 0) + 1
        try:
            player.start(request["setup"])
            # Only a trusted built-in may say it remembers nothing (InProcessPlayer.keeps_state).
            earlier = request["earlier"] if getattr(player, "keeps_state", True) else []
            for number, observation in enumerate(earlier, 1):
                try:
                    player.act(observation)
                except BotFailure as failure:
                    held.close()
                    return None, _failure(failure.verdict,
                                          catching_up_detail(failure.message, number, len(earlier)))
        except BotFailure as failure:
            held.close()
            return None, _failure(failure.verdict, failure.message)
        except BaseException:
            held.close()
            raise
        with self.lock:
            self.seats[key] = held
        return held, None

    @contextlib.contextmanager
    def _seat_lock(self, key: str):
        """One decision of a seat at a time (two tasks of one table may ask at once)."""
        with self.lock:
            self.last_busy = time.monotonic()
            self._in_flight += 1
            lock = self._locks.setdefault(key, threading.Lock())
        try:
            with lock:
                yield
        finally:
            with self.lock:
                self.last_busy = time.monotonic()
                self._in_flight -= 1
                if not self._in_flight:  # nobody waits on a lock: those (and the counts) of seats not held go
                    self._locks = {key: lock for key, lock in self._locks.items() if key in self.seats}
                    self.starts = {key: count for key, count in self.starts.items() if key in self.seats}

    def _drop(self, key: str) -> None:
        with self.lock:
            held = self.seats.pop(key, None)
        if held is not None:
            held.close()

    def _make_room(self) -> None:
        with self.lock:
            if len(self.seats) < self.max_held:
                return
            oldest = min(self.seats, key=lambda key: self.seats[key].last_used)
            lock = self._locks.setdefault(oldest, threading.Lock())
        if lock.acquire(blocking=False):  # a bot deciding now is not the least recently used
            try:
                self._drop(oldest)
            finally:
                lock.release()

    def release(self, prefix: str) -> int:
        """Let go of the held bots whose key starts with `prefix` (a table's); how many."""
        with self.lock:
            keys = [key for key in self.seats if key.startswith(prefix)]
        for key in keys:
            with self._seat_lock(key):
                self._drop(key)
        return len(keys)

    def reap(self, now: float | None = None) -> int:
        """Let go of the bots idle for `idle_seconds` or held for `max_age`; how many."""
        now = time.monotonic() if now is None else now
        with self.lock:
            due = [key for key, held in self.seats.items()
                   if now - held.last_used >= self.idle_seconds or now - held.started >= self.max_age]
        for key in due:
            with self._seat_lock(key):
                held = self.seats.get(key)
                if held is not None and (now - held.last_used >= self.idle_seconds
                                         or now - held.started >= self.max_age):
                    self._drop(key)
        return len(due)

    def status(self) -> dict:
        """The held bots: per key, how many times its bot was started, how many decisions it was asked, and
        its sandbox (a container id, a cgroup, or a plain process's pid)."""
        with self.lock:
            seats = dict(self.seats)
            starts = dict(self.starts)
            in_flight, idle_for = self._in_flight, time.monotonic() - self.last_busy
        return {"pid": os.getpid(), "starts": starts, "in_flight": in_flight, "idle_seconds": round(idle_for, 1),
                "held": {key: {"told": held.told, "sandbox": _sandbox_of(held.player)} for key, held in seats.items()}}

    def idle(self) -> bool:
        with self.lock:
            return not self.seats and not self._in_flight and time.monotonic() - self.last_busy >= self.idle_seconds

    def close(self) -> None:
        with self.lock:
            keys = list(self.seats)
        for key in keys:
            self._drop(key)
        shutil.rmtree(self.folder, ignore_errors=True)


def _sandbox_of(player) -> str | None:
    process = getattr(player, "_process", None)
    return player.sandbox_id if getattr(player, "sandbox_id", None) else (str(process.pid) if process else None)


def _failure(verdict: Verdict, message: str) -> dict:
    return {"failure": {"verdict": Verdict(verdict).value, "message": message}}


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    holder: Holder


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline(LINE_BYTES + 1)
        if not line.endswith(b"\n"):
            return
        holder: Holder = self.server.holder  # type: ignore[attr-defined]  # set by `serve` on its _Server
        try:
            request = json.loads(line)
            operation = request["op"]
            if operation == "decide":
                answer = holder.decide(request)
            elif operation == "release":
                answer = {"released": holder.release(request["prefix"])}
            elif operation == "reap":
                answer = {"released": holder.reap()}
            elif operation == "status":
                answer = holder.status()
            else:
                answer = {"error": f"no operation {operation!r}"}
        except SandboxUnavailable as error:
            answer = {"unavailable": str(error)}
        except Exception as error:  # a platform fault: the worker raises it, the table's task is retried
            logger.exception("the holder failed a request")
            answer = {"error": f"{type(error).__name__}: {error}"}
        self.wfile.write(json.dumps(answer, separators=(",", ":")).encode() + b"\n")


def serve(folder: Path, *, idle_seconds: float, max_held: int, ready=None) -> None:
    """Be this folder's holder until nothing was held for `idle_seconds` (returns at once if another
    process is); `ready()` is called once the socket accepts."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    make_private_folder(folder)  # whoever may write there could pose as the holder
    # What a bot's start needs, loaded once here rather than by the first table's first decision.
    import games.bots  # noqa: F401
    import games.table  # noqa: F401
    from games import available_games

    available_games()
    lock = os.open(folder / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:  # another process holds: it serves
        os.close(lock)
        if ready:
            ready()
        return
    socket_path = folder / "holder.sock"
    socket_path.unlink(missing_ok=True)
    server = _Server(str(socket_path), _Handler)
    seats = folder / "seats"  # the bots' files; what a killed holder left goes now
    shutil.rmtree(seats, ignore_errors=True)
    server.holder = holder = Holder(seats, idle_seconds=idle_seconds, max_held=max_held)
    os.chmod(socket_path, 0o600)
    stop = threading.Event()

    def reaper() -> None:
        while not stop.wait(min(5.0, max(idle_seconds / 4, 0.05))):
            holder.reap()
            if holder.idle():
                server.shutdown()
                return

    threading.Thread(target=reaper, daemon=True, name="reaper").start()
    if threading.current_thread() is threading.main_thread():
        # An operator's stop (SIGTERM) lets go of every bot, as the idle end does.
        signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown, daemon=True).start())
    if ready:
        ready()
    try:
        server.serve_forever(poll_interval=0.5)
    finally:
        stop.set()
        socket_path.unlink(missing_ok=True)  # before the lock goes: the next holder's socket is never removed
        server.server_close()
        holder.close()
        os.close(lock)


def main(argv: list[str] | None = None) -> None:
    """`python -m sandbox.holder FOLDER --idle-seconds S --max-held N`: detach (a session of its own, the
    starting process's child gone), say "ready" on stdout once the socket accepts, then serve."""
    parser = argparse.ArgumentParser(prog="python -m sandbox.holder")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--idle-seconds", type=float, default=IDLE_SECONDS)
    parser.add_argument("--max-held", type=int, default=MAX_HELD)
    options = parser.parse_args(argv)
    reader, writer = os.pipe()
    if os.fork():  # the starter reaps this parent at once; the holder is nobody's zombie
        os.close(writer)
        os.read(reader, 1)
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        os._exit(0)
    os.close(reader)
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1, 2):  # the starter waits for the end of our stdout: it must not wait for the holder's
        os.dup2(devnull, stream)
    options.folder.parent.mkdir(parents=True, exist_ok=True)
    make_private_folder(options.folder)
    log = logging.handlers.RotatingFileHandler(options.folder / "holder.log", maxBytes=1 << 20, backupCount=1)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s holder %(levelname)s %(message)s", handlers=[log])

    def ready() -> None:
        os.write(writer, b"r")
        os.close(writer)

    serve(options.folder, idle_seconds=options.idle_seconds, max_held=options.max_held, ready=ready)


# --- the worker's side ---------------------------------------------------------------------------------------

class HolderClient:
    """A worker process's way to this host's holder (started on demand with its settings)."""

    def __init__(self, folder: Path | None = None, *, idle_seconds: float = IDLE_SECONDS, max_held: int = MAX_HELD):
        self.folder = folder or holder_dir()
        self.idle_seconds, self.max_held = idle_seconds, max_held

    @property
    def socket_path(self) -> Path:
        return self.folder / "holder.sock"

    def request(self, message: dict, *, start: bool = True, timeout: float = ANSWER_SECONDS) -> dict:
        """The holder's answer to `message` within `timeout` seconds (TimeoutError past it: a holder that
        stopped answering is a platform fault, and the table's task is sent again); HolderUnavailable if none
        answers (and, with `start`, none could be started)."""
        try:
            return self._ask(message, timeout)
        except (FileNotFoundError, ConnectionError) as error:  # none runs, or it died while answering
            if not start:
                raise HolderUnavailable(f"no holder answers at {self.socket_path}") from error
        self.start()
        try:
            return self._ask(message, timeout)
        except OSError as error:
            raise HolderUnavailable(f"the holder started at {self.socket_path} does not answer: {error}") from error

    def _ask(self, message: dict, timeout: float) -> dict:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(timeout)
            connection.connect(str(self.socket_path))
            connection.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            with connection.makefile("rb") as answers:
                line = answers.readline(LINE_BYTES + 1)
        if not line.endswith(b"\n"):
            raise ConnectionRefusedError(f"the holder at {self.socket_path} hung up without an answer")
        return json.loads(line)

    def start(self) -> None:
        """Start this host's holder unless one runs (a file lock picks one of several starting at once)."""
        try:
            starter = subprocess.run(
                [sys.executable, "-m", "sandbox.holder", str(self.folder), "--idle-seconds", str(self.idle_seconds),
                 "--max-held", str(self.max_held)],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                # From the folder holding this `sandbox` package (and `games`, in a checkout or site-packages
                # alike), which `-m` puts first on the holder's path.
                timeout=STARTUP_SECONDS, start_new_session=True, close_fds=True, cwd=Path(__file__).resolve().parents[1])
        except (OSError, subprocess.TimeoutExpired) as error:
            raise HolderUnavailable(f"the holder could not be started: {error}") from error
        if starter.stdout.strip() != b"ready":
            raise HolderUnavailable(f"the holder could not be started (exit status {starter.returncode})")

    def release(self, prefix: str) -> int:
        """Release the bots held for keys starting with `prefix` (none if no holder runs)."""
        try:
            return self.request({"op": "release", "prefix": prefix}, start=False)["released"]
        except HolderUnavailable:
            return 0

    def status(self) -> dict:
        return self.request({"op": "status"}, start=False)


class HeldPlayer:
    """A Player for `games.table.Table.bot_move_kept` whose bot the host's holder keeps between decisions:
    `follow` says where the seat stands, `act` asks the holder (and, if it kept no such bot, asks again
    with what a fresh bot must be told)."""

    def __init__(self, client: HolderClient, key: str, bot: dict, *, patience: float = ANSWER_SECONDS):
        # `patience`: how long the decision may last within the bot's limits, caught up or not (the holder
        # stops the bot itself by then; this only bounds a holder that stopped answering).
        self.client, self.key, self.bot, self.patience = client, key, bot, patience
        self.fingerprint = hashlib.sha256(json.dumps(bot, sort_keys=True).encode()).hexdigest()
        self.name = bot.get("name", key)
        self.history: Any = None
        self._setup: dict | None = None
        self._earlier: Callable[[], list[dict]] = list
        # Whether the last decision found its bot kept (False: it was started and caught up).
        self.kept: bool | None = None

    def follow(self, history, setup: dict, earlier: Callable[[], list[dict]]) -> None:
        self.history, self._setup, self._earlier = history, setup, earlier

    def act(self, observation: dict) -> Any:
        message = {"op": "decide", "key": self.key, "fingerprint": self.fingerprint, "bot": self.bot,
                   "history": dataclasses.asdict(self.history), "observation": observation}
        answer = self.client.request(message, timeout=self.patience)
        self.kept = not answer.get("miss")
        if answer.get("miss"):
            answer = self.client.request({**message, "setup": self._setup, "earlier": self._earlier()},
                                         timeout=self.patience)
        if "unavailable" in answer:
            raise SandboxUnavailable(answer["unavailable"])
        if "error" in answer:
            raise RuntimeError(f"the seat holder failed: {answer['error']}")
        if "failure" in answer:
            raise BotFailure(Verdict(answer["failure"]["verdict"]), answer["failure"]["message"])
        return answer["action"]

    def start(self, info: dict) -> None:  # the holder starts the bot (Player interface)
        self._setup = info

    def close(self) -> str:
        return ""


if __name__ == "__main__":
    main()
