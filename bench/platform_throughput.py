"""The sandbox's goals through the whole platform, each against the unsandboxed floor of the same run.

    python bench/platform_throughput.py [--matches 300] [--bots 20] [--workers 2] [--celery-workers 1]
        [--warm-containers 20] [--modes warm,none] [--long-matches 8] [--long-bots 4] [--round-trips 2000]
        [--profile FILE]

Needs PostgreSQL and Redis (DATABASE_URL, CELERY_BROKER_URL; defaults: the local ones, database
arena_platform_bench, dropped and created afresh) and Docker with the bot image. It creates --bots students'
bots, then for each mode (warm Docker, cold Docker, no sandbox: the floor) starts --celery-workers real
Celery workers (--workers pool processes each; fresh workers per mode, so no container outlives its mode),
queues --matches rated End Game challenges between the bots in one transaction and waits until every one
is finished. The pairs come round by round, every bot once a round, so that the matches played at once
never seat one version twice and each version is warmed up once. Per mode: matches a minute from the
commit to the last result, the steady rate (the last two thirds of the results, once every warm container
has been started), and how many warm containers the engine started. Then, with the same workers,
--long-matches rated 4-seat Crazy-KING and SortingGame matches between the documented example bots
(hundreds of decisions each: they dominate a card-game tournament): the cost of a decision through the
platform, each match's time from its claim to its recorded result divided by the decisions its seats made
(and the same without the first match of each pool process), and the time all of them took from their
queuing (a worker that waits for its bots' containers before claiming a match shows there only). Those bots' versions are uploaded in each
mode as a student uploads one (arena.bots.services.upload_version): validated by a match of their own in
a cold container, then, warm, started ahead of their first match (matches.tasks.warm_up_version); the
bench waits for both before queuing the matches, as a student's challenge comes after their upload. Two
matches at once seat the same four versions: the second pool process waits for the first's containers
(matches.services.claim), as long as a start takes, then starts its own; with --long-bots 8 the matches
seat two tables of four in turn, as a tournament's round seats each bot once. The
End Game bots' versions are made accepted instead: their warm-up is
part of End Game's overall figure, as its goal says.
Before the modes, the decision round trip of one bot in a warm container and as a plain process
(--round-trips each, alternately, in this process: bench/sandbox_bench.py's measure).

At the end, the issue's goals side by side as a table, with the load average at the start and the end
(a figure measured while other work ran on the host is not the sandbox's).
--profile FILE runs the worker's pool processes under cProfile (one FILE.PID per process; read them
with `python -m pstats`).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/arena_platform_bench")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/12")
from tournament_throughput import BOTS, ROOT, fresh_database

QUEUE = os.environ["ARENA_QUEUE"] = "arena-platform-bench"
# Where the workers' output goes (a worker that cannot start shows why there).
WORKER_LOGS = Path(tempfile.gettempdir()) / "platform-bench-workers"
# A mode whose workers finish no match in this long has failed (see WORKER_LOGS).
STALLED_SECONDS = 180
# How long the uploaded versions' warm-ups may take once validated (one container start each).
WARM_UP_SECONDS = 60

# The modes the goals compare; cold Docker (`--modes warm,cold,none`) serves validation only.
DEFAULT_MODES = "warm,none"
MODES = {
    # The platform's default where Docker works: warm containers for every match but validation.
    "warm": {"ARENA_SANDBOX": "", "ARENA_WARM_SANDBOX": "1"},
    "cold": {"ARENA_SANDBOX": "", "ARENA_WARM_SANDBOX": "0"},
    "none": {"ARENA_SANDBOX": "none"},
}

# Run in each pool process when --profile is given (Celery forks them, so the profiler starts after the fork).
PROFILE_HOOK = """
import cProfile, os, atexit
from celery.signals import worker_process_init, worker_process_shutdown
def _start(**kwargs):
    global _profile
    _profile = cProfile.Profile(); _profile.enable()
def _stop(**kwargs):
    _profile.disable(); _profile.dump_stats(os.environ["ARENA_BENCH_PROFILE"] + "." + str(os.getpid()))
