"""A match result (scores, replay, rating change) is recorded exactly once, however often its task runs."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from celery.exceptions import Retry
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone
from platform_helpers import database_url
from required import require

from arena.bots.models import Bot
from arena.matches import services
from arena.matches.models import Match
from arena.matches.tasks import run_match
from arena.ratings.models import Rating

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("deliveries_by_hand")]


@pytest.fixture
def deliveries_by_hand(monkeypatch):
    """No task goes to the broker: each test delivers (and re-delivers) the run task itself."""
    monkeypatch.setattr(services, "dispatch", lambda match, **options: None)


def rated_builtin_match() -> Match:
    greedy = Bot.objects.builtin("endgame", "greedy")
    random_bot = Bot.objects.builtin("endgame", "random")
    return services.create_match("endgame", [greedy, random_bot], purpose=Match.Purpose.CHALLENGE, rated=True)


def deliver(match_id: int, outcomes: list) -> None:
    """One delivery of the run task in this process, as a worker would execute it."""
    try:
        run_match.run(match_id)
        outcomes.append("ran")
    except Retry:
        outcomes.append("retry later")


def deliver_in_processes(match_id: int, names: list[str], meeting: Path) -> dict[str, dict]:
    """The run task delivered once in each of len(names) OS processes that claim the match at the same
    moment (see deliver_run_task.py); each process's report, by name."""
    require(connection.vendor == "postgresql", "PostgreSQL (the processes share the test database)")
    env = {**os.environ, "DATABASE_URL": database_url(), "SECRET_KEY": settings.SECRET_KEY}
    processes = {
        name: subprocess.Popen([sys.executable, str(HERE / "deliver_run_task.py"), str(match_id), name, str(meeting),
                                str(len(names))], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        for name in names
    }
    reports = {}
    for name, process in processes.items():
        out, err = process.communicate(timeout=180)
        assert process.returncode == 0, f"delivery {name} failed:\n{err[-3000:]}"
        reports[name] = json.loads(out.strip().splitlines()[-1])
    return reports


def test_two_processes_delivering_at_the_same_moment_record_one_result_and_one_rating_change(tmp_path):
    match = rated_builtin_match()
    reports = deliver_in_processes(match.pk, ["first", "second"], tmp_path)

    assert sorted(report["task"] for report in reports.values()) == ["ran", "retry later"], reports
    winner = next(report for report in reports.values() if report["task"] == "ran")
    loser = next(report for report in reports.values() if report["task"] == "retry later")
    assert (winner["claimed"], loser["claimed"]) == ("Claim", "float")
    # The two deliveries overlapped: the loser was answered while the winner held the match, unrecorded...
    assert winner["claim_began"] < loser["claim_answered"] < winner["recorded_at"]
    # ...and told to come back when the winner's attempt is presumed lost (its fresh deadline).
    assert 0.9 * settings.ARENA_MATCH_DEADLINE_SECONDS < loser["retry_after"] <= settings.ARENA_MATCH_DEADLINE_SECONDS

    late = []
    deliver(match.pk, late)  # the loser's retry, delivered after the result is in, returns having done nothing
    assert late == ["ran"]
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.attempts == 1
    for seat in match.seats.all():
        rating = Rating.objects.get(bot=seat.bot)
        assert rating.played == 1
        assert seat.rating_before == pytest.approx(settings.ARENA_RATING_MU - 3 * settings.ARENA_RATING_SIGMA)
        assert rating.value == pytest.approx(seat.rating_after)
        assert seat.rating_after != seat.rating_before
    call_command("recompute_ratings")


def test_a_superseded_attempt_cannot_record_its_result():
    match = rated_builtin_match()
    lost = services.claim(match.pk)
    # The first worker hangs past its deadline; the match is re-queued and a second worker takes it over.
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timezone.timedelta(seconds=1))
    assert services.requeue_stuck() == 1
    current = services.claim(match.pk)
    assert isinstance(current, services.Claim)

    assert services.run(current) is True
    assert services.run(lost) is False

    match.refresh_from_db()
    assert match.attempts == 2
    assert sum(Rating.objects.values_list("played", flat=True)) == 2  # one match, two seats
    call_command("recompute_ratings")


def test_cancelled_match_is_not_recorded():
    match = rated_builtin_match()
    claimed = services.claim(match.pk)
    assert services.cancel(match)
    assert services.run(claimed) is False
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED
    assert not Rating.objects.filter(played__gt=0).exists()


def test_recompute_ratings_agrees_and_detects_a_tampered_rating():
    for _ in range(3):
        deliver(rated_builtin_match().pk, [])
    call_command("recompute_ratings")

    Rating.objects.filter(pk=Rating.objects.first().pk).update(value=9999)
    with pytest.raises(CommandError, match="disagree"):
        call_command("recompute_ratings")
    call_command("recompute_ratings", fix=True)
    call_command("recompute_ratings")
