"""A lecture hall at once: 1,000 watchers of one Crazy-KING table and a tournament while 200 students browse,
upload and challenge, against the production setup.

    python bench/hall.py [--watchers 1000] [--students 200] [--seconds 60] [--think 5] [--port 8793]

Starts the web server as deployed (gunicorn with gunicorn.conf.py: 4 uvicorn workers, ASGI) and a Celery
worker (concurrency 2, the best sandbox the host has) on PostgreSQL (DATABASE_URL, default a database of its
own, arena_hall, migrated here) and Redis (ARENA_CACHE_URL / CELERY_BROKER_URL, default the local one, DB 5).
It makes a course with one table of Crazy-KING between two people, 300 moves in, a running End Game
round-robin, the watchers and the students (sessions made directly: no password hashing in the figures).

Phases (an async client: aiohttp, one process, uvloop when installed):
1. warm-up (15 s): the students browse; the web processes' memory is read at its end ("before");
2. hall (--seconds): each watcher holds the table's stream, and each student the tournament's (its page open
   in a tab while browsing), reconnecting as a browser's EventSource does (after the server's `retry:`,
   with Last-Event-ID); the watchers arrive over ARRIVAL_SECONDS; the two players move once a second
   through the API; the students go on browsing (home, ladder, tournament, table, their bot, the API's
   lists), reading each page --think seconds on average (uniformly from 0.4 to 1.6 times it: 200 students
   at 5 s are 40 pages a second), and each uploads a version or sends a challenge once (API, token);
3. after (15 s): the watchers leave, the students browse; memory read at its end ("after").
Move delivery is the time from a move's POST being sent to a watcher having that version or a later one
(a stream sends the newest snapshot), for every watcher and move; a move a watcher never had counts as lost.
Pages are the students' GETs. Errors: any 5xx, failed connection or timeout, a stream refused.
Then, if present, bench/crafted_input.py and bench/table_decisions.py run as subprocesses, their output shown.
Prints figures, asserts nothing. The client shares the 2 cores with the server and the worker.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/arena_hall")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/5")
os.environ.setdefault("ARENA_CACHE_URL", os.environ["CELERY_BROKER_URL"])
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
os.environ.setdefault("SECRET_KEY", "bench-hall-only")
os.environ["ALLOWED_HOSTS"] = "127.0.0.1"

GOALS = {"delivery p95 ms": 300, "pages p95 ms": 200, "memory growth %": 10}
WARM_UP_SECONDS = 15
ARRIVAL_SECONDS = 20  # a hall opening the page after the lecturer shows its address
AFTER_SECONDS = 15
PRE_PLAYED_MOVES = 300
PAGE_TIMEOUT = 30


def prepare(watchers: int, students: int) -> dict:
    """The hall's data (made once per database, reused by later runs): ids and session keys."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.core.management import call_command
    from django.utils.module_loading import import_string

    from arena.accounts import tokens
    from arena.accounts.models import Course
    from arena.bots.models import Bot, BotVersion
    from arena.tables import services as tables
    from arena.tables.models import Table
    from arena.tournaments import services as tournaments

    call_command("migrate", verbosity=0)
    users = get_user_model()
    made = {user.username: user for user in users.objects.filter(username__startswith="hall-")}
    wanted = ([f"hall-watcher{n:04}" for n in range(watchers)] + [f"hall-student{n:03}" for n in range(students)]
              + ["hall-teacher", "hall-ada", "hall-ben"])
    users.objects.bulk_create([users(username=name) for name in wanted if name not in made])
    people = {user.username: user for user in users.objects.filter(username__in=wanted)}
    course, _ = Course.objects.get_or_create(code="hall", defaults={"name": "A lecture hall"})
    course.instructors.add(people["hall-teacher"])
    course.students.add(*[user for name, user in people.items() if name != "hall-teacher"])
    example = (ROOT / "docs" / "bots" / "examples" / "endgame_example.py").read_bytes()

    def accepted_bot(owner, name: str) -> Bot:
        bot, new = Bot.objects.get_or_create(owner=owner, game="endgame", name=name)
        if new:
            import hashlib

            BotVersion.objects.create(bot=bot, number=1, filename="bot.py", code=example.decode(), size=len(example),
                                      sha256=hashlib.sha256(example).hexdigest(), status=BotVersion.Status.ACCEPTED)
        return bot

    student_names = [f"hall-student{n:03}" for n in range(students)]
    bots = {name: accepted_bot(people[name], "mine").pk for name in student_names}
    table = Table.objects.filter(course=course, status=Table.Status.PLAYING).order_by("-pk").first()
    if table is None:
        ada, ben = people["hall-ada"], people["hall-ben"]
        table = tables.open_table(ada, "crazyking", [tables.SeatChoice(user=ada), tables.SeatChoice(user=ben)],
                                  course=course, move_seconds=None, seed=40)
        rng = random.Random(40)
        for _ in range(PRE_PLAYED_MOVES):
            table.refresh_from_db()
            state = tables.current(table)
            seat = state.seat_on_move
            choice = rng.choice(state.choices(seat))
            tables.move(table, (ada, ben)[seat], state.turn, choice.action)
    from arena.tournaments.models import Tournament

    tournament = Tournament.objects.filter(course=course, status=Tournament.Status.RUNNING).first()
    if tournament is None:
        teacher = people["hall-teacher"]
        tournament = tournaments.create_tournament(teacher, course, name="Hall cup", game="endgame",
                                                   format="round-robin", games_per_series=2, config={"length": 8},
                                                   seeding="given")
        for name in student_names[:6]:
            entrant = tournaments.add_entrant(teacher, tournament, Bot.objects.get(pk=bots[name]))
            if entrant.consent == entrant.Consent.REQUESTED:
                tournaments.answer_entry(people[name], entrant, accept=True)
        tournament = tournaments.start(teacher, tournament)

    store = import_string(settings.SESSION_ENGINE + ".SessionStore")

    def session(user) -> str:
        stored = store()
        stored[SESSION_KEY], stored[HASH_SESSION_KEY] = str(user.pk), user.get_session_auth_hash()
        stored[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        stored.create()
        return stored.session_key

    return {
        "table": table.pk, "tournament": tournament.pk, "builtin": Bot.objects.builtin("endgame", "random").pk,
        "watchers": [session(people[f"hall-watcher{n:04}"]) for n in range(watchers)],
        "students": [(session(people[name]), tokens.issue(people[name], "hall").key, bots[name])
                     for name in student_names],
        "players": [tokens.issue(people[name], "hall").key for name in ("hall-ada", "hall-ben")],
        "match": None,
    }


def start_servers(port: int) -> list[subprocess.Popen]:
    from load_run import serve  # the web server as compose runs it (gunicorn.conf.py)

    log = open(ROOT / "var" / "hall-worker.log", "w")
    worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "arena", "worker", "--concurrency", "2",
                               "--loglevel", "WARNING", "--without-gossip", "--without-mingle"],
                              cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    return [serve(port), worker]


