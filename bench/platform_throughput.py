"""End Game matches a minute through the whole platform, on the warm Docker path, the cold one and no sandbox.

    python bench/platform_throughput.py [--matches 300] [--bots 20] [--workers 2] [--warm-containers 20]
        [--modes warm,cold,none] [--long-matches 8] [--profile FILE]

Needs PostgreSQL and Redis (DATABASE_URL, CELERY_BROKER_URL; defaults: the local ones, database
arena_platform_bench, dropped and created afresh) and Docker with the bot image. It creates --bots students'
bots, then for each mode starts one real Celery worker (--workers pool processes, a fresh worker per
mode so no container outlives its mode), queues --matches rated End Game challenges between the bots
(every pair in turn) in one transaction and waits until every one is finished. Printed per mode:
matches a minute from the commit to the last result, and the steady rate (the last two thirds of the
results, once every warm container has been started), with the ratios to the unsandboxed floor.
Then, with the same worker, --long-matches rated 4-seat Crazy-KING and SortingGame matches between
the documented example bots (hundreds of decisions each: they dominate a card-game tournament): the
cost of a decision through the platform, each match's time from its claim to its recorded result
divided by the decisions its seats made.
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
import time

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/arena_platform_bench")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/12")
from tournament_throughput import BOTS, ROOT, fresh_database

QUEUE = os.environ["ARENA_QUEUE"] = "arena-platform-bench"

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
    from arena.bots.models import Bot, BotVersion
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    bots = []
    for number in range(count):
        student = users.create_user(f"bench-{game}-{number:03}", password="x-bench-1234")
        code = codes[number % len(codes)]
        bot = Bot.objects.create(owner=student, game=game, name=f"bot{number}")
        BotVersion.objects.create(bot=bot, number=1, filename="bot.py", code=code, size=len(code),
                                  sha256=hashlib.sha256(code.encode()).hexdigest(), status=BotVersion.Status.ACCEPTED)
        bots.append(bot)
    return bots


def make_long_game_bots() -> dict[str, list]:
    """LONG_SEATS students' copies of each long game's example bot."""
    examples = ROOT / "docs" / "bots" / "examples"
    return {game: make_bots(LONG_SEATS, game, [(examples / f"{game}_example.py").read_text()]) for game in LONG_GAMES}


def start_worker(mode: str, args) -> subprocess.Popen:
    env = {**os.environ, **MODES[mode], "ARENA_WARM_MAX_CONTAINERS": str(args.warm_containers)}
    command = [sys.executable, "-m", "celery", "-A", "arena", "worker", "-Q", QUEUE, "--concurrency",
               str(args.workers), "--loglevel", "WARNING", "--without-gossip", "--without-mingle"]
    if args.profile:
        env["ARENA_BENCH_PROFILE"] = f"{args.profile}.{mode}"
        command = [sys.executable, "-c", PROFILE_HOOK + "\nimport sys\nfrom celery.__main__ import main\n"
                   "sys.argv = ['celery'] + sys.argv[1:]\nmain()", *command[3:]]
    worker = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(4)  # the worker's start is not part of the figure
    return worker


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

    began = time.time()
    mine = Match.objects.filter(pk__in=queued)
    while (left := mine.exclude(status__in=[Match.Status.FINISHED, Match.Status.SET_ASIDE]).count()):
        print(f"\r  {label}: {len(queued) - left} played, {time.time() - began:.0f} s", end="", file=sys.stderr)
        time.sleep(0.5)
    print(file=sys.stderr)
    failed = mine.filter(status=Match.Status.SET_ASIDE).first()
    if failed is not None:
        raise RuntimeError(f"{label}: match {failed.pk} failed: {failed.error}")
    return began, mine


def end_game_rates(mode: str, bots: list, args) -> tuple[float, float]:
    """(matches a minute overall, steady matches a minute) of End Game challenges between `bots`."""
    queued = queue("endgame", itertools.cycle(itertools.combinations(bots, 2)), args.matches)
    began, mine = wait_until_played(mode, queued)
    finished = sorted(mine.values_list("finished_at", flat=True))
    overall = args.matches / (finished[-1].timestamp() - began) * 60
    third = len(finished) // 3
    steady = (len(finished) - 1 - third) / (finished[-1] - finished[third]).total_seconds() * 60
    return overall, steady


def decision_cost(mode: str, game: str, bots: list, count: int) -> tuple[float, float]:
    """(milliseconds a decision, decisions a match) over `count` matches of `game` with every bot seated."""
    from django.db.models import Sum
    from arena.matches.models import MatchSeat

    queued = queue(game, itertools.repeat(bots), count)
    _, mine = wait_until_played(f"{mode} {game}", queued)
    busy = sum((match.finished_at - match.started_at).total_seconds() for match in mine)
    decisions = MatchSeat.objects.filter(match__in=queued).aggregate(total=Sum("decisions"))["total"]
    return busy / decisions * 1000, decisions / count


def warm_containers_started(since: float) -> int:
    """How many warm containers the Docker engine started since `since` (a time.time())."""
    from sandbox.docker_backend import client
    from sandbox.pool import WARM_LABEL

    events = client().events(since=int(since), until=int(time.time()) + 1, decode=True,
                             filters={"type": "container", "event": "start", "label": WARM_LABEL})
    return sum(1 for _ in events)


def run_mode(mode: str, bots: list, long_bots: dict[str, list], args) -> dict:
    """The End Game rates and the long games' decision costs of `mode`, with a worker of its own."""
    worker = start_worker(mode, args)
    try:
        began = time.time()
        figures = {"endgame": end_game_rates(mode, bots, args)}
        # One warm-up per bot version and worker: its pool processes share their containers.
        figures["started"] = warm_containers_started(began - 1) if mode == "warm" else None
        # Other work on a shared host moves the figures: each mode's own load goes with them.
        figures["load"] = os.getloadavg()[0]
        if args.long_matches:
            figures.update({game: decision_cost(mode, game, long_bots[game], args.long_matches) for game in long_bots})
        return figures
    finally:
        worker.terminate()
        worker.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2, help="Celery pool processes")
    parser.add_argument("--warm-containers", type=int, default=20,
                        help="ARENA_WARM_MAX_CONTAINERS: warm containers kept per pool process")
    parser.add_argument("--modes", default="warm,cold,none")
    parser.add_argument("--long-matches", type=int, default=8,
                        help="Crazy-KING and SortingGame matches per mode for the cost of a decision (0: none)")
    parser.add_argument("--profile", help="cProfile the pool processes into FILE.MODE.PID")
    args = parser.parse_args()
    modes = args.modes.split(",")
    if unknown := set(modes) - set(MODES):
        parser.error(f"unknown modes {sorted(unknown)}; choose among {sorted(MODES)}")

    fresh_database()
    import django

    django.setup()
    bots = make_bots(args.bots)
    long_bots = make_long_game_bots()
    figures = {mode: run_mode(mode, bots, long_bots, args) for mode in modes}
    load = os.getloadavg()
    print(f"{args.matches} rated End Game matches between {args.bots} bots through the platform (PostgreSQL, Redis, "
          f"Celery with {args.workers} pool processes, up to {args.warm_containers} warm containers each); "
          f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores:")
    floor = figures.get("none")
    if floor:
        print("  (goals: warm within 1.25x of the floor overall and 1.1x steady; a card game's decision within 1.5x)")
    for mode, rates in figures.items():
        overall, steady = rates["endgame"]
        ratio = (f", floor / {mode}: {floor['endgame'][0] / overall:.2f}x overall, "
                 f"{floor['endgame'][1] / steady:.2f}x steady") if floor else ""
        started = f", {rates['started']} warm containers started" if rates["started"] is not None else ""
        print(f"  {mode:5} {overall:6.0f} matches/min overall, {steady:6.0f} steady{ratio} "
              f"(load {rates['load']:.1f}{started})")
    if args.long_matches:
        print(f"The cost of a decision in {args.long_matches} rated {LONG_SEATS}-seat matches of the example bots "
              f"(claim to recorded result, over the decisions made):")
        for game, title in LONG_GAMES.items():
            for mode, rates in figures.items():
                cost, decisions = rates[game]
                ratio = f", {cost / floor[game][0]:.2f}x the floor" if floor else ""
                print(f"  {title:11} {mode:5} {cost:6.2f} ms a decision ({decisions:.0f} decisions a match){ratio}")


if __name__ == "__main__":
    main()