worker_process_init.connect(_start, weak=False)
worker_process_shutdown.connect(_stop, weak=False)
"""


# The card games whose long matches dominate a tournament, and the example bot each seat plays.
LONG_GAMES = {"crazyking": "Crazy-KING", "sortinggame": "SortingGame"}
LONG_SEATS = 4


def make_bots(count: int, game: str = "endgame", codes: list[str] = BOTS) -> list:
    """`count` students' bots of `game`, each with an accepted version of one of `codes` (none if empty)."""
    from arena.bots.models import Bot, BotVersion
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    bots = []
    for number in range(count):
        student = users.create_user(f"bench-{game}-{number:03}", password="x-bench-1234")
        bot = Bot.objects.create(owner=student, game=game, name=f"bot{number}")
        if codes:
            code = codes[number % len(codes)]
            BotVersion.objects.create(bot=bot, number=1, filename="bot.py", code=code, size=len(code),
                                      sha256=hashlib.sha256(code.encode()).hexdigest(),
                                      status=BotVersion.Status.ACCEPTED)
        bots.append(bot)
    return bots


def make_long_game_bots(count: int) -> dict[str, list]:
    """`count` students' bots of each long game, with no version yet (see upload_long_game_versions)."""
    return {game: make_bots(count, game, codes=[]) for game in LONG_GAMES}


def upload_long_game_versions(mode: str, long_bots: dict[str, list]) -> tuple[int, int]:
    """Upload each long game's example bot as a new version of each of its bots, as a student does, and wait
    until validation has accepted every one and, warm, their warm-ups have started their containers (within
    WARM_UP_SECONDS: a warm-up takes only free room, so some may start none); (versions, warm ones)."""
    from arena.bots.models import BotVersion
    from arena.bots.services import upload_version

    examples = ROOT / "docs" / "bots" / "examples"
    uploaded = [upload_version(bot, (examples / f"{game}_example.py").read_bytes(), f"{game}_example.py").pk
                for game, bots in long_bots.items() for bot in bots]
    versions = BotVersion.objects.filter(pk__in=uploaded).select_related("bot")
    began = time.time()
    while versions.filter(status=BotVersion.Status.VALIDATING).exists():
        if time.time() - began > STALLED_SECONDS:
            raise RuntimeError(f"{mode}: the uploads are still validating after {STALLED_SECONDS} s; see {WORKER_LOGS}")
        time.sleep(0.5)
    if rejected := [f"{version.bot.game} v{version.number}: {version.verdict}"
                    for version in versions.exclude(status=BotVersion.Status.ACCEPTED)]:
        raise RuntimeError(f"{mode}: the example bots failed their validation: {rejected}")
    warm = 0
    deadline = time.time() + (WARM_UP_SECONDS if mode == "warm" else 0)
    while mode == "warm" and (warm := waiting_warm_containers(versions)) < len(uploaded) and time.time() < deadline:
        time.sleep(0.5)
    return len(uploaded), warm


def waiting_warm_containers(versions) -> int:
    """How many of `versions` have a warm container waiting, idle, for their next match."""
    from arena.matches.runner import warm_key
    from sandbox.base import waiting_in_shared_pool
    from sandbox.docker_backend import client
    from sandbox.pool import WARM_LABEL, warm_label

    def waiting(version) -> bool:
        label = f"{WARM_LABEL}={warm_label(warm_key(version.bot, version))}"
        return any(waiting_in_shared_pool(container["Id"])
                   for container in client().api.containers(filters={"label": label}))

    return sum(map(waiting, versions))


def start_workers(mode: str, args) -> list[subprocess.Popen]:
    env = {**os.environ, **MODES[mode], "ARENA_WARM_MAX_CONTAINERS": str(args.warm_containers)}
    workers = []
    WORKER_LOGS.mkdir(exist_ok=True)
    for number in range(args.celery_workers):
        command = [sys.executable, "-m", "celery", "-A", "arena", "worker", "-Q", QUEUE, "--concurrency",
                   str(args.workers), "--hostname", f"bench{number}@%h", "--loglevel", "WARNING",
                   "--without-gossip", "--without-mingle"]
        if args.profile:
            env["ARENA_BENCH_PROFILE"] = f"{args.profile}.{mode}"
            command = [sys.executable, "-c", PROFILE_HOOK + "\nimport sys\nfrom celery.__main__ import main\n"
                       "sys.argv = ['celery'] + sys.argv[1:]\nmain()", *command[3:]]
        with open(WORKER_LOGS / f"{mode}-{number}.log", "w") as log:
            workers.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log))
    time.sleep(4 + args.celery_workers)  # the workers' start is not part of the figure
    return workers