def web_memory_mb(server: subprocess.Popen) -> float:
    """The resident memory of the web server's processes (the arbiter and its workers), in MB."""
    pids = [server.pid]
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children")
    if children.exists():
        pids += [int(pid) for pid in children.read_text().split()]
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


class Figures:
    def __init__(self):
        self.pages: list[float] = []
        self.posts: list[float] = []
        self.errors: dict[str, int] = {}
        self.refused: dict[str, int] = {}
        self.moves: list[tuple[int, float]] = []  # (version, time its POST was sent)
        self.tournament_events = 0
        self.connections = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


class Watcher:
    """One browser tab's EventSource: the arrival time of each event id of its stream."""

    def __init__(self, url: str, session: str, figures: Figures, count_as: str):
        self.url, self.session, self.figures, self.count_as = url, session, figures, count_as
        self.arrivals: dict[int, float] = {}

    async def run(self, http, stop: asyncio.Event) -> None:
        import aiohttp

        last, retry = None, 3.0
        while not stop.is_set():
            headers = {"Accept": "text/event-stream", "Cookie": f"sessionid={self.session}"}
            if last is not None:
                headers["Last-Event-ID"] = str(last)
            try:
                async with http.get(self.url, headers=headers, timeout=aiohttp.ClientTimeout(total=None, sock_read=60)) as answer:
                    self.figures.connections += 1
                    if answer.status == 204:
                        return
                    if answer.status >= 500:
                        self.figures.error(f"{self.count_as} stream {answer.status}")
                    buffer = b""
                    async for chunk in answer.content.iter_any():
                        buffer += chunk
                        while b"\n\n" in buffer:
                            block, buffer = buffer.split(b"\n\n", 1)
                            for line in block.split(b"\n"):
                                if line.startswith(b"id: "):
                                    last = int(line[4:])
                                    self.arrivals.setdefault(last, time.perf_counter())
                                    if self.count_as == "tournament":
                                        self.figures.tournament_events += 1
                                elif line.startswith(b"retry: "):
                                    retry = int(line[7:]) / 1000
                                elif line.startswith(b"event: refused"):
                                    self.figures.refused[self.count_as] = self.figures.refused.get(self.count_as, 0) + 1
                        if stop.is_set():
                            return
            except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError) as error:
                if not stop.is_set():
                    self.figures.error(f"{self.count_as} stream {type(error).__name__}")
            try:
                await asyncio.wait_for(stop.wait(), retry)
            except asyncio.TimeoutError:
                pass

    def had(self, version: int) -> float | None:
        times = [at for seen, at in self.arrivals.items() if seen >= version]
        return min(times) if times else None


