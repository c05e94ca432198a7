"""A soak run: workers SIGKILLed at random moments, PostgreSQL and Redis restarted, under a stream of rated
challenges and a running tournament; then a burst of uploads and challenges on the SQLite demo.

    python bench/soak.py [--kills 50] [--seed N] [--students 24] [--workers 2] [--entrants 16]
        [--deadline 30] [--sqlite-uploads 100] [--sqlite-challenges 300] [--no-sqlite]

`--kills 5 --sqlite-uploads 10 --sqlite-challenges 30` is a quick check. Needs Docker with the bot image,
redis-server and the PostgreSQL server binaries (/usr/lib/postgresql/*/bin): the soak runs its own
PostgreSQL cluster and redis-server on free ports (never the shared ones), so that it can restart them.

The stream: --students students upload one End Game bot each (validated in the sandbox, as on the site),
then rated challenges between different owners' bots and built-ins go through the challenge service
(fair-play rules and the in-flight limit included; refusals are counted) while an --entrants-bot round
robin plays. --workers Celery workers (one pool process each, the real sandbox: warm Docker) and a
scheduler sending the production sweeps every --sweep-every seconds do the work. A seeded RNG picks the
moments and the worker to SIGKILL (the whole process group), which is restarted at once as a supervisor
would; a third of the way through PostgreSQL is stopped (immediate mode: a crash) and started, two
thirds of the way Redis (no persistence: every queued message is lost). Lost work is recovered by the
claim deadline (--deadline seconds, production 600) and the sweep. Then it waits for every match and the
tournament to end and checks that nothing is stranded, every result and rating change is recorded once
(`recompute_ratings` agrees), every series is decided once, and no container or folder of the soak's
worker processes is left. Exits 1 if an invariant fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "tests" / "platform"
INHERITED_ENV = {key: value for key, value in os.environ.items()
                 if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "ARENA_QUEUE", "PYTEST_XDIST_WORKER")}


def tests_helper(path: Path) -> ModuleType:
    """One of the tests' helper modules, loaded from its file under its own name. They are no package (pytest
    finds them on its own path, and nothing may edit Python's path): the lab's own imports of its helpers
    (left_behind, platform_helpers) find them here once loaded, in that order."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = sys.modules[path.stem] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The tests' lab of Celery workers and servers.
tests_helper(ROOT / "tests" / "left_behind.py")
wait_for = tests_helper(LAB / "platform_helpers.py").wait_for
celery_lab = tests_helper(LAB / "celery_lab.py")
BEAT, CeleryProcess, RedisServer = celery_lab.BEAT, celery_lab.CeleryProcess, celery_lab.RedisServer
folders_of, free_port, sandboxes_of = celery_lab.folders_of, celery_lab.free_port, celery_lab.sandboxes_of

QUEUE = "arena-soak"
PG_BIN = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1] if Path("/usr/lib/postgresql").exists() else None
# initdb and postgres refuse to run as root.
PG_USER = "postgres" if os.geteuid() == 0 else None
EXAMPLE = (ROOT / "docs" / "bots" / "examples" / "endgame_example.py").read_text()
GREEDY = ("def act(observation):\n    board = observation['board']\n"
          "    return 'left' if board[0] >= board[-1] else 'right'\n")
LOOKAHEAD = ("def act(observation):\n    board = observation['board']\n    if len(board) == 1:\n        return 'left'\n"
             "    left = board[0] - max(board[1], board[-1])\n    right = board[-1] - max(board[0], board[-2])\n"
             "    return 'left' if left >= right else 'right'\n")
# Thinks 0.15 s a move (the limit is 1 s): its matches last long enough to be killed mid-way.
SLOW = "import time\n\n" + GREEDY.replace("    board =", "    time.sleep(0.15)\n    board =", 1)
STUDENT_CODES = (EXAMPLE, GREEDY, LOOKAHEAD, SLOW)
BUILTINS = ("greedy", "optimal", "random")


