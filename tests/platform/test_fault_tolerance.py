"""Real faults, real processes: a Celery worker SIGKILLed mid-match (once, and again and again: a poison
match), the broker restarted under a worker, and a platform fault in the engine under the shared worker.

Each test runs its own redis-server on a free port (never the shared one: other tests use it, and a broker
that is killed takes its queued and unacknowledged messages with it), its own `celery -A arena worker`
processes and a `celery beat` whose only entry is the production `requeue-stuck-matches` task on a short
interval, all on the test database. Matches are between two bots in the real Docker sandbox; one of them
thinks slowly (within its time limits) so that a match is observably running when the fault strikes.
"""

import hashlib
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import transaction

from arena.bots.models import Bot, BotVersion
from celery_lab import CeleryProcess, RedisServer, bot_containers, folders_of, match_folders_of, sandboxes_of
from arena.matches import services
from arena.matches.models import Match, MatchSeat
from platform_helpers import EXAMPLE_BOT, database_url, wait_for
from required import require
from arena.ratings.models import Rating
from sandbox.base import STAGING_PREFIX

pytestmark = pytest.mark.django_db(transaction=True)

WORKER_ID = os.environ.get("PYTEST_XDIST_WORKER", "main")
QUEUE = f"arena-fault-{WORKER_ID}"
# A claimed match still running this long after its claim is presumed lost (production: 600 s). Short, so
# that the tests which wait for a lost match to be re-queued do not wait long.
DEADLINE_SECONDS = 10
# The broker-restart test needs the match it restarts Redis under to finish inside its deadline (else it is
# re-queued, rightly, and played twice): two sandbox starts (up to ~5 s each on a loaded 2-core host), 2.4 s
# of the slow bot's thinking and the worker's reconnection to the restarted broker fit in 30 s twice over.
BROKER_RESTART_DEADLINE_SECONDS = 30
# How often the test's scheduler sends `requeue_stuck_matches` (production: every 60 s).
REQUEUE_INTERVAL = 1.0
SLOW_BOT = (
    "import time\n\n"
    "def act(observation):\n"
    "    time.sleep(0.4)  # within the 1 s per decision of the game\n"
    "    board = observation['board']\n"
    "    return 'left' if board[0] >= board[-1] else 'right'\n"
)
QUICK_BOT = EXAMPLE_BOT.decode()
# 12 numbers: 6 decisions per bot, so the slow bot makes a match last at least 2.4 s.
CONFIG = {"length": 12}

BEAT = """
import sys
from arena.celery import app
from django.conf import settings

entry = dict(settings.CELERY_BEAT_SCHEDULE["requeue-stuck-matches"], schedule=float(sys.argv[1]))
app.conf.beat_schedule = {"requeue-stuck-matches": entry}
app.start(["beat", "--schedule", sys.argv[2], "--loglevel", "INFO"])
"""


@pytest.fixture
def fault_lab(request, django_db_setup, sandbox_backend, tmp_path, settings, monkeypatch):
    """A private broker, and starters for workers and a scheduler on it, all stopped after the test.

    The claim deadline is DEADLINE_SECONDS unless the test parametrizes the fixture (indirect) with another.
    """
    from django.db import connection

    require(connection.vendor == "postgresql", "PostgreSQL (the worker processes share the test database)")
    require(shutil.which("redis-server") is not None, "redis-server (a private broker the test can restart)")
    broker = RedisServer(tmp_path)
    broker.start()
    # Matches created here are dispatched to the private broker (services.dispatch does the same on the
    # production one), and a queued match's message counts as lost after the short deadline too.
    deadline = getattr(request, "param", DEADLINE_SECONDS)
    settings.ARENA_MATCH_DEADLINE_SECONDS = deadline
    monkeypatch.setattr(services, "dispatch", lambda match, **options: transaction.on_commit(
        lambda: broker.send(QUEUE, "matches.tasks.run_match", match.pk)))
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": broker.url,
        "ARENA_QUEUE": QUEUE,
        "ARENA_MATCH_DEADLINE_SECONDS": str(deadline),
        "ARENA_VAR_DIR": str(settings.VAR_DIR),
        "ARENA_SANDBOX": sandbox_backend,
        "SECRET_KEY": settings.SECRET_KEY,
    }
    started = []

    class Lab:
        redis = broker
        deadline_seconds = deadline

        @staticmethod
        def worker(name: str) -> CeleryProcess:
            started.append(CeleryProcess.worker(name, QUEUE, env, tmp_path))
            return started[-1]

        @staticmethod
        def scheduler() -> CeleryProcess:
            process = CeleryProcess(
                "beat", [sys.executable, "-c", BEAT, str(REQUEUE_INTERVAL), str(tmp_path / "beat-schedule")],
                env, tmp_path, "beat: Starting...",
            )
            started.append(process)
            process.wait_ready()
            return process

    try:
        yield Lab
    finally:
        for process in started:  # all at once: each warm shutdown takes a few seconds
            process.terminate()
        for process in started:
            process.stop()
        broker.kill()
        for process in started:
            print(f"--- {process.log.name} ---\n{process.tail()}")