def round_by_round(bots: list, window: int = 4):
    """Every pair of `bots`, round after round for ever (the circle method: a round seats every bot once),
    each round begun where no bot of the previous round's last `window` - 1 matches plays in its first
    `window` - 1: the matches a worker's processes play at once (and those they hold next) never seat one
    version twice, so each version's warm container is started once and then reused. (All the pairs of the
    first bot in a row would start a container of it in each process.)"""
    seats = [*bots, None] if len(bots) % 2 else list(bots)
    half = len(seats) // 2
    previous: list[tuple] = []
    while True:
        for _ in range(len(seats) - 1):
            pairs = [(seats[i], seats[-1 - i]) for i in range(half) if None not in (seats[i], seats[-1 - i])]
            recent = {bot for pair in previous[-(window - 1):] for bot in pair}
            shift = next((shift for shift in range(len(pairs))
                          if not recent & {bot for pair in (pairs[shift:] + pairs[:shift])[:window - 1] for bot in pair}),
                         0)
            previous = pairs[shift:] + pairs[:shift]
            yield from previous
            seats = [seats[0], seats[-1], *seats[1:-1]]


def queue(game: str, tables, count: int) -> list[int]:
    """`count` rated challenges of `game` between the next tables of `tables`, queued in one transaction."""
    from django.db import transaction
    from arena.matches.models import Match
    from arena.matches.services import create_match

    with transaction.atomic():
        return [create_match(game, list(next(tables)), purpose=Match.Purpose.CHALLENGE, rated=True).pk
                for _ in range(count)]


def wait_until_played(label: str, queued: list[int]):
    """Poll until every queued match has ended; the time polling began; a failed match is an error."""
    from arena.matches.models import Match

    began = progressed = time.time()
    mine = Match.objects.filter(pk__in=queued)
    before = len(queued)
    while (left := mine.exclude(status__in=[Match.Status.FINISHED, Match.Status.SET_ASIDE]).count()):
        print(f"\r  {label}: {len(queued) - left} played, {time.time() - began:.0f} s", end="", file=sys.stderr)
        if left < before:
            before, progressed = left, time.time()
        elif time.time() - progressed > STALLED_SECONDS:
            raise RuntimeError(f"{label}: no match played for {STALLED_SECONDS} s; the workers' logs: {WORKER_LOGS}")
        time.sleep(0.5)
    print(file=sys.stderr)
    failed = mine.filter(status=Match.Status.SET_ASIDE).first()
    if failed is not None:
        raise RuntimeError(f"{label}: match {failed.pk} failed: {failed.error}")
    return began, mine


def end_game_rates(mode: str, bots: list, args) -> tuple[float, float]:
    """(matches a minute overall, steady matches a minute) of End Game challenges between `bots`."""
    queued = queue("endgame", round_by_round(bots), args.matches)
    began, mine = wait_until_played(mode, queued)
    finished = sorted(mine.values_list("finished_at", flat=True))
    overall = args.matches / (finished[-1].timestamp() - began) * 60
    third = len(finished) // 3
    steady = (len(finished) - 1 - third) / (finished[-1] - finished[third]).total_seconds() * 60
    return overall, steady


def decision_cost(mode: str, game: str, bots: list, count: int, first: int
                  ) -> tuple[float, float, float, float]:
    """(milliseconds a decision, decisions a match, milliseconds a decision in the matches after the `first`
    to start, seconds from the queuing to the last result) over `count` matches of `game`, its tables of
    LONG_SEATS of `bots` in turn. The first matches of each pool process may start warm containers of the
    bots (as no later match does): the third figure leaves them out. A match's cost runs from its claim: a
    worker waiting for its bots' containers before claiming it (matches.services.claim) shows in the last."""
    from django.db.models import Sum

    tables = [bots[start:start + LONG_SEATS] for start in range(0, len(bots), LONG_SEATS)]
    queued = queue(game, itertools.cycle(tables), count)
    began, mine = wait_until_played(f"{mode} {game}", queued)
    matches = sorted(mine.annotate(decisions=Sum("seats__decisions")), key=lambda match: match.started_at)

    def cost(played) -> float:
        busy = sum((match.finished_at - match.started_at).total_seconds() for match in played)
        return busy / sum(match.decisions for match in played) * 1000

    span = max(match.finished_at for match in matches).timestamp() - began
    return cost(matches), sum(match.decisions for match in matches) / count, cost(matches[first:] or matches), span


def warm_containers_started(since: float, versions) -> int:
    """How many warm containers of `versions` the Docker engine started since `since` (a time.time())."""
    from arena.matches.runner import warm_key
    from sandbox.docker_backend import client
    from sandbox.pool import WARM_LABEL, warm_label

    labels = {warm_label(warm_key(version.bot, version)) for version in versions}
    events = client().events(since=int(since), until=int(time.time()) + 1, decode=True,
                             filters={"type": "container", "event": "start", "label": WARM_LABEL})
    return sum(1 for event in events
               if event["timeNano"] >= since * 1e9 and event["Actor"]["Attributes"].get(WARM_LABEL) in labels)


