"""A bounded load run against the site under gunicorn: the ladder, a match page, a replay and the API's match list.

    python bench/load_run.py [--clients 50] [--seconds 15] [--think MS ...] [--only NAME ...]
        [--port 8765] [--workers N --threads N]

Needs PostgreSQL holding scale data (DATABASE_URL; default: the local arena_scale_load, filled with
`python manage.py fill_scale_data` when it has no match yet) and `wrk` (Debian's package). The cache is
Redis, as compose runs it (ARENA_CACHE_URL; default: the local one). Starts gunicorn on 127.0.0.1 only
with the repository's gunicorn.conf.py (as compose runs it), signs one viewer in, and for each URL in turn
runs wrk with --clients connections for --seconds, after --warmup seconds not counted. Two kinds of run,
both by default:
- paced (--think 1000): each client pauses 0.5 to 1.5 s before each request, as a person reading pages
  does; the pause is not counted in the latency. This is "50 people using the site at once".
- closed loop (--think 0): each client sends its next request the moment the answer to its last one
  arrives, so 50 requests are always in flight: the saturation, what the 2 cores can serve at most.
Each match page and replay asks for one of the 500 newest finished matches at random. The floor is the
same run against a trivial signed-in view (/api/games/: the session and user and a short JSON answer), so
the ratios say what the pages themselves cost. wrk (2 threads) shares the 2 cores with the server and with
whatever else runs: the load average is printed before and after. README.md shows and reads the figures.
"""

from __future__ import annotations

import argparse
import os
import re
import runpy
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/arena_scale_load")
# The cache compose gives the site (its broker's Redis): without it each gunicorn process would keep its own
# cache in memory, and sessions would be read from PostgreSQL on every request.
os.environ.setdefault("ARENA_CACHE_URL", "redis://127.0.0.1:6379/0")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
os.environ.setdefault("SECRET_KEY", "bench-load-run-only")
os.environ["ALLOWED_HOSTS"] = "127.0.0.1"

# wrk's script: the viewer's session, a random match of the list for {match}, and the figures at the end
# (latency in microseconds) on one line that main() reads.
WRK_SCRIPT = """
local matches = {%(matches)s}
local path = "%(path)s"
wrk.headers["Cookie"] = "sessionid=%(session)s"
local threads = 0
function setup(thread) threads = threads + 1; thread:set("number", threads) end
function init(args) math.randomseed(os.time() * 16 + number) end
function request()
  return wrk.format("GET", (path:gsub("{match}", tostring(matches[math.random(#matches)]))))
end
%(pause)sfunction done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("FIGURES %%d %%d %%d %%d %%d %%d %%d\\n", summary.requests, summary.duration,
    e.connect + e.read + e.write, e.timeout, e.status, latency:percentile(50), latency:percentile(95)))
end
"""

# With a think time, each connection pauses before its next request (uniformly from half to one and a half
# times the mean), as a person reading the page does; wrk leaves the pause out of the latency.
PAUSE = """
function delay() return math.random(%(low)d, %(high)d) end
"""

TARGETS = [("ladder page", "/ladder/endgame/"), ("match page", "/matches/{match}/"),
           ("replay data", "/matches/{match}/replay/data/"), ("API match list", "/api/matches/")]
FLOOR = ("floor: /api/games/", "/api/games/")