def student_bot(make_user, username: str, code: str) -> Bot:
    """A student's bot with one accepted version (its validation is not what these tests are about)."""
    bot = Bot.objects.create(owner=make_user(username), game="endgame", name=f"{username}-bot")
    data = code.encode()
    BotVersion.objects.create(bot=bot, number=1, filename="bot.py", code=code, size=len(data),
                              sha256=hashlib.sha256(data).hexdigest(), status=BotVersion.Status.ACCEPTED)
    return bot


def rated_match(bots: list[Bot]) -> Match:
    return services.create_match("endgame", bots, purpose=Match.Purpose.CHALLENGE, rated=True, config=CONFIG)


def status(match: Match) -> str:
    return Match.objects.values_list("status", flat=True).get(pk=match.pk)


def running_in_two_sandboxes(match: Match, worker: CeleryProcess) -> set[str]:
    """Wait until `match` is mid-play: claimed, with both bots' containers up in `worker`'s pool process."""
    def found():
        return status(match) == Match.Status.RUNNING and len(names := sandboxes_of(worker.pids())) == 2 and names

    return wait_for(found, 90, "the match to be running in two sandboxes")


def assert_recorded_once(matches: list[Match]) -> None:
    """Every match finished with one complete result, and every rating counts each rated match once."""
    played = {}
    for match in matches:
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED, f"match {match.pk}: {match.status} {match.error}"
        assert match.replay and match.finished_at and match.claim
        seats = list(match.seats.all())
        assert len(seats) == 2
        for seat in seats:
            assert seat.status == MatchSeat.Status.OK, (seat.status, seat.detail, seat.log)
            assert seat.score is not None and seat.placing in (1, 2) and seat.decisions == 6
            assert seat.rating_before is not None and seat.rating_after is not None
            played[seat.bot_id] = played.get(seat.bot_id, 0) + 1
        # The skill model is not zero-sum (both conservative ratings rise as sigma shrinks): the winner gains more.
        first, second = sorted(seats, key=lambda seat: seat.placing)
        if first.placing < second.placing:
            assert first.rating_change > second.rating_change
        moves = [event for event in match.replay["events"] if "action" in event]
        assert len(moves) == sum(seat.decisions for seat in seats) == 12
    for bot_id, count in played.items():
        rating = Rating.objects.get(bot_id=bot_id)
        assert rating.played == count
        last = MatchSeat.objects.filter(bot_id=bot_id, match__in=matches).order_by("match__finished_at").last()
        assert rating.value == pytest.approx(last.rating_after)
    call_command("recompute_ratings")  # the stored ratings are what the match history says, exactly


