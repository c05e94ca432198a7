"""The claim, the recording and the deadline sweep, one call at a time: what each answers and leaves in the
database. (test_exactly_once.py races them across processes; these pin every branch the race relies on.)

A result is recorded here by hand (seats' scores chosen by the test) rather than played, so each test is a
few queries."""

import logging
from datetime import timedelta
from types import SimpleNamespace

import pytest
from celery.exceptions import Retry
from django.conf import settings
from django.db import OperationalError
from django.utils import timezone

from arena.bots.models import Bot
from arena.matches import services
from arena.matches.models import Match
from arena.matches.tasks import run_match
from arena.ratings.models import Rating

pytestmark = pytest.mark.django_db
DEADLINE = timedelta(seconds=settings.ARENA_MATCH_DEADLINE_SECONDS)


@pytest.fixture
def dispatched(monkeypatch) -> list[int]:
    """The ids of the matches sent to the workers (none really is)."""
    sent = []
    monkeypatch.setattr(services, "dispatch", lambda match, **options: sent.append(match.pk))
    return sent


@pytest.fixture
def match(dispatched) -> Match:
    bots = [Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "random")]
    return services.create_match("endgame", bots, purpose=Match.Purpose.CHALLENGE, rated=True)


def result(winner: int) -> SimpleNamespace:
    """A played End Game result: `winner` scored 30 to 20."""
    seats = [SimpleNamespace(score=30 if seat == winner else 20, placing=1 if seat == winner else 2, status="ok",
                             detail="", log=f"seat {seat} log", think_time=0.5 + seat, decisions=10)
             for seat in (0, 1)]
    return SimpleNamespace(winners=[winner], replay={"moves": []}, players=seats)


def raised(message: str) -> RuntimeError:
    """An exception as the platform would hand it over: raised, with its traceback."""
    try:
        raise RuntimeError(message)
    except RuntimeError as exc:
        return exc


def set_deadline(match: Match, deadline) -> None:
    Match.objects.filter(pk=match.pk).update(deadline=deadline)


def test_a_claim_starts_the_match_with_a_fresh_token_and_deadline(match):
    before = timezone.now()
    claimed = services.claim(match.pk)
    after = timezone.now()

    match.refresh_from_db()
    assert isinstance(claimed, services.Claim) and claimed.token == match.claim is not None
    assert (match.status, match.attempts) == (Match.Status.RUNNING, 1)
    assert before <= match.started_at <= after
    assert before + DEADLINE <= match.deadline <= after + DEADLINE


def test_a_running_match_answers_another_claim_with_the_seconds_to_its_deadline(match):
    first = services.claim(match.pk)
    set_deadline(match, timezone.now() + timedelta(seconds=90))

    wait = services.claim(match.pk)

    assert isinstance(wait, float) and 85 < wait <= 90
    match.refresh_from_db()
    assert (match.claim, match.attempts) == (first.token, 1)  # untouched


def test_a_running_match_past_its_deadline_is_taken_over_with_a_new_token(match):
    first = services.claim(match.pk)
    set_deadline(match, timezone.now() - timedelta(seconds=1))

    second = services.claim(match.pk)

    assert isinstance(second, services.Claim) and second.token != first.token
    match.refresh_from_db()
    assert (match.claim, match.attempts, match.status) == (second.token, 2, Match.Status.RUNNING)


@pytest.mark.parametrize("status", [Match.Status.FINISHED, Match.Status.SET_ASIDE, Match.Status.CANCELLED])
def test_an_ended_match_is_never_claimed_again(match, status):
    Match.objects.filter(pk=match.pk).update(status=status, finished_at=timezone.now(), replay={"moves": []})
    assert services.claim(match.pk) is None
    assert services.claim(match.pk + 1000) is None  # gone
    match.refresh_from_db()
    assert (match.status, match.attempts) == (status, 0)