class PostgresServer:
    """A private PostgreSQL cluster in `folder` on a free port, which the soak may crash and restart."""

    def __init__(self, folder: Path):
        self.home = folder / "postgres"
        self.data = self.home / "data"
        self.port = free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/arena_soak"

    def _run(self, program: str, *args: str) -> None:
        subprocess.run([str(PG_BIN / program), *args], check=True, capture_output=True, user=PG_USER)

    def create(self) -> None:
        self.home.mkdir()
        if PG_USER:
            os.chown(self.home, *self._owner())
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        self.start()
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "arena_soak")

    def _owner(self) -> tuple[int, int]:
        import pwd

        entry = pwd.getpwnam(PG_USER)
        return entry.pw_uid, entry.pw_gid

    def start(self) -> None:
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.home} "
                   "-c fsync=off -c max_connections=200")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.home / "postgres.log"), "-o", options, "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")


@dataclass
class Kill:
    at: float  # time.time(), to compare with the matches' finished_at
    matches: list[int]  # the matches the killed processes were playing


class Supervisor:
    """The soak's Celery workers and scheduler; a killed worker is started again at once."""

    def __init__(self, env: dict, folder: Path, workers: int, sweep_every: float):
        self.env, self.folder = env, folder
        self.started = 0
        self.pids: set[int] = set()  # every worker process the soak ever ran: their leftovers are checked
        self.workers = [self._worker(slot) for slot in range(workers)]
        self.beat = CeleryProcess("beat", [sys.executable, "-c", BEAT, str(sweep_every), str(folder / "beat-schedule")],
                                  env, folder, "beat: Starting...")
        self.beat.wait_ready()

    def _worker(self, slot: int) -> CeleryProcess:
        self.started += 1
        name = f"worker{slot}-{self.started}"
        worker = CeleryProcess(name, [sys.executable, "-m", "celery", "-A", "arena", "worker", "-Q", QUEUE, "-n",
                                      f"{name}@%h", "--concurrency", "1", "--loglevel", "INFO", "--without-gossip",
                                      "--without-mingle", "--without-heartbeat"], self.env, self.folder, "ready.")
        worker.wait_ready(120)
        self.pids |= worker.pids()
        return worker

    def kill(self, slot: int) -> Kill:
        """SIGKILL the worker in `slot` (its pool process too), wait until it is gone, start another."""
        from arena.matches import runner

        worker = self.workers[slot]
        group = worker.pids()
        self.pids |= group
        playing = [int(folder.name.split("-")[3]) for folder in folders_of(group, runner.FOLDER_PREFIX)]
        at = time.time()
        worker.kill()
        # A zombie passes for a live owner of its containers: the next worker cleans up once they are reaped.
        wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in group), 60, "the killed workers to go")
        self.workers[slot] = self._worker(slot)
        return Kill(at, playing)

    def stop(self) -> None:
        everyone = [*self.workers, self.beat]
        for process in everyone:
            self.pids |= process.pids()
            process.terminate()
        for process in everyone:
            process.stop(timeout=60)


class ChallengeStream(threading.Thread):
    """Rated challenges from students' bots to other owners' bots and built-ins, `backlog` queued at most."""

    def __init__(self, students: list, opponents: list, rng: random.Random, backlog: int):
        super().__init__(daemon=True)
        self.students, self.opponents, self.rng, self.backlog = students, opponents, rng, backlog
        self.stopping = threading.Event()
        self.sent = self.refused = 0
        self.failure: BaseException | None = None

    def run(self) -> None:
        from django.db import connection
        from arena.matches.transient import retrying

        try:
            while not self.stopping.is_set():
                if retrying(self._waiting, patience=120) >= self.backlog or not retrying(self._send, patience=120):
                    self.stopping.wait(0.2)
        except BaseException as exc:  # reported by the soak, which fails with it
            self.failure = exc
        finally:
            connection.close()

    def _waiting(self) -> int:
        from arena.matches.models import Match

        return Match.objects.filter(purpose=Match.Purpose.CHALLENGE, status=Match.Status.QUEUED).count()

    def _send(self) -> bool:
        """One challenge the rules allow (False if none of a few tries was: every student at its limit)."""
        from arena.core.budget import OverBudget
        from arena.matches import services

        for _ in range(20):
            bot = self.rng.choice(self.students)
            opponent = self.rng.choice([o for o in self.opponents if o.owner_id != bot.owner_id])
            try:
                services.challenge(bot.owner, bot, [opponent], rated=True)
            except (services.ChallengeError, OverBudget):  # fair play, or the owner's budget for bot work
                self.refused += 1
                continue
            self.sent += 1
            return True
        return False


