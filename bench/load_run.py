"""A bounded load run against the site under gunicorn: the ladder, a match page, a replay and the API's match list.

    python bench/load_run.py [--users 50] [--seconds 30] [--gunicorn-workers 3] [--port 8765]

Needs PostgreSQL holding scale data (DATABASE_URL; default: the local arena_scale_load, filled with
`python manage.py fill_scale_data` when it has no match yet). Starts gunicorn on 127.0.0.1 only (as
compose runs it), signs one viewer in, and runs locust headless with --users clients for --seconds,
each asking again as soon as it has its answer; prints p50, p95 and the error rate per request and
overall. The load generator shares the machine with the server: the figures are of both together.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/arena_scale_load")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
os.environ.setdefault("SECRET_KEY", "bench-load-run-only")
os.environ["ALLOWED_HOSTS"] = "127.0.0.1"


def prepare() -> tuple[str, list[int]]:
    """(a signed-in viewer's session key, ids of finished matches to ask for), filling the database if empty."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from matches.models import Match

    call_command("migrate", verbosity=0)
    if not Match.objects.exists():
        call_command("fill_scale_data")
    viewer, _ = get_user_model().objects.get_or_create(username="load-viewer")
    client = Client()
    client.force_login(viewer)
    newest = Match.objects.filter(status=Match.Status.FINISHED).order_by("-id").values_list("pk", flat=True)[:500]
    return client.cookies["sessionid"].value, list(newest)


def serve(port: int, workers: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path[:2])}
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers",
                               str(workers), "--log-level", "warning", "arena.wsgi:application"],
                              cwd=ROOT, env=env)
    for _ in range(60):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/ladder/endgame/", timeout=5)
            return server
        except urllib.error.HTTPError:  # an answer all the same: the server is up
            return server
        except OSError:
            time.sleep(0.5)
    server.terminate()
    raise RuntimeError("gunicorn did not answer within 30 s")


def load(port: int, users: int, seconds: int, session: str, matches: list[int]) -> list[dict]:
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "ARENA_LOAD_SESSION": session, "ARENA_LOAD_MATCHES": ",".join(map(str, matches))}
        subprocess.run([sys.executable, "-m", "locust", "-f", str(ROOT / "bench" / "load_locustfile.py"), "--headless",
                        "--users", str(users), "--spawn-rate", str(users), "--run-time", f"{seconds}s",
                        "--host", f"http://127.0.0.1:{port}", "--csv", f"{folder}/load", "--only-summary",
                        "--loglevel", "WARNING"],
                       env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(f"{folder}/load_stats.csv", newline="") as stats:
            return list(csv.DictReader(stats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=50, help="concurrent clients")
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--gunicorn-workers", type=int, default=3, help="as docker-compose.yml's web runs it")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()

    session, matches = prepare()
    server = serve(args.port, args.gunicorn_workers)
    try:
        rows = load(args.port, args.users, args.seconds, session, matches)
    finally:
        server.terminate()
        server.wait()
    load_average = os.getloadavg()
    print(f"{args.users} clients for {args.seconds} s against gunicorn ({args.gunicorn_workers} workers) on "
          f"{os.cpu_count()} cores, load average {load_average[0]:.2f} at the end:")
    for row in rows:
        count = int(row["Request Count"])
        errors = int(row["Failure Count"]) / count if count else 0.0
        print(f"  {row['Name']:16} {count:6} requests  p50 {row['50%']:>5} ms  p95 {row['95%']:>5} ms  "
              f"errors {errors:.1%}  {float(row['Requests/s']):.0f}/s")


if __name__ == "__main__":
    main()