def test_a_result_is_recorded_on_every_seat_and_rated_once(match):
    claimed = services.claim(match.pk)
    assert services.record_result(claimed, result(winner=1)) is True

    match.refresh_from_db()
    assert (match.status, match.winners, match.replay) == (Match.Status.FINISHED, [1], {"moves": []})
    assert match.finished_at is not None
    seats = list(match.seats.order_by("seat"))
    assert [(s.score, s.placing, s.status, s.log, s.think_time, s.decisions) for s in seats] == [
        (20, 2, "ok", "seat 0 log", 0.5, 10), (30, 1, "ok", "seat 1 log", 1.5, 10)]
    assert [Rating.objects.get(bot=s.bot).played for s in seats] == [1, 1]
    assert seats[1].rating_after > seats[1].rating_before


def test_a_result_recorded_twice_is_refused_and_changes_nothing(match, caplog):
    claimed = services.claim(match.pk)
    with caplog.at_level(logging.WARNING, logger="arena.matches.services"):
        assert services.record_result(claimed, result(winner=1)) is True
        assert caplog.messages == []
        finished_at = Match.objects.get(pk=match.pk).finished_at

        assert services.record_result(claimed, result(winner=0)) is False
        assert services.record_fault(claimed, RuntimeError("too late")) is False
    # The operator sees each discarded attempt.
    assert caplog.messages == [f"match {match.pk}: result of a superseded attempt discarded"] * 2

    match.refresh_from_db()
    assert (match.status, match.winners, match.finished_at, match.error) == (Match.Status.FINISHED, [1], finished_at, "")
    assert sorted(match.seats.values_list("score", flat=True)) == [20, 30]
    assert sorted(Rating.objects.values_list("played", flat=True)) == [1, 1]


def test_a_platform_fault_is_kept_and_retried_at_once_then_set_aside_unrated(match, dispatched, settings, caplog):
    settings.ARENA_MATCH_MAX_ATTEMPTS = 3
    dispatched.clear()
    for attempt in (1, 2):
        claimed = services.claim(match.pk)
        assert services.record_fault(claimed, raised(f"no sandbox {attempt}")) is True
        assert services.record_fault(claimed, RuntimeError("again")) is False  # once per attempt
        match.refresh_from_db()
        assert (match.status, match.attempts, match.claim, match.error) == (Match.Status.QUEUED, attempt, None, "")
        assert "RuntimeError: no sandbox" in match.fault and match.fault.startswith("Traceback")
        assert dispatched == [match.pk] * attempt  # queued again at once, not at the deadline

    with caplog.at_level(logging.ERROR, logger="arena.matches.services"):
        claimed = services.claim(match.pk)
        assert services.record_fault(claimed, raised("no sandbox 3")) is True
    assert services.record_result(claimed, result(winner=0)) is False
    match.refresh_from_db()
    assert (match.status, match.attempts, match.winners) == (Match.Status.SET_ASIDE, 3, [])
    assert match.error == "set aside after 3 attempts; the last failed on the platform: RuntimeError: no sandbox 3"
    assert f"match {match.pk} set aside" in caplog.text
    assert dispatched == [match.pk] * 2
    assert not Rating.objects.filter(played__gt=0).exists()
    assert set(match.seats.values_list("status", flat=True)) == {""}  # no seat got a verdict, no loss counted

    assert services.requeue(match)  # the staff, once the cause is fixed: fresh attempts
    match.refresh_from_db()
    assert (match.status, match.attempts, match.error) == (Match.Status.QUEUED, 0, "")
    services.record_result(services.claim(match.pk), result(winner=0))
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED


def test_a_match_whose_worker_keeps_dying_is_set_aside_by_the_sweep_or_the_next_claim(match, dispatched, settings):
    settings.ARENA_MATCH_MAX_ATTEMPTS = 2
    other = services.create_match("endgame", [Bot.objects.builtin("endgame", "greedy"),
                                              Bot.objects.builtin("endgame", "parity")],
                                  purpose=Match.Purpose.CHALLENGE, rated=True)
    for lost in (match, other):
        services.claim(lost.pk)  # attempt 1: its worker dies
        set_deadline(lost, timezone.now() - timedelta(seconds=1))
    assert services.requeue_stuck() == 2
    for lost in (match, other):
        services.claim(lost.pk)  # attempt 2, the last allowed: its worker dies too
    set_deadline(match, timezone.now() - timedelta(seconds=1))
    assert services.requeue_stuck() == 0  # the sweep finds `match` lost again
    set_deadline(other, timezone.now() - timedelta(seconds=1))
    assert services.claim(other.pk) is None  # a re-delivered message finds `other` lost again
    for lost in (match, other):
        lost.refresh_from_db()
        assert (lost.status, lost.attempts, lost.claim) == (Match.Status.SET_ASIDE, 2, None)
        assert lost.error.startswith("set aside after 2 attempts; the last failed on the platform: its worker was lost")
    assert not Rating.objects.filter(played__gt=0).exists()


def test_the_sweep_requeues_only_matches_past_their_deadline(match, dispatched):
    now = timezone.now()
    running = services.claim(services.create_match(
        "endgame", [Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "parity")],
        purpose=Match.Purpose.CHALLENGE, rated=False).pk).match
    set_deadline(match, now)  # queued, due exactly now: not yet past it
    set_deadline(running, now - timedelta(seconds=1))  # its worker is presumed lost
    dispatched.clear()

    assert services.requeue_stuck(now) == 1
    assert dispatched == [running.pk]
    running.refresh_from_db()
    assert (running.status, running.claim) == (Match.Status.QUEUED, None)
    assert running.deadline > now + DEADLINE * 0.9  # a fresh dispatch deadline
    assert services.requeue_stuck(now) == 0  # and not again before that

    assert services.requeue_stuck(now + timedelta(microseconds=1)) == 1  # the queued match, once it is past
    assert dispatched == [running.pk, match.pk]


def test_the_sweep_leaves_ended_matches_alone(match, dispatched):
    claimed = services.claim(match.pk)
    services.record_result(claimed, result(winner=0))
    set_deadline(match, timezone.now() - timedelta(days=1))
    dispatched.clear()

    assert services.requeue_stuck() == 0 and dispatched == []
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED


def test_a_delivery_of_a_running_match_comes_back_just_after_its_deadline(match, monkeypatch):
    services.claim(match.pk)
    set_deadline(match, timezone.now() + timedelta(seconds=60))
    retried = []

    def retry(**options):
        retried.append(options)
        return Retry()

    monkeypatch.setattr(run_match, "retry", retry)
    with pytest.raises(Retry):
        run_match.run(match.pk)
    assert 60 < retried[0]["countdown"] <= 61


def test_a_database_outage_during_the_claim_sends_the_delivery_back_within_seconds(match, monkeypatch):
    """Not at the deadline sweep minutes later: the broker redelivers it in at most 5 s."""
    outage = OperationalError("the server closed the connection unexpectedly")

    def claim(match_id, route=None):
        raise outage

    retried = []

    def retry(**options):
        retried.append(options)
        return Retry()

    monkeypatch.setattr(services, "claim", claim)
    monkeypatch.setattr(run_match, "retry", retry)
    with pytest.raises(Retry):
        run_match.run(match.pk)
    assert retried[0]["exc"] is outage and 0 < retried[0]["countdown"] <= 5


def test_the_run_keeps_a_platform_faults_exception_and_logs_it_with_the_match_id(match, dispatched, monkeypatch,
                                                                                   caplog):
    from arena.matches import runner

    def play(match, seats):
        raise ValueError("a bug of ours quoting \x00")  # a NUL, which PostgreSQL's text refuses

    monkeypatch.setattr(runner, "play", play)
    with caplog.at_level(logging.ERROR, logger="arena.matches.services"):
        assert services.run(services.claim(match.pk)) is True
    assert caplog.records[0].getMessage() == (
        f"match {match.pk}: platform fault on attempt 1 of {settings.ARENA_MATCH_MAX_ATTEMPTS}")
    assert caplog.records[0].exc_info[0] is ValueError  # the traceback is in the log line too
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED and "ValueError: a bug of ours quoting \\x00" in match.fault