async def timed(http, figures: Figures, method: str, url: str, into: list, **kwargs) -> dict | None:
    import aiohttp

    began = time.perf_counter()
    try:
        async with http.request(method, url, timeout=aiohttp.ClientTimeout(total=PAGE_TIMEOUT), **kwargs) as answer:
            body = await answer.read()
            into.append((time.perf_counter() - began) * 1000)
            if answer.status >= 500:
                figures.error(f"{method} {answer.status}")
            elif answer.status == 429:
                figures.refused[method] = figures.refused.get(method, 0) + 1
            elif answer.status >= 400:
                figures.error(f"{method} {answer.status} {url.split('/')[3]}")
            if answer.content_type == "application/json":
                import json

                return json.loads(body)
    except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError) as error:
        figures.error(f"{method} {type(error).__name__}")
    return None


async def student(http, base: str, data: dict, number: int, figures: Figures, stop: asyncio.Event,
                  acts_at: float, think: float) -> None:
    session, token, bot = data["students"][number]
    cookie = {"Cookie": f"sessionid={session}"}
    api = {"Authorization": f"Token {token}"}
    pages = ["/", "/ladder/endgame/", f"/tournaments/{data['tournament']}/", f"/tables/{data['table']}/",
             f"/bots/{bot}/", f"/api/tables/{data['table']}/", "/api/matches/"]
    rng = random.Random(number)
    acted = False
    example = (ROOT / "docs" / "bots" / "examples" / "endgame_example.py").read_bytes()
    while not stop.is_set():
        await asyncio.sleep(rng.uniform(0.4 * think, 1.6 * think))  # reading the page
        if not acted and time.monotonic() >= acts_at:
            acted = True
            if number % 2:
                import aiohttp

                form = aiohttp.FormData()
                form.add_field("file", example + f"\n# {number} {time.time()}\n".encode(), filename="bot.py")
                await timed(http, figures, "POST", f"{base}/api/bots/{bot}/versions/", figures.posts, data=form,
                            headers=api)
            else:
                await timed(http, figures, "POST", f"{base}/api/matches/", figures.posts, headers=api,
                            json={"bot": bot, "opponents": [data["builtin"]]})
            continue
        await timed(http, figures, "GET", base + rng.choice(pages), figures.pages, headers=cookie)


