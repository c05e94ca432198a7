"""Live pages' latency: from a change committed to N real spectators' browsers-to-be having it (SSE).

    python bench/live_latency.py [--clients 2 10 30] [--changes 40] [--gap 0.5] [--port 8766]

Starts gunicorn on 127.0.0.1 with the repository's gunicorn.conf.py (as compose runs it: 4 processes with 2
page threads and 16 stream threads each), once with Redis waking the streams (ARENA_LIVE_WAKEUP=redis) and
once with the polling fallback of the demo (poll, every ARENA_LIVE_POLL_SECONDS). For each client count N it
opens N real HTTP connections to one running match's stream (/matches/ID/stream/, signed in), then makes
--changes changes, --gap seconds apart, the way a worker does: the position saved (Redis) and
`publish("match:ID")`. The latency of a change for a client is the time from that save to the client having it: the first event of that version or a later one on the client's socket (a
stream sends the newest snapshot; threads of this process, one clock). Prints p50, p95
and the worst against the goal of 300 ms at p95; no assertion. The clients share the 2 cores with the server.
First, what spectators cost a worker: one save (a 4-seat Crazy-KING position's public view, kept in Redis,
the publish), made at most every ARENA_SPECTATOR_INTERVAL_SECONDS, never per move.

Needs PostgreSQL (DATABASE_URL: a database of its own, migrated here; it adds a user and a match) and Redis
(ARENA_CACHE_URL, default the local one, DB 1).
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import statistics
import sys
import threading
import time
import uuid

os.environ.setdefault("ARENA_CACHE_URL", "redis://127.0.0.1:6379/1")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
os.environ.setdefault("SECRET_KEY", "bench-live-latency-only")
# Each stream lives through a whole run rather than reconnecting every minute.
os.environ["ARENA_LIVE_STREAM_SECONDS"] = "600"

from load_run import serve  # noqa: E402 - after the environment it reads

GOAL_P95_MS = 300


class Spectator(threading.Thread):
    """One spectator's EventSource: the arrival time of each event id it reads. Like a browser it reconnects
    when a stream ends (after the server's `retry:`, with Last-Event-ID): a process at its stream limit answers
    with the snapshot and a later retry."""

    def __init__(self, port: int, path: str, cookie: str):
        super().__init__(daemon=True)
        self.port, self.path, self.cookie = port, path, cookie
        self.arrivals: dict[int, float] = {}
        self.first = threading.Event()
        self.stopping = threading.Event()
        self.connection: http.client.HTTPConnection | None = None
        self.retry_ms = 3000

    def run(self) -> None:
        last = None
        while not self.stopping.is_set():
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            headers = {"Cookie": self.cookie, "Accept": "text/event-stream"}
            if last is not None:
                headers["Last-Event-ID"] = str(last)
            try:
                self.connection.request("GET", self.path, headers=headers)
                for line in iter(self.connection.getresponse().readline, b""):
                    if line.startswith(b"id: "):
                        last = int(line[4:])
                        self.arrivals[last] = time.perf_counter()
                        self.first.set()
                    elif line.startswith(b"retry: "):
                        self.retry_ms = int(line[7:])
            except (OSError, http.client.HTTPException, AttributeError):
                pass  # stopped: the socket was shut under the read
            self.stopping.wait(self.retry_ms / 1000)

    def has(self, version: int) -> float | None:
        """When this spectator first had `version` or a later one (a later snapshot shows that change too)."""
        times = [at for seen, at in self.arrivals.items() if seen >= version]
        return min(times) if times else None

    def close(self) -> None:
        self.stopping.set()
        if self.connection and self.connection.sock:
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.join(10)


def prepare():
    """(the session cookie of a signed-in spectator, a running match with a progress row)."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from arena.bots.models import Bot
    from arena.matches.models import Match, MatchSeat

    call_command("migrate", verbosity=0)
    viewer, _ = get_user_model().objects.get_or_create(username="live-spectator")
    client = Client()
    client.force_login(viewer)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    # Made as a worker finds it, without queueing it (no worker here would take it).
    match = Match.objects.create(game="endgame", seed=1, status=Match.Status.RUNNING, attempts=1, claim=uuid.uuid4())
    for seat, name in enumerate(["greedy", "random"]):
        MatchSeat.objects.create(match=match, seat=seat, bot=Bot.objects.builtin("endgame", name))
    return cookie, match


def change(match, step: int) -> tuple[int, float]:
    """What a worker does at a write: the position saved (in Redis, as the platform does when it has Redis),
    the topic published. (The snapshot's version for it, the time the change was saved.)"""
    from arena.core.live import publish
    from arena.matches import spectating

    spectating.save_progress(match.pk, {"claim": str(match.claim), "step": step, "view": {"game": "endgame"}})
    saved = time.perf_counter()
    publish(spectating.topic(match.pk))
    return spectating.snapshot(match.pk, with_view=True).version, saved


def write_cost(writes: int = 200) -> float:
    """Milliseconds a worker spends on one spectators' write (median), Crazy-KING at 4 seats mid-game."""
    import random

    from arena.matches.models import Match
    from arena.matches.spectating import Spectators

    match = Match.objects.create(game="crazyking", seed=7, status=Match.Status.RUNNING, attempts=1, claim=uuid.uuid4())
    spectators = Spectators(match, 4)
    state, rng = spectators.recent[0], random.Random(7)
    for _ in range(40):
        state = state.apply_action(rng.choice(state.legal_actions()))
    times = []
    for _ in range(writes):
        began = time.perf_counter()
        spectators._write(state)
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def measure(port: int, cookie: str, match, clients: int, changes: int, gap: float, first_step: int) -> list[float]:
    spectators = [Spectator(port, f"/matches/{match.pk}/stream/", cookie) for _ in range(clients)]
    for spectator in spectators:
        spectator.start()
    for spectator in spectators:
        spectator.first.wait(30)
    sent = []
    for step in range(first_step, first_step + changes):
        sent.append(change(match, step))
        time.sleep(gap)
    time.sleep(1)  # the last events' way back
    latencies = []
    for spectator in spectators:
        spectator.close()
        for version, at in sent:
            arrived = spectator.has(version)
            latencies.append((arrived - at) * 1000 if arrived is not None else float("inf"))
    return latencies


def report(mode: str, clients: int, latencies: list[float]) -> None:
    received = [value for value in latencies if value != float("inf")]
    lost = len(latencies) - len(received)
    p50 = statistics.median(received)
    p95 = statistics.quantiles(received, n=20)[-1] if len(received) > 1 else received[0]
    print(f"  {mode:5} {clients:3} clients: p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  worst {max(received):6.1f} ms  "
          f"({len(received)} events{f', {lost} never arrived' if lost else ''}; goal p95 <= {GOAL_P95_MS} ms: "
          f"{'met' if p95 <= GOAL_P95_MS and not lost else 'NOT met'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[2, 10, 30])
    parser.add_argument("--changes", type=int, default=40, help="changes per client count")
    parser.add_argument("--gap", type=float, default=0.5, help="seconds between changes")
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("live_latency needs DATABASE_URL=postgres://... (a database of its own)")
    cookie, match = prepare()
    cost = write_cost()
    print(f"a spectators' write costs the worker {cost:.2f} ms (median): {cost / 150:.1%} of a match's time at one "
          "write per 150 ms")
    print(f"gunicorn.conf.py on {os.cpu_count()} cores, {args.changes} changes {args.gap:g} s apart per run; "
          f"load average {os.getloadavg()[0]:.1f} before")
    step = 1
    for mode in ("redis", "poll"):
        os.environ["ARENA_LIVE_WAKEUP"] = mode
        server = serve(args.port)
        try:
            for clients in args.clients:
                report(mode, clients, measure(args.port, cookie, match, clients, args.changes, args.gap, step))
                step += args.changes
        finally:
            server.terminate()
            server.wait()
    print(f"load average {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