def prepare() -> tuple[str, list[int]]:
    """(a signed-in viewer's session key, ids of finished matches to ask for), filling the database if empty."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from arena.matches.models import Match

    call_command("migrate", verbosity=0)
    if not Match.objects.exists():
        call_command("fill_scale_data")
    viewer, _ = get_user_model().objects.get_or_create(username="load-viewer")
    client = Client()
    client.force_login(viewer)
    newest = Match.objects.filter(status=Match.Status.FINISHED).order_by("-id").values_list("pk", flat=True)[:500]
    return client.cookies["sessionid"].value, list(newest)


def serve(port: int) -> subprocess.Popen:
    env = {**os.environ, "ARENA_WEB_BIND": f"127.0.0.1:{port}"}
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "--config", str(ROOT / "gunicorn.conf.py"),
                               "--log-level", "warning"], cwd=ROOT, env=env)
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


def run_wrk(port: int, path: str, clients: int, seconds: int, session: str, matches: list[int],
            think_ms: int = 0) -> dict:
    """One wrk run against `path` (closed loop, or with a pause of about `think_ms` before each request):
    requests, requests/s, errors, p50 and p95 in ms."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        pause = PAUSE % {"low": think_ms // 2, "high": think_ms * 3 // 2} if think_ms else ""
        script.write(WRK_SCRIPT % {"matches": ",".join(map(str, matches)), "path": path, "session": session,
                                   "pause": pause})
        script.flush()
        output = subprocess.run(["wrk", "--threads", str(min(2, clients)), "--connections", str(clients), "--duration", f"{seconds}s",
                                 "--timeout", "10s", "--script", script.name, f"http://127.0.0.1:{port}/"],
                                capture_output=True, text=True, check=True).stdout
    figures = re.search(r"FIGURES (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)", output)
    requests, duration_us, failed, timeouts, bad_status, p50, p95 = map(int, figures.groups())
    return {"requests": requests, "per_second": requests / (duration_us / 1e6), "timeouts": timeouts,
            "errors": (failed + timeouts + bad_status) / requests if requests else 1.0, "p50": p50 / 1000,
            "p95": p95 / 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50, help="wrk connections, each always waiting on one request")
    parser.add_argument("--seconds", type=int, default=15, help="per URL")
    parser.add_argument("--warmup", type=int, default=3, help="seconds of load per URL before measuring (not counted)")
    parser.add_argument("--workers", type=int, help="gunicorn processes (default: gunicorn.conf.py's)")
    parser.add_argument("--threads", type=int, help="threads per gunicorn process (default: gunicorn.conf.py's)")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--think", type=int, action="append",
                        help="mean pause in ms before each request, 0 for closed loop; repeat for several runs "
                             "(default: 1000, as people reading pages, then 0, the saturation)")
    parser.add_argument("--only", action="append", choices=[name for name, _ in TARGETS],
                        help="measure this URL (repeat for several; default: all), besides the floor")
    args = parser.parse_args()
    args.think = args.think or [1000, 0]
    targets = [target for target in TARGETS if not args.only or target[0] in args.only]
    if not shutil.which("wrk"):
        sys.exit("load_run needs wrk: scripts/setup installs it (or apt-get install wrk)")

    for name, value in (("ARENA_WEB_WORKERS", args.workers), ("ARENA_WEB_THREADS", args.threads)):
        if value is not None:
            os.environ[name] = str(value)
    config = runpy.run_path(str(ROOT / "gunicorn.conf.py"))  # what gunicorn will read, with the overrides
    session, matches = prepare()
    server = serve(args.port)
    try:
        for think_ms in args.think:
            before = os.getloadavg()[0]
            results = {}
            for name, path in [FLOOR, *targets]:  # each process's first requests (imports, connections) aside
                run_wrk(args.port, path, args.clients, args.warmup, session, matches, think_ms)
                results[name] = run_wrk(args.port, path, args.clients, args.seconds, session, matches, think_ms)
            report(args, config, think_ms, before, results)
    finally:
        server.terminate()
        server.wait()


def report(args, config: dict, think_ms: int, load_before: float, results: dict) -> None:
    clients = (f"{args.clients} clients pausing {think_ms / 2000:g} to {think_ms * 3 / 2000:g} s between requests"
               if think_ms else f"{args.clients} closed-loop clients")
    print(f"{clients} (wrk, 2 threads) for {args.seconds} s per URL against gunicorn "
          f"({config['workers']} {config['worker_class']} workers x {config['threads']} threads) on "
          f"{os.cpu_count()} cores; load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after:")
    floor = results[FLOOR[0]]
    for name, row in results.items():
        print(f"  {name:18} {row['requests']:6} requests {row['per_second']:6.0f}/s  p50 {row['p50']:6.1f} ms  "
              f"p95 {row['p95']:6.1f} ms  errors {row['errors']:.1%} ({row['timeouts']} past 10 s)  "
              f"p95 {row['p95'] / floor['p95']:4.1f}x floor, "
              f"throughput {row['per_second'] / floor['per_second']:.2f}x floor")

if __name__ == "__main__":
    main()