async def players(http, base: str, data: dict, figures: Figures, stop: asyncio.Event) -> None:
    """The two people at the table, one move a second between them, each the first of their choices."""
    url = f"{base}/api/tables/{data['table']}/"
    keys = data["players"]
    while not stop.is_set():
        for key in keys:
            headers = {"Authorization": f"Token {key}"}
            table = await timed(http, figures, "GET", url, [], headers=headers)
            if not table or not table.get("choices"):
                continue
            sent = time.perf_counter()
            answer = await timed(http, figures, "POST", url + "move/", figures.posts, headers=headers,
                                 json={"turn": table["turn"], "action": table["choices"][0]["action"]})
            if answer and "version" in answer:
                figures.moves.append((answer["version"], sent))
            if answer and answer.get("status") != "playing":
                return
            try:
                await asyncio.wait_for(stop.wait(), max(0.0, 1.0 - (time.perf_counter() - sent)))
            except asyncio.TimeoutError:
                pass


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def hall(args, data: dict, server: subprocess.Popen) -> dict:
    import aiohttp

    base = f"http://127.0.0.1:{args.port}"
    figures = Figures()
    # The streams on connections of their own; each page on a new connection, as a browser's after the
    # server's keep-alive (2 s) ran out while its person read the last page (no race with the server's close).
    pages = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, force_close=True))
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http, pages:
        browsing = asyncio.Event()
        start = time.monotonic()
        acts = [start + WARM_UP_SECONDS + random.Random(n).uniform(0, args.seconds * 0.8)
                for n in range(len(data["students"]))]
        students = [asyncio.create_task(student(pages, base, data, n, figures, browsing, acts[n], args.think))
                    for n in range(len(data["students"]))]
        await asyncio.sleep(WARM_UP_SECONDS)
        memory = {"before": web_memory_mb(server)}
        warm_pages = len(figures.pages)
        watching = asyncio.Event()
        watchers = [Watcher(f"{base}/tables/{data['table']}/events/", session, figures, "table")
                    for session in data["watchers"]]
        watchers += [Watcher(f"{base}/tournaments/{data['tournament']}/live/", session, figures, "tournament")
                     for session, _, _ in data["students"]]
        random.Random(1).shuffle(watchers)
        tasks = []
        for watcher in watchers:
            tasks.append(asyncio.create_task(watcher.run(http, watching)))
            await asyncio.sleep(ARRIVAL_SECONDS / len(watchers))
        await asyncio.sleep(2)
        moving = asyncio.Event()
        mover = asyncio.create_task(players(pages, base, data, figures, moving))
        peak = 0.0
        hall_began = time.monotonic()
        while time.monotonic() - hall_began < args.seconds:
            await asyncio.sleep(2)
            peak = max(peak, web_memory_mb(server))
        moving.set()
        await mover
        await asyncio.sleep(2)  # the last moves' way to the watchers
        hall_pages = figures.pages[warm_pages:]
        watching.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        memory["during"] = peak
        await asyncio.sleep(AFTER_SECONDS)
        memory["after"] = web_memory_mb(server)
        browsing.set()
        await asyncio.gather(*students, return_exceptions=True)
    delivery, lost = [], 0
    table_watchers = [watcher for watcher in watchers if watcher.count_as == "table"]
    for version, sent in figures.moves:
        for watcher in table_watchers:
            arrived = watcher.had(version)
            if arrived is None:
                lost += 1
            else:
                delivery.append((arrived - sent) * 1000)
    return {"figures": figures, "delivery": delivery, "lost": lost, "memory": memory, "hall_pages": hall_pages,
            "watchers": len(table_watchers)}


