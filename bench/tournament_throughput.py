"""A whole End Game round robin through the platform, timed, beside the sandbox floor measured in the same run.

    python bench/tournament_throughput.py [--bots 32] [--games-per-series 2] [--workers 2] [--length 8]
        [--sandbox docker] [--floor-matches 40]

Needs PostgreSQL and Redis (DATABASE_URL, CELERY_BROKER_URL; defaults: the local ones, database
arena_bench, dropped and created afresh) and the sandbox. It creates a course with --bots students' bots,
starts one Celery worker with --workers pool processes, starts a round robin through the tournaments
service and waits for its champion; the workers do everything else (every game, every series, every
round) through the match_finished hook. The floor: the same kind of match played by the referee
directly, both seats in the same sandbox, --workers at a time, no Celery and no database.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/arena_bench")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/9")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
os.environ["ARENA_QUEUE"] = "arena-bench"

BOTS = [
    "def act(observation):\n    board = observation['board']\n    return 'left' if board[0] >= board[-1] else 'right'\n",
    "def act(observation):\n    board = observation['board']\n    if len(board) == 1:\n        return 'left'\n"
    "    left = board[0] - max(board[1], board[-1])\n    right = board[-1] - max(board[0], board[-2])\n"
    "    return 'left' if left >= right else 'right'\n",
]


def fresh_database() -> None:
    import psycopg
    from urllib.parse import urlsplit

    url = urlsplit(os.environ["DATABASE_URL"])
    name = url.path.lstrip("/")
    with psycopg.connect(url._replace(path="/postgres").geturl(), autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        db.execute(f'CREATE DATABASE "{name}"')
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, check=True, capture_output=True)


def floor(sandbox_name: str, matches: int, workers: int, length: int) -> float:
    """Matches a minute with the referee alone: the cost of the sandbox and the game, nothing else."""
    from games import get_game
    from games.bots import make_player
    from games.referee import play_match

    game = get_game("endgame")
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for index, code in enumerate(BOTS):
            path = Path(folder) / f"bot{index}.py"
            path.write_text(code)
            paths.append(str(path))

        def one(seed: int) -> None:
            players = [make_player(game, paths[seat], sandbox=sandbox_name, seed=seed, seat=seat) for seat in (0, 1)]
            play_match(game, players, config={"length": length}, seed=seed)

        began = time.perf_counter()
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(one, range(matches)))
        return matches / (time.perf_counter() - began) * 60


def platform_run(args) -> tuple[float, int]:
    import django

    django.setup()
    from arena.accounts.models import Course
    from arena.bots.models import Bot, BotVersion
    from django.contrib.auth import get_user_model
    from arena.matches.models import Match
    from arena.tournaments import services
    from arena.tournaments.models import Tournament

    users = get_user_model().objects
    instructor = users.create_user("bench-teacher", password="x-bench-1234")
    course = Course.objects.create(code="bench", name="Bench")
    course.instructors.add(instructor)
    tournament = services.create_tournament(instructor, course, name="Bench round robin", game="endgame",
                                            format="round-robin", games_per_series=args.games_per_series,
                                            config={"length": args.length}, seeding="given")
    for number in range(args.bots):
        student = users.create_user(f"bench{number:03}", password="x-bench-1234")
        course.students.add(student)
        code = BOTS[number % len(BOTS)]
        bot = Bot.objects.create(owner=student, game="endgame", name=f"bot{number}")
        BotVersion.objects.create(bot=bot, number=1, filename="bot.py", code=code, size=len(code),
                                  sha256=hashlib.sha256(code.encode()).hexdigest(), status=BotVersion.Status.ACCEPTED)
        services.add_entrant(instructor, tournament, bot)

    env = {**os.environ, "ARENA_SANDBOX": args.sandbox}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "arena", "worker", "-Q", "arena-bench", "--concurrency",
         str(args.workers), "--loglevel", "WARNING", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3)  # the worker's start is not part of the tournament
        began = time.perf_counter()
        services.start(instructor, tournament)
        while True:
            tournament.refresh_from_db()
            if tournament.status != Tournament.Status.RUNNING:
                break
            done = Match.objects.filter(status=Match.Status.FINISHED).count()
            print(f"\r  {done} games played, {time.perf_counter() - began:.0f} s", end="", file=sys.stderr)
            time.sleep(1)
        elapsed = time.perf_counter() - began
        print(file=sys.stderr)
        assert tournament.status == Tournament.Status.FINISHED, tournament.note
        return elapsed, Match.objects.filter(purpose=Match.Purpose.TOURNAMENT).count()
    finally:
        worker.terminate()
        worker.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=32)
    parser.add_argument("--games-per-series", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="Celery pool processes (and floor threads)")
    parser.add_argument("--length", type=int, default=8, help="End Game board length")
    parser.add_argument("--sandbox", default="docker", choices=["docker", "docker-warm", "bwrap", "none"])
    parser.add_argument("--floor-matches", type=int, default=40)
    args = parser.parse_args()

    fresh_database()
    elapsed, games = platform_run(args)
    rate = games / elapsed * 60
    floor_rate = floor(args.sandbox, args.floor_matches, args.workers, args.length)
    series = args.bots * (args.bots - 1) // 2
    print(f"{args.bots}-bot End Game round robin ({series} series, {games} games, board {args.length}) through the "
          f"platform with {args.workers} worker processes, sandbox {args.sandbox}:")
    print(f"  wall time {elapsed:.1f} s, {rate:.0f} games/min")
    print(f"  sandbox floor (referee alone, {args.workers} at a time): {floor_rate:.0f} games/min")
    print(f"  platform / floor: {rate / floor_rate:.2f}")


if __name__ == "__main__":
    main()