# --- the platform under faults ----------------------------------------------------------------------------

def platform_env(args, postgres: PostgresServer, redis: RedisServer, folder: Path) -> dict:
    return {**INHERITED_ENV, "DATABASE_URL": postgres.url, "CELERY_BROKER_URL": redis.url, "ARENA_QUEUE": QUEUE,
            "ARENA_MATCH_DEADLINE_SECONDS": str(args.deadline), "ARENA_VAR_DIR": str(folder / "var"),
            "ARENA_SANDBOX": args.sandbox, "DJANGO_SETTINGS_MODULE": "arena.settings"}


def populate(args):
    """An instructor, a course, --students students who each upload one End Game bot, and the built-ins."""
    from arena.accounts.models import Course
    from arena.bots.models import Bot
    from arena.bots.services import create_bot, upload_version
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    instructor = users.create_user("soak-teacher", password="x-soak-1234")
    course = Course.objects.create(code="soak", name="Soak")
    course.instructors.add(instructor)
    students = []
    for number in range(args.students):
        student = users.create_user(f"soak{number:02}", password="x-soak-1234")
        course.students.add(student)
        bot = create_bot(student, "endgame", f"bot{number}")
        upload_version(bot, STUDENT_CODES[number % len(STUDENT_CODES)].encode(), "bot.py")
        students.append(bot)
    return instructor, course, students, [Bot.objects.builtin("endgame", name) for name in BUILTINS]


def validated() -> bool:
    from arena.bots.models import BotVersion

    waiting = BotVersion.objects.filter(status=BotVersion.Status.VALIDATING).exists()
    assert waiting or not BotVersion.objects.exclude(status=BotVersion.Status.ACCEPTED).exists(), \
        "an uploaded bot was rejected: the soak needs every one"
    return not waiting


def start_tournament(instructor, course, entrants: list):
    from arena.tournaments import services

    tournament = services.create_tournament(instructor, course, name="Soak round robin", game="endgame",
                                            format="round-robin", games_per_series=2, config={"length": 12},
                                            seeding="given")
    for bot in entrants:
        services.add_entrant(instructor, tournament, bot)
    return services.start(instructor, tournament)


def outage(stop, start) -> float:
    """Seconds a service was down: stopped, then started again (which waits until it answers)."""
    began = time.monotonic()
    stop()
    start()
    return time.monotonic() - began