def run_alongside(name: str) -> None:
    script = ROOT / "bench" / name
    if not script.exists():
        print(f"\n{name}: not in this checkout")
        return
    print(f"\n--- {name} ---", flush=True)
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    print(done.stdout.rstrip())
    if done.returncode:
        print(f"({name} exited {done.returncode}: {done.stderr.strip()[-800:]})")


def report(args, result: dict, load: tuple[float, float]) -> None:
    figures, delivery, memory = result["figures"], result["delivery"], result["memory"]
    pages = result["hall_pages"]
    growth = (memory["after"] - memory["before"]) / memory["before"] * 100
    d95, p95 = percentile(delivery, 0.95), percentile(pages, 0.95)
    errors = sum(figures.errors.values())
    print(f"\nhall: {result['watchers']} watchers of the table, {args.students} students (the tournament's stream "
          f"each, browsing every {args.think:g} s on average), "
          f"{args.seconds} s, {os.cpu_count()} cores shared with the other helpers' work; load average "
          f"{load[0]:.1f} before, {load[1]:.1f} after")
    print(f"  moves played: {len(figures.moves)}; move delivery to watchers: p50 {percentile(delivery, 0.5):.0f} ms, "
          f"p95 {d95:.0f} ms, max {max(delivery, default=float('nan')):.0f} ms "
          f"({len(delivery)} deliveries, {result['lost']} never arrived) goal p95 < {GOALS['delivery p95 ms']} ms: "
          f"{'met' if d95 < GOALS['delivery p95 ms'] and not result['lost'] else 'NOT met'}")
    print(f"  pages during the hall: p50 {percentile(pages, 0.5):.0f} ms, p95 {p95:.0f} ms ({len(pages)} GETs); "
          f"goal p95 < {GOALS['pages p95 ms']} ms: {'met' if p95 < GOALS['pages p95 ms'] else 'NOT met'}")
    print(f"  uploads and challenges (POST): p50 {percentile(figures.posts, 0.5):.0f} ms, "
          f"p95 {percentile(figures.posts, 0.95):.0f} ms ({len(figures.posts)})")
    print(f"  web memory: before {memory['before']:.0f} MB, during {memory['during']:.0f} MB, after "
          f"{memory['after']:.0f} MB ({growth:+.1f} %); goal within {GOALS['memory growth %']} %: "
          f"{'met' if abs(growth) <= GOALS['memory growth %'] else 'NOT met'}")
    print(f"  stream connections {figures.connections}, tournament events {figures.tournament_events}, "
          f"refusals {figures.refused or 'none'}")
    print(f"  errors: {errors} {figures.errors or ''}; goal 0: {'met' if not errors else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=60, help="the hall's length (moves and watchers)")
    parser.add_argument("--think", type=float, default=5.0, help="a student's mean seconds on a page")
    parser.add_argument("--port", type=int, default=8793)
    parser.add_argument("--no-others", action="store_true", help="skip crafted_input.py and table_decisions.py")
    args = parser.parse_args()
    if not os.environ["DATABASE_URL"].startswith("postgres"):
        sys.exit("hall needs DATABASE_URL=postgres://... (a database of its own)")
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    (ROOT / "var").mkdir(exist_ok=True)
    data = prepare(args.watchers, args.students)
    print(f"prepared: table {data['table']}, tournament {data['tournament']}", flush=True)
    load_before = os.getloadavg()[0]
    server, worker = start_servers(args.port)
    try:
        result = asyncio.run(hall(args, data, server))
    finally:
        for process in (server, worker):
            process.terminate()
        for process in (server, worker):
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
    report(args, result, (load_before, os.getloadavg()[0]))
    if not args.no_others:
        run_alongside("crafted_input.py")
        run_alongside("table_decisions.py")


if __name__ == "__main__":
    main()