def test_a_worker_killed_mid_match_leaves_no_sandbox_and_the_match_finishes_once(fault_lab, make_user):
    first = fault_lab.worker("doomed")
    match = rated_match([student_bot(make_user, "slow", SLOW_BOT), student_bot(make_user, "quick", QUICK_BOT)])

    # Mid-match: claimed by the worker, whose pool process has both bots' containers up.
    containers = running_in_two_sandboxes(match, first)
    killed = first.pids()
    first.kill()
    assert status(match) == Match.Status.RUNNING, "the match ended before the worker was killed: nothing was tested"
    assert containers <= set(bot_containers()), "the killed worker's containers vanished on their own"
    folders = match_folders_of(killed)
    assert len(folders) == 1, folders  # the match's copy of the bots' sources

    # Orphaned processes stay zombies until init reaps them (here up to ~1.5 s), and a zombie still passes
    # for a live owner of its containers: the next worker starts once the killed ones are really gone.
    wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in killed), 20, "the killed processes to be reaped")
    # The next worker on this host removes what the killed one left, as it starts (before it says "ready").
    fault_lab.worker("fresh")
    wait_for(lambda: not containers & set(bot_containers()), 10, "the fresh worker to remove the leftover sandboxes")
    assert not any(folder.exists() for folder in folders), "the killed worker's match folder was left behind"

    # The killed worker's message stays unacknowledged in Redis (re-delivered only after the visibility
    # timeout, an hour); past the claim's deadline the periodic task re-queues the match and the fresh
    # worker plays it again, from the start.
    fault_lab.scheduler()
    wait_for(lambda: status(match) == Match.Status.FINISHED, DEADLINE_SECONDS + 45, "the re-queued match to finish")
    match.refresh_from_db()
    assert match.attempts >= 2  # 2 unless a loaded host made the replay itself outlast the deadline
    assert Match.objects.filter(status=Match.Status.FINISHED).count() == 1
    assert_recorded_once([match])
    for seat in match.seats.all():
        assert seat.rating_before == pytest.approx(settings.ARENA_RATING_MU - 3 * settings.ARENA_RATING_SIGMA)


@pytest.mark.parametrize("fault_lab", [BROKER_RESTART_DEADLINE_SECONDS], indirect=True)
def test_a_broker_restart_loses_no_match(fault_lab, make_user):
    worker = fault_lab.worker("steady")
    fault_lab.scheduler()
    slow = student_bot(make_user, "slow", SLOW_BOT)
    quick = student_bot(make_user, "quick", QUICK_BOT)
    other = student_bot(make_user, "other", QUICK_BOT)

    during = rated_match([slow, quick])
    waiting = rated_match([quick, other])  # behind `during` in the queue: one match at a time
    wait_for(lambda: status(during) == Match.Status.RUNNING, 90, "the first match to start")

    # Redis without persistence: the restart drops `waiting`'s message, still in the broker's queue (the
    # worker takes one message at a time), and `during`'s unacknowledged one.
    assert status(waiting) == Match.Status.QUEUED
    fault_lab.redis.kill()
    fault_lab.redis.start()
    after = rated_match([other, slow])

    matches = [during, waiting, after]
    over = (Match.Status.FINISHED, Match.Status.SET_ASIDE, Match.Status.CANCELLED)
    statuses = lambda: {m.pk: status(m) for m in matches}  # noqa: E731
    try:
        wait_for(lambda: all(s in over for s in statuses().values()), fault_lab.deadline_seconds + 40, "the matches")
    except pytest.fail.Exception:
        pytest.fail(f"not every match finished after the broker restart: {statuses()}")
    assert worker.process.poll() is None, "the worker did not survive the broker restart"
    assert_recorded_once(matches)
    during.refresh_from_db()
    assert during.attempts == 1  # the worker kept playing it through the restart


def test_a_pool_process_killed_mid_match_is_redelivered_and_taken_over_once(fault_lab, make_user):
    worker = fault_lab.worker("survivor")
    fault_lab.scheduler()
    match = rated_match([student_bot(make_user, "slow", SLOW_BOT), student_bot(make_user, "quick", QUICK_BOT)])
    containers = running_in_two_sandboxes(match, worker)
    pool = worker.pids() - {worker.process.pid}
    assert len(pool) == 1
    folders = match_folders_of(pool)
    assert len(folders) == 1, folders

    # Only the process playing the match dies (the OOM killer, say); the worker itself lives on, rejects the
    # unacknowledged message back to the queue (reject_on_worker_lost) and gets it again at once. That
    # delivery finds the match held by the dead attempt and retries itself at the claim's deadline; the
    # periodic task re-queues the match at that deadline too. Whichever comes first plays the match again,
    # the other finds it finished.
    os.kill(pool.pop(), signal.SIGKILL)
    assert status(match) == Match.Status.RUNNING, "the match ended before its process was killed: nothing was tested"
    wait_for(lambda: status(match) == Match.Status.FINISHED, DEADLINE_SECONDS + 45, "the redelivered match to finish")
    assert worker.process.poll() is None
    log = worker.log.read_text()
    assert "WorkerLostError" in log and "retry: Retry in" in log, worker.tail()  # rejected, redelivered, retried
    match.refresh_from_db()
    assert match.attempts >= 2
    assert_recorded_once([match])
    # The periodic task also removes the sandboxes the dead process left.
    wait_for(lambda: not containers & set(bot_containers()) and not any(folder.exists() for folder in folders), 10,
             "the dead process's sandboxes and match folder to be removed")