def run_mode(mode: str, bots: list, long_bots: dict[str, list], args) -> dict:
    """The End Game rates and the long games' decision costs of `mode`, with workers of its own."""
    from arena.bots.models import BotVersion

    workers = start_workers(mode, args)
    try:
        began = time.time()
        figures = {"endgame": end_game_rates(mode, bots, args)}
        # One warm-up per bot version and host: every worker process shares the containers.
        figures["started"] = (warm_containers_started(began - 1, BotVersion.objects.filter(bot__in=bots))
                              if mode == "warm" else None)
        # Other work on a shared host moves the figures: each mode's own load goes with them.
        figures["load"] = os.getloadavg()[0]
        if args.long_matches:
            figures["uploads"] = upload_long_game_versions(mode, long_bots)
            first = args.workers * args.celery_workers  # (one match at a time in each pool process)
            long_began = time.time()
            figures.update({game: decision_cost(mode, game, long_bots[game], args.long_matches, first)
                            for game in long_bots})
            # What the warm-ups left to the matches: the containers the matches themselves started.
            figures["long_started"] = (warm_containers_started(long_began, BotVersion.objects.filter(
                bot__in=[bot for game_bots in long_bots.values() for bot in game_bots])) if mode == "warm" else None)
        return figures
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait()


def round_trips(count: int, rounds: int = 5) -> dict[str, float]:
    """Median milliseconds of a decision's round trip of one bot, in a warm container and as a plain process,
    measured alternately in `rounds` parts (a change of the host's load falls on both)."""
    import statistics

    from sandbox import pool
    from sandbox_bench import GREEDY_BOT, time_decisions

    bot = Path(tempfile.mkdtemp(prefix="platform-bench-")) / "greedy.py"
    bot.write_text(GREEDY_BOT)
    samples: dict[str, list[float]] = {"docker-warm": [], "none": []}
    try:
        for _ in range(rounds):
            for backend, taken in samples.items():
                taken += time_decisions(backend, bot, max(count // rounds, 1))
    finally:
        pool.close_default_pool()
    return {backend: statistics.median(taken) * 1000 for backend, taken in samples.items()}


def goals_table(figures: dict, trips: dict | None, loads: tuple, args) -> list[str]:
    """The issue's goals as a Markdown table: each sandboxed figure, its floor of this run, the ratio."""
    warm, floor = figures["warm"], figures["none"]
    rows = []
    if trips:
        rows.append(("decision round trip, warm container vs the same bot as a plain process",
                     f"{trips['docker-warm']:.3f} ms", f"{trips['none']:.3f} ms",
                     trips["docker-warm"] / trips["none"], 1.3))
    for game, title in LONG_GAMES.items():
        if game in warm:
            rows.append((f"{title} decision through the platform ({warm[game][1]:.0f} a match)",
                         f"{warm[game][0]:.2f} ms", f"{floor[game][0]:.2f} ms", warm[game][0] / floor[game][0], 1.5))
            rows.append((f"same, once each pool process's first match has started its containers",
                         f"{warm[game][2]:.2f} ms", f"{floor[game][2]:.2f} ms", warm[game][2] / floor[game][2], None))
            rows.append((f"{title}: all {args.long_matches} matches, from their queuing to the last result",
                         f"{warm[game][3]:.2f} s", f"{floor[game][3]:.2f} s", warm[game][3] / floor[game][3], None))
    for index, (label, goal) in enumerate([("overall, warm-up included", 1.25), ("steady", 1.1)]):
        rows.append((f"End Game challenges, {label}", f"{warm['endgame'][index]:.0f} a minute",
                     f"{floor['endgame'][index]:.0f} a minute", floor["endgame"][index] / warm["endgame"][index],
                     goal))
    lines = [f"Goals (issue 27), warm Docker against no sandbox in this run; load average {loads[0]:.2f} at the "
             f"start, {loads[1]:.2f} at the end, {os.cpu_count()} cores; {args.celery_workers} Celery worker(s) of "
             f"{args.workers} pool processes, {args.matches} End Game challenges between {args.bots} bots, "
             + (f"{args.long_matches} long matches a card game between {args.long_bots} bots, {LONG_SEATS} a match "
                f"(their versions uploaded, validated and warmed up "
                f"ahead: {warm['uploads'][1]} of {warm['uploads'][0]} warm before their first match, "
                f"{warm['long_started']} containers started by the matches), " if args.long_matches
                else "no long matches (--long-matches 0), ")
             + f"{warm['started']} warm containers started for {args.bots} End Game versions:",
             "", "| figure | warm Docker | floor | ratio | goal |", "|---|---|---|---|---|"]
    lines += [f"| {label} | {sandboxed} | {floored} | {ratio:.2f}x | "
              f"{'(for analysis)' if goal is None else f'{goal}x ' + ('met' if ratio <= goal else 'missed')} |"
              for label, sandboxed, floored, ratio, goal in rows]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2, help="Celery pool processes a worker")
    parser.add_argument("--celery-workers", type=int, default=1, help="Celery workers started on this host")
    parser.add_argument("--warm-containers", type=int, default=20,
                        help="ARENA_WARM_MAX_CONTAINERS: warm containers kept per pool process")
    parser.add_argument("--modes", default=DEFAULT_MODES, help=f"among {','.join(MODES)}")
    parser.add_argument("--long-matches", type=int, default=8,
                        help="Crazy-KING and SortingGame matches per mode for the cost of a decision (0: none)")
    parser.add_argument("--long-bots", type=int, default=LONG_SEATS,
                        help=f"bots of each card game, seated {LONG_SEATS} a match in turn (a multiple of {LONG_SEATS})")
    parser.add_argument("--round-trips", type=int, default=2000,
                        help="decisions timed in a warm container and as a plain process (0: none)")
    parser.add_argument("--profile", help="cProfile the pool processes into FILE.MODE.PID")
    args = parser.parse_args()
    modes = args.modes.split(",")
    if unknown := set(modes) - set(MODES):
        parser.error(f"unknown modes {sorted(unknown)}; choose among {sorted(MODES)}")
    if args.long_bots < LONG_SEATS or args.long_bots % LONG_SEATS:
        parser.error(f"--long-bots must be a multiple of {LONG_SEATS}")

    began, load_at_start = time.time(), os.getloadavg()[0]
    fresh_database()
    import django

    django.setup()
    from arena.celery import app

    app.control.purge()  # what an interrupted run left on the bench's queue would play this run's matches
    bots = make_bots(args.bots)
    long_bots = make_long_game_bots(args.long_bots)
    trips = round_trips(args.round_trips) if args.round_trips and {"warm", "none"} <= set(modes) else None
    figures = {mode: run_mode(mode, bots, long_bots, args) for mode in modes}
    load = os.getloadavg()
    print(f"{args.matches} rated End Game matches between {args.bots} bots through the platform (PostgreSQL, Redis, "
          f"{args.celery_workers} Celery worker(s) with {args.workers} pool processes, up to {args.warm_containers} "
          f"warm containers each); load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on "
          f"{os.cpu_count()} cores, {time.time() - began:.0f} s in all:")
    floor = figures.get("none")
    for mode, rates in figures.items():
        overall, steady = rates["endgame"]
        ratio = (f", floor / {mode}: {floor['endgame'][0] / overall:.2f}x overall, "
                 f"{floor['endgame'][1] / steady:.2f}x steady") if floor else ""
        started = f", {rates['started']} warm containers started" if rates["started"] is not None else ""
        print(f"  {mode:5} {overall:6.0f} matches/min overall, {steady:6.0f} steady{ratio} "
              f"(load {rates['load']:.1f}{started})")
    if args.long_matches:
        print(f"The cost of a decision in {args.long_matches} rated {LONG_SEATS}-seat matches of the example bots "
              f"(claim to recorded result, over the decisions made), their versions uploaded as a student's "
              f"(validated, then warmed up ahead of their first match: "
              + ", ".join(f"{mode} {rates['uploads'][1]} of {rates['uploads'][0]}" for mode, rates in figures.items())
              + " warm):")
        for game, title in LONG_GAMES.items():
            for mode, rates in figures.items():
                cost, decisions, steady, span = rates[game]
                ratio = (f", {cost / floor[game][0]:.2f}x the floor; {steady:.2f} ms after the first matches, "
                         f"{steady / floor[game][2]:.2f}x") if floor else ""
                print(f"  {title:11} {mode:5} {cost:6.2f} ms a decision ({decisions:.0f} decisions a match){ratio}; "
                      f"all played {span:.2f} s after their queuing")
    if "warm" in figures and floor:
        print()
        print("\n".join(goals_table(figures, trips, (load_at_start, load[0]), args)))


if __name__ == "__main__":
    main()