def kill_at_random(args, rng: random.Random, supervisor: Supervisor, postgres: PostgresServer, redis: RedisServer,
                   stream: ChallengeStream) -> tuple[list[Kill], dict[str, float]]:
    """--kills SIGKILLs at random moments, PostgreSQL crashed a third of the way, Redis two thirds."""
    from arena.matches.models import Match
    from arena.matches.transient import retrying

    kills, outages = [], {}
    for number in range(1, args.kills + 1):
        time.sleep(rng.uniform(args.min_gap, args.max_gap))  # the random moment itself, not a wait for anything
        slot = rng.randrange(len(supervisor.workers))
        kills.append(supervisor.kill(slot))
        if number == max(1, args.kills // 3):
            outages["PostgreSQL (immediate stop, start)"] = outage(lambda: postgres.stop("immediate"), postgres.start)
        if number == max(2, 2 * args.kills // 3):
            outages["Redis (killed, started empty)"] = outage(redis.kill, redis.start)
        if stream.failure:
            raise RuntimeError("the challenge stream failed") from stream.failure
        done = retrying(Match.objects.filter(status=Match.Status.FINISHED).count, patience=60)
        print(f"  kill {number}/{args.kills}: worker {slot} was playing {kills[-1].matches or 'nothing'}; "
              f"{done} matches finished", file=sys.stderr)
    return kills, outages


def everything_over(tournament_id: int) -> bool:
    from arena.matches.models import Match
    from arena.matches.transient import retrying
    from arena.tournaments.models import Tournament

    def over():
        return (not Match.objects.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).exists()
                and Tournament.objects.get(pk=tournament_id).status != Tournament.Status.RUNNING)

    return retrying(over, patience=60)


def settle(predicate, timeout: float, what: str) -> bool:
    """wait_for, answering False on its timeout instead of failing: the figures are printed either way."""
    import pytest

    try:
        wait_for(predicate, timeout, what)
    except pytest.fail.Exception:
        return False
    return True


def platform_soak(args, seed: int, folder: Path, postgres: PostgresServer, redis: RedisServer) -> list[tuple]:
    env = platform_env(args, postgres, redis, folder)
    os.environ.update(env)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    import django

    django.setup()
    import arena.celery  # noqa: F401  (this process publishes to the soak's broker through the arena app)

    instructor, course, students, builtins = populate(args)
    supervisor = Supervisor(env, folder, args.workers, args.sweep_every)
    try:
        wait_for(validated, 600, "the students' uploads to be validated")
        stream = ChallengeStream(students, students + builtins, random.Random(seed + 1), args.backlog)
        began = time.monotonic()
        entrants = builtins + students[:args.entrants - len(builtins)]
        tournament = start_tournament(instructor, course, entrants)
        stream.start()
        kills, outages = kill_at_random(args, random.Random(seed), supervisor, postgres, redis, stream)
        stream.stopping.set()
        stream.join()
        print("  the stream is over; waiting for the last matches", file=sys.stderr)
        settled = settle(lambda: everything_over(tournament.pk), args.timeout, "every match and the tournament")
        wall = time.monotonic() - began
    finally:
        supervisor.stop()
    return [
        ("matches/tournament settled within the bound", f"{'yes' if settled else 'NO'} ({args.timeout:.0f} s)",
         settled),
        *stream_figures(stream, began, wall, supervisor, kills, outages),
        *match_checks(),
        *rating_checks(),
        *tournament_checks(tournament.pk, len(entrants)),
        *leftover_checks(supervisor.pids),
    ]


# --- figures and invariants: (label, value, True/False for an invariant or None for a figure) -----------------

def percentiles(values: list[float]) -> str:
    """p50 / p95 / max of `values` (p95 by the inclusive method: within the observed range)."""
    if not values:
        return "none"
    p95 = statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]
    return f"{statistics.median(values):.1f} / {p95:.1f} / {max(values):.1f} s"


def stream_figures(stream: ChallengeStream, began: float, wall: float, supervisor: Supervisor, kills: list[Kill],
                   outages: dict[str, float]) -> list[tuple]:
    from arena.matches.models import Match

    played = Match.objects.filter(status=Match.Status.FINISHED).exclude(purpose=Match.Purpose.VALIDATION).count()
    hit = [match for kill in kills for match in kill.matches]
    finished_at = dict(Match.objects.filter(pk__in=hit, status=Match.Status.FINISHED).values_list("pk", "finished_at"))
    recovery = [finished_at[match].timestamp() - kill.at for kill in kills for match in kill.matches
                if match in finished_at]
    return [
        ("wall time (stream start to the last result)", f"{wall:.0f} s", None),
        ("matches finished a minute (challenges + tournament)", f"{played / wall * 60:.1f}", None),
        ("challenges sent / refused by the rules (fair play, in flight)", f"{stream.sent} / {stream.refused}", None),
        ("workers SIGKILLed and restarted", f"{len(kills)} ({supervisor.started} worker starts)", None),
        ("kills that hit a match in play", f"{sum(bool(k.matches) for k in kills)} ({len(hit)} matches)", None),
        ("kill to that match finished: p50 / p95 / max", percentiles(recovery), None),
        ("killed matches finished afterwards", f"{len(recovery)} of {len(hit)}", len(recovery) == len(hit)),
        *((f"outage: {name}", f"{seconds:.1f} s", None) for name, seconds in outages.items()),
    ]


