"""End Game matches a minute through the whole platform, on the warm Docker path, the cold one and no sandbox.

    python bench/platform_throughput.py [--matches 300] [--bots 20] [--workers 2] [--warm-containers 20]
        [--modes warm,cold,none] [--profile FILE]

Needs PostgreSQL and Redis (DATABASE_URL, CELERY_BROKER_URL; defaults: the local ones, database
arena_platform_bench, dropped and created afresh) and Docker with the bot image. It creates --bots students'
bots, then for each mode starts one real Celery worker (--workers pool processes, a fresh worker per
mode so no container outlives its mode), queues --matches rated End Game challenges between the bots
(every pair in turn) in one transaction and waits until every one is finished. Printed per mode:
matches a minute from the commit to the last result, and the steady rate (the last two thirds of the
results, once every warm container has been started), with the ratios to the unsandboxed floor.
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
from tournament_throughput import BOTS, ROOT, fresh_database  # noqa: E402  (also puts platform/ on sys.path)

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


def make_bots(count: int) -> list:
    from bots.models import Bot, BotVersion
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    bots = []
    for number in range(count):
        student = users.create_user(f"bench{number:03}", password="x-bench-1234")
        code = BOTS[number % len(BOTS)]
        bot = Bot.objects.create(owner=student, game="endgame", name=f"bot{number}")
        BotVersion.objects.create(bot=bot, number=1, filename="bot.py", code=code, size=len(code),
                                  sha256=hashlib.sha256(code.encode()).hexdigest(), status=BotVersion.Status.ACCEPTED)
        bots.append(bot)
    return bots


def start_worker(mode: str, args) -> subprocess.Popen:
    env = {**os.environ, **MODES[mode], "ARENA_WARM_MAX_CONTAINERS": str(args.warm_containers),
           "PYTHONPATH": os.pathsep.join(sys.path[:2])}
    command = [sys.executable, "-m", "celery", "-A", "arena", "worker", "-Q", QUEUE, "--concurrency",
               str(args.workers), "--loglevel", "WARNING", "--without-gossip", "--without-mingle"]
    if args.profile:
        env["ARENA_BENCH_PROFILE"] = f"{args.profile}.{mode}"
        command = [sys.executable, "-c", PROFILE_HOOK + "\nimport sys\nfrom celery.__main__ import main\n"
                   "sys.argv = ['celery'] + sys.argv[1:]\nmain()", *command[3:]]
    worker = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(4)  # the worker's start is not part of the figure
    return worker


def run_mode(mode: str, bots: list, args) -> tuple[float, float]:
    """(matches a minute overall, steady matches a minute) for `mode`."""
    from django.db import transaction
    from matches.models import Match
    from matches.services import create_match

    worker = start_worker(mode, args)
    try:
        pairs = itertools.cycle(itertools.combinations(bots, 2))
        with transaction.atomic():
            queued = [create_match("endgame", list(next(pairs)), purpose=Match.Purpose.CHALLENGE, rated=True).pk
                      for _ in range(args.matches)]
        began = time.time()
        mine = Match.objects.filter(pk__in=queued)
        while (left := mine.exclude(status__in=[Match.Status.FINISHED, Match.Status.ERROR]).count()):
            print(f"\r  {mode}: {args.matches - left} played, {time.time() - began:.0f} s", end="", file=sys.stderr)
            time.sleep(0.5)
        print(file=sys.stderr)
        failed = mine.filter(status=Match.Status.ERROR).first()
        if failed is not None:
            raise RuntimeError(f"{mode}: match {failed.pk} failed: {failed.error}")
        finished = sorted(mine.values_list("finished_at", flat=True))
        overall = args.matches / (finished[-1].timestamp() - began) * 60
        third = len(finished) // 3
        steady = (len(finished) - 1 - third) / (finished[-1] - finished[third]).total_seconds() * 60
        return overall, steady
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
    parser.add_argument("--profile", help="cProfile the pool processes into FILE.MODE.PID")
    args = parser.parse_args()
    modes = args.modes.split(",")
    if unknown := set(modes) - set(MODES):
        parser.error(f"unknown modes {sorted(unknown)}; choose among {sorted(MODES)}")

    fresh_database()
    import django

    django.setup()
    bots = make_bots(args.bots)
    figures = {mode: run_mode(mode, bots, args) for mode in modes}
    load = os.getloadavg()
    print(f"{args.matches} rated End Game matches between {args.bots} bots through the platform (PostgreSQL, Redis, "
          f"Celery with {args.workers} pool processes, up to {args.warm_containers} warm containers each); "
          f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores:")
    floor = figures.get("none")
    for mode, (overall, steady) in figures.items():
        ratio = f", floor / {mode}: {floor[0] / overall:.2f}x overall, {floor[1] / steady:.2f}x steady" if floor else ""
        print(f"  {mode:5} {overall:6.0f} matches/min overall, {steady:6.0f} steady{ratio}")


if __name__ == "__main__":
    main()