def test_a_worker_stopped_warmly_leaves_no_warm_sandbox_behind(fault_lab, make_user):
    worker = fault_lab.worker("stopping")
    match = rated_match([student_bot(make_user, "first", QUICK_BOT), student_bot(make_user, "second", QUICK_BOT)])
    wait_for(lambda: status(match) == Match.Status.FINISHED, 90, "the match to finish")
    pids = worker.pids()
    kept = sandboxes_of(pids)
    assert len(kept) == 2, "the bots' warm containers wait for their next match"
    assert len(folders_of(pids, STAGING_PREFIX)) == 2

    # A warm shutdown (what `docker compose stop` or systemd sends), nothing killed: the worker removes its
    # warm containers itself, not the next worker to start on this host.
    worker.terminate()
    worker.process.wait(timeout=60)
    assert not kept & set(bot_containers()), "the stopped worker left its warm containers running"
    assert not folders_of(pids, STAGING_PREFIX), "the stopped worker left its sandbox folders"


def test_a_match_that_keeps_killing_its_worker_is_set_aside_after_its_attempts(fault_lab, make_user):
    worker = fault_lab.worker("poisoned")
    fault_lab.scheduler()
    match = rated_match([student_bot(make_user, "slow", SLOW_BOT), student_bot(make_user, "quick", QUICK_BOT)])
    attempts = lambda: Match.objects.values_list("attempts", flat=True).get(pk=match.pk)  # noqa: E731

    # Each attempt kills the process playing it (as a match that exhausts the host's memory would): the
    # worker lives on, and the match comes back past its deadline, by the sweep or by the re-delivery.
    for attempt in range(1, settings.ARENA_MATCH_MAX_ATTEMPTS + 1):
        running_in_two_sandboxes(match, worker)
        assert attempts() == attempt
        pool = worker.pids() - {worker.process.pid}
        assert len(pool) == 1
        os.kill(pool.pop(), signal.SIGKILL)
        if attempt < settings.ARENA_MATCH_MAX_ATTEMPTS:
            wait_for(lambda: attempts() > attempt, DEADLINE_SECONDS + 45, f"attempt {attempt + 1}")

    # After the last allowed attempt it is not delivered again: it is set aside with its reason, unrated.
    wait_for(lambda: status(match) == Match.Status.SET_ASIDE, DEADLINE_SECONDS + 45, "the match to be set aside")
    match.refresh_from_db()
    assert match.attempts == settings.ARENA_MATCH_MAX_ATTEMPTS
    assert "its worker was lost" in match.error, match.error
    assert not Rating.objects.filter(played__gt=0).exists()
    assert set(match.seats.values_list("status", flat=True)) == {""}
    assert worker.process.poll() is None


def test_a_platform_fault_is_retried_then_set_aside_with_its_reason_unrated_and_the_operators_told(
        live_worker, make_user, settings):
    from arena.notifications.models import Notification

    operator = make_user("operator", is_superuser=True, is_staff=True)
    greedy, random_bot = Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "random")
    # Options the engine refuses, passed straight to a match: a bug of ours, not of either bot.
    match = services.create_match("endgame", [greedy, random_bot], purpose=Match.Purpose.CHALLENGE, rated=True,
                                  config={"length": 0})
    wait_for(lambda: status(match) == Match.Status.SET_ASIDE, 90, "the match to be set aside")

    match.refresh_from_db()
    assert match.attempts == settings.ARENA_MATCH_MAX_ATTEMPTS == 3
    assert match.error == ("set aside after 3 attempts; the last failed on the platform: "
                           "ConfigError: length must be an integer from 1 to 500, not 0")
    assert match.fault.startswith("Traceback") and "games/" in match.fault  # where the engine raised
    assert not Rating.objects.filter(played__gt=0).exists()
    assert set(match.seats.values_list("status", flat=True)) == {""}
    told = Notification.objects.get(kind=Notification.Kind.SET_ASIDE)
    assert told.user == operator and f"Match #{match.pk} (challenge match) was set aside" in told.text