def match_checks() -> list[tuple]:
    from django.db.models import Count, Max
    from arena.matches.models import Match, MatchSeat

    statuses = dict(Match.objects.values_list("status").annotate(Count("id")))
    purposes = dict(Match.objects.values_list("purpose").annotate(Count("id")))
    stranded = statuses.get(Match.Status.QUEUED, 0) + statuses.get(Match.Status.RUNNING, 0)
    errors = list(Match.objects.filter(status=Match.Status.SET_ASIDE).values_list("error", flat=True)[:3])
    verdicts = dict(MatchSeat.objects.filter(match__status=Match.Status.FINISHED).exclude(status=MatchSeat.Status.OK)
                    .values_list("status").annotate(Count("id")))
    replayed = Match.objects.filter(attempts__gt=1)
    unjudged = MatchSeat.objects.filter(match__status=Match.Status.FINISHED, status=MatchSeat.Status.PENDING).count()
    return [
        ("matches queued (by purpose)", f"{sum(purposes.values())} {purposes}", None),
        ("matches finished", statuses.get(Match.Status.FINISHED, 0), None),
        ("matches set aside by the platform", f"{statuses.get(Match.Status.SET_ASIDE, 0)} {errors or ''}",
         None),
        ("finished seats with a failing verdict (the bot's)", verdicts or 0, None),
        ("matches stranded (queued or running at the end)", stranded, stranded == 0),
        ("matches cancelled", statuses.get(Match.Status.CANCELLED, 0), Match.Status.CANCELLED not in statuses),
        ("matches claimed more than once (max attempts)",
         f"{replayed.count()} ({replayed.aggregate(most=Max('attempts'))['most'] or 1})", None),
        ("finished seats without a verdict", unjudged, unjudged == 0),
    ]


def rating_checks() -> list[tuple]:
    from django.core.management import CommandError, call_command
    from django.db.models import Sum
    from arena.matches.models import Match, MatchSeat
    from arena.ratings.models import Rating

    rated_seats = MatchSeat.objects.filter(match__rated=True, match__status=Match.Status.FINISHED).count()
    changes = MatchSeat.objects.filter(rating_after__isnull=False).count()
    stray = MatchSeat.objects.filter(rating_after__isnull=False).exclude(match__status=Match.Status.FINISHED).count()
    played = Rating.objects.aggregate(total=Sum("played"))["total"] or 0
    try:
        call_command("recompute_ratings", stdout=open(os.devnull, "w"))
        recomputed = True
    except CommandError as error:
        recomputed = False
        print(f"recompute_ratings: {error}", file=sys.stderr)
    return [
        ("rated seats / rating changes / games counted in ratings", f"{rated_seats} / {changes} / {played}",
         rated_seats == changes == played and rated_seats > 0),
        ("rating changes on matches not finished", stray, stray == 0),
        ("recompute_ratings from the history agrees", "yes" if recomputed else "NO", recomputed),
    ]


def tournament_checks(tournament_id: int, entrants: int) -> list[tuple]:
    from arena.matches.models import Match
    from arena.tournaments.models import Series, SeriesGame, Tournament

    tournament = Tournament.objects.get(pk=tournament_id)
    series = tournament.series.filter(bye=False)
    decided = series.filter(status=Series.Status.DECIDED, decided_at__isnull=False).count()
    matches = Match.objects.filter(series_game__series__tournament=tournament)
    games = SeriesGame.objects.filter(series__tournament=tournament)
    gapless = all(list(row.games.order_by("index").values_list("index", flat=True)) == list(range(row.games.count()))
                  for row in series)
    expected = entrants * (entrants - 1) // 2
    return [
        ("tournament", f"{tournament.status}, champion {tournament.champion.bot if tournament.champion else 'shared'}",
         tournament.status == Tournament.Status.FINISHED),
        ("series decided / expected", f"{decided} / {expected}", decided == series.count() == expected),
        ("tournament games / their matches / finished", f"{games.count()} / {matches.count()} / "
         f"{matches.filter(status=Match.Status.FINISHED).count()}",
         games.count() == matches.count() == matches.filter(status=Match.Status.FINISHED).count() and gapless),
    ]


def leftovers(pids: set[int]) -> tuple[set[str], set[Path]]:
    """The bot containers, and the match and sandbox folders, that the processes `pids` left on this host."""
    from arena.matches import runner
    from sandbox.base import STAGING_PREFIX

    return sandboxes_of(pids), folders_of(pids, runner.FOLDER_PREFIX) | folders_of(pids, STAGING_PREFIX)


def leftover_checks(pids: set[int]) -> list[tuple]:
    containers, folders = leftovers(pids)
    return [
        ("worker processes run (their leftovers checked)", len(pids), None),
        ("containers left by them", len(containers), not containers),
        ("match and sandbox folders left by them", len(folders), not folders),
    ]


# --- the SQLite demo under a burst ---------------------------------------------------------------------------

def sqlite_burst(args, folder: Path) -> list[tuple]:
    """--sqlite-uploads uploads and --sqlite-challenges challenges at once from --sqlite-students threads
    (tests/platform/sqlite_burst.py) on the demo's embedded configuration, played by a demo worker in the
    demo's sandbox; no scheduler and a deadline out of reach, so no match can rely on the sweep."""
    var = folder / "sqlite"
    var.mkdir()
    env = {**INHERITED_ENV, "ARENA_VAR_DIR": str(var), "DJANGO_SETTINGS_MODULE": "arena.settings",
           "ARENA_SANDBOX": args.sandbox, "ARENA_MATCH_DEADLINE_SECONDS": "3600"}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    worker = CeleryProcess("sqlite-worker", [sys.executable, "-m", "celery", "-A", "arena", "worker", "--concurrency",
                                             "2", "--loglevel", "INFO", "--without-gossip", "--without-mingle", "-n",
                                             f"sqlite-soak-{os.getpid()}@%h"], env, folder, "ready.")
    worker.wait_ready(120)
    pids = worker.pids()
    students = args.sqlite_students
    try:
        began = time.monotonic()
        burst = subprocess.run([sys.executable, str(LAB / "sqlite_burst.py"), str(students),
                                str(args.sqlite_uploads // students), str(args.sqlite_challenges // students)],
                               cwd=ROOT, env=env, capture_output=True, text=True, timeout=args.timeout)
        assert burst.returncode == 0, burst.stderr[-3000:]
        report = json.loads(burst.stdout.strip().splitlines()[-1])
        sent = time.monotonic() - began
        queued = report["queued"]
        database = var / "arena.sqlite3"
        settled = settle(lambda: set(sqlite_statuses(database, queued)) <= {"finished", "set_aside"}, args.timeout,
                         "the burst's matches")
        drained = time.monotonic() - began
    finally:
        pids |= worker.pids()
        worker.stop(timeout=60)
    with sqlite3.connect(database, timeout=30) as db:
        marks = ",".join("?" * len(queued))
        waits = db.execute(f"SELECT max((julianday(started_at) - julianday(created_at)) * 86400), "
                           f"sum(attempts > 1) FROM matches_match WHERE id IN ({marks})", queued).fetchone()
    statuses = sqlite_statuses(database, queued)
    counts = {status: statuses.count(status) for status in sorted(set(statuses))}
    containers, folders = leftovers(pids)
    return [
        ("SQLite: requests that failed (would be a 500)", len(report["errors"]), not report["errors"]),
        ("SQLite: matches queued by the burst / seconds to send", f"{len(queued)} / {sent:.0f} s", None),
        ("SQLite: matches by status", counts, settled and set(counts) == {"finished"}),
        ("SQLite: stranded (never finished by their own task)", len(queued) - counts.get("finished", 0),
         counts.get("finished", 0) == len(queued)),
        ("SQLite: matches claimed more than once", waits[1] or 0, not waits[1]),
        ("SQLite: max queue wait / burst drained in", f"{waits[0] or 0:.0f} s / {drained:.0f} s", None),
        ("SQLite: containers / folders left by its worker", f"{len(containers)} / {len(folders)}",
         not containers and not folders),
    ]


def sqlite_statuses(database: Path, ids: list[int]) -> list[str]:
    with sqlite3.connect(database, timeout=30) as db:
        return [row[0] for row in db.execute(
            f"SELECT status FROM matches_match WHERE id IN ({','.join('?' * len(ids))})", ids)]


# --- the run ---------------------------------------------------------------------------------------------------

def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=50, help="worker SIGKILLs (each followed by a restart)")
    parser.add_argument("--seed", type=int, help="for the kill moments and the challenges (default: random, printed)")
    parser.add_argument("--students", type=int, default=24, help="students uploading one bot each")
    parser.add_argument("--entrants", type=int, default=16, help="round robin entrants (3 built-ins, then students)")
    parser.add_argument("--workers", type=int, default=2, help="Celery workers, one pool process each")
    parser.add_argument("--backlog", type=int, default=6, help="challenges kept queued by the stream")
    parser.add_argument("--min-gap", type=float, default=1.0, help="seconds at least between a restart and a kill")
    parser.add_argument("--max-gap", type=float, default=10.0, help="seconds at most between a restart and a kill")
    parser.add_argument("--deadline", type=int, default=30, help="ARENA_MATCH_DEADLINE_SECONDS (production: 600)")
    parser.add_argument("--sweep-every", type=float, default=2.0, help="seconds between the scheduler's sweeps")
    parser.add_argument("--sandbox", default="", help="ARENA_SANDBOX (default: the platform's choice, warm Docker)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds to wait for the work to settle")
    parser.add_argument("--sqlite-students", type=int, default=10)
    parser.add_argument("--sqlite-uploads", type=int, default=100)
    parser.add_argument("--sqlite-challenges", type=int, default=300)
    parser.add_argument("--no-sqlite", action="store_true", help="skip the SQLite burst")
    args = parser.parse_args()
    if args.entrants <= len(BUILTINS) or args.entrants - len(BUILTINS) > args.students:
        parser.error(f"--entrants takes the {len(BUILTINS)} built-ins and then students' bots")
    return args


def print_table(rows: list[tuple]) -> None:
    width = max(len(label) for label, _, _ in rows)
    for label, value, ok in rows:
        mark = "" if ok is None else ("  ok" if ok else "  FAILED")
        print(f"  {label:<{width}}  {value}{mark}")


def main() -> int:
    args = parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    folder = Path(tempfile.mkdtemp(prefix="arena-soak-"))
    folder.chmod(0o755)  # the PostgreSQL server runs as its own user under it
    print(f"soak: seed {seed}, {args.kills} kills, {args.workers} workers, logs in {folder}", flush=True)
    load = os.getloadavg()
    postgres, redis = PostgresServer(folder), RedisServer(folder)
    rows = []
    try:
        postgres.create()
        redis.start()
        rows += platform_soak(args, seed, folder, postgres, redis)
    finally:
        redis.kill()
        postgres.stop("immediate")
    if not args.no_sqlite:
        rows += sqlite_burst(args, folder)
    rows.append(("load average (1 min) at the start / the end", f"{load[0]:.1f} / {os.getloadavg()[0]:.1f} "
                 f"on {os.cpu_count()} cores", None))
    print(f"\nsoak figures (seed {seed}):")
    print_table(rows)
    failed = [label for label, _, ok in rows if ok is False]
    print(f"\n{'FAILED: ' + '; '.join(failed) if failed else 'every invariant held'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
