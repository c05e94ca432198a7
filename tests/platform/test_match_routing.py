"""A host keeps one warm container per bot version (issue 27), so the run task routes a queued match to the
containers of its bots: a match whose bots' containers are all in a match running now is passed over for a
queued match free of them, a bounded number of times, or, with nothing else queued, waits a bounded moment
for them; it is always played in the end.

The host's containers are stood in for by a count per version (runner.warm_containers, which reads the warm
pool's shared folder); the matches are played by the plain-process sandbox. test_sandbox_warm.py's and
test_version_warm_up.py's live workers play in real containers."""

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from arena.bots.models import Bot
from arena.matches import runner, services
from arena.matches.models import Match
from arena.matches.tasks import run_match
from platform_helpers import active_bot, play_now

pytestmark = pytest.mark.django_db


@pytest.fixture
def host(monkeypatch, settings) -> dict[int, int]:
    """The warm containers this host keeps, by version id (one each unless set): the matches play in warm
    containers as far as routing is concerned, and as plain processes in fact."""
    settings.ARENA_SANDBOX = "none"
    containers: dict[int, int] = {}
    monkeypatch.setattr(runner, "routes_by_container", lambda match: True)
    monkeypatch.setattr(runner, "warm_containers", lambda version: containers.get(version.pk, 1))
    return containers


@pytest.fixture
def sent_again(monkeypatch) -> list[tuple[int, dict]]:
    """The matches sent to the workers again, with how (none is really sent, nor those sent once queued)."""
    sent: list[tuple[int, dict]] = []
    monkeypatch.setattr(services, "dispatch",
                        lambda match, **options: options.get("again") and sent.append((match.pk, options)))
    return sent


@pytest.fixture
def tables(make_user):
    """Two tables of two students' bots each: (ada's, bob's) and (cy's, dee's)."""
    ada, bob, cy, dee = (active_bot(make_user(name), name=name) for name in ("ada", "bob", "cy", "dee"))
    return [ada, bob], [cy, dee]


def queue(bots) -> Match:
    return services.create_match("endgame", bots, purpose=Match.Purpose.CHALLENGE, rated=False, rotate=False)


def running(bots) -> Match:
    match = queue(bots)
    assert services.claim(match.pk).match.pk == match.pk
    return match


def status(match: Match) -> str:
    return Match.objects.get(pk=match.pk).status


def test_a_match_whose_bots_are_playing_another_match_is_passed_over_for_a_free_one_and_sent_again_ahead(
        host, sent_again, tables):
    first, other = tables
    running(first)
    later, free = queue(first), queue(other)

    claimed = services.claim(later.pk, services.Route())

    assert claimed.match.pk == free.pk and status(free) == Match.Status.RUNNING
    assert status(later) == Match.Status.QUEUED
    assert sent_again == [(later.pk, {"again": True, "passes": 1})]  # ahead of the queue, its pass counted


def test_a_passed_match_whose_new_message_is_lost_is_sent_again_by_the_sweep(host, sent_again, tables):
    first, other = tables
    running(first)
    later, _ = queue(first), queue(other)
    services.claim(later.pk, services.Route())  # passed over; then the broker loses its new message
    sent_again.clear()

    Match.objects.filter(pk=later.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert services.requeue_stuck() == 1 and sent_again == [(later.pk, {"again": True})]


def test_a_match_past_its_deadline_holds_no_container(host, sent_again, tables):
    """Its worker is presumed lost (killed, its containers with it): its bots' next match plays at once."""
    first, other = tables
    lost = running(first)
    later, _ = queue(first), queue(other)
    Match.objects.filter(pk=lost.pk).update(deadline=timezone.now() - timedelta(seconds=1))

    assert services.claim(later.pk, services.Route()).match.pk == later.pk and sent_again == []


def test_a_match_passed_over_the_most_times_is_played_at_its_next_turn(host, sent_again, tables):
    first, other = tables
    running(first)
    later, free = queue(first), queue(other)

    # (a wait is still allowed: a bounded one, then the claim that follows takes it, see below)
    assert services.claim(later.pk, services.Route(passes=services.MAX_PASSES)) == \
        services.Busy(later.pk, [Match.objects.get(status=Match.Status.RUNNING).pk])
    claimed = services.claim(later.pk, services.Route(passes=services.MAX_PASSES, wait=False))

    assert claimed.match.pk == later.pk and status(free) == Match.Status.QUEUED and sent_again == []


def test_with_nothing_else_queued_the_claim_names_the_match_holding_the_containers_then_takes_its_own(
        host, sent_again, tables):
    first, _ = tables
    holding = running(first)
    later = queue(first)

    assert services.claim(later.pk, services.Route()) == services.Busy(later.pk, [holding.pk])
    assert status(later) == Match.Status.QUEUED
    assert services.claim(later.pk, services.Route(wait=False)).match.pk == later.pk


def test_a_version_with_a_container_to_spare_on_the_host_plays_at_once(host, sent_again, tables):
    first, other = tables
    running(first)
    later, _ = queue(first), queue(other)
    host.update({bot.versions.get().pk: 2 for bot in first})

    assert services.claim(later.pk, services.Route()).match.pk == later.pk and sent_again == []


def test_the_claim_of_an_operator_or_a_test_takes_the_match_named(host, sent_again, tables):
    first, other = tables
    running(first)
    later, _ = queue(first), queue(other)

    assert services.claim(later.pk).match.pk == later.pk


def test_only_matches_played_in_warm_containers_are_routed(make_user, settings):
    bots = [active_bot(make_user("ada")), Bot.objects.builtin("endgame", "greedy")]
    challenge = services.create_match("endgame", bots, purpose=Match.Purpose.CHALLENGE, rated=False)
    validation = services.create_match("endgame", bots, purpose=Match.Purpose.VALIDATION, rated=False)
    settings.ARENA_SANDBOX, settings.ARENA_WARM_SANDBOX = "docker", True
    assert runner.routes_by_container(challenge) and not runner.routes_by_container(validation)  # (cold)
    settings.ARENA_WARM_SANDBOX = False
    assert not runner.routes_by_container(challenge)
    settings.ARENA_SANDBOX = "none"
    assert not runner.routes_by_container(challenge)


@pytest.mark.django_db(transaction=True)
def test_the_run_task_waits_for_the_match_holding_the_containers_then_plays_its_own(host, tables, monkeypatch):
    first, _ = tables
    holding = queue(first)
    holding_claim = services.claim(holding.pk)
    later = queue(first)
    waiting = threading.Event()
    wait_for_containers = services.wait_for_containers

    def wait(busy):
        waiting.set()
        return wait_for_containers(busy)

    def end_the_holding_match_once_the_later_one_waits():
        try:
            assert waiting.wait(30)
            services.run(holding_claim)
        finally:
            connection.close()  # (this thread's)

    monkeypatch.setattr(services, "wait_for_containers", wait)
    monkeypatch.setattr(runner, "container_start_seconds", lambda: 60.0)  # (longer than a plain End Game)
    ending = threading.Thread(target=end_the_holding_match_once_the_later_one_waits)
    ending.start()
    run_match.run(later.pk)
    ending.join()

    holding.refresh_from_db()
    later.refresh_from_db()
    assert later.status == Match.Status.FINISHED and holding.status == Match.Status.FINISHED
    assert later.started_at >= holding.finished_at  # in the containers the holding match handed back


@pytest.mark.django_db(transaction=True)
def test_the_run_task_waits_a_bounded_moment_for_a_match_that_does_not_end_then_plays_its_own(host, tables,
                                                                                              monkeypatch):
    monkeypatch.setattr(runner, "container_start_seconds", lambda: 0.5)  # (a start here, lately)
    first, _ = tables
    holding = running(first)
    later = queue(first)

    began = time.monotonic()
    run_match.run(later.pk)

    later.refresh_from_db()
    assert later.status == Match.Status.FINISHED and status(holding) == Match.Status.RUNNING
    assert 0.5 <= time.monotonic() - began < 0.5 + 10  # (the match itself: a plain-process End Game)


@pytest.mark.django_db(transaction=True)
def test_a_wait_that_finds_the_containers_taken_again_waits_again_within_the_passes(host, tables, monkeypatch):
    """The process that played the holding match may claim the next match of the same bots before the waiting
    one: the waiting one then waits for that match too rather than start containers, MAX_PASSES times at
    most, then plays beside it."""
    first, _ = tables
    other_process = [services.claim(queue(first).pk)]  # its match holds the bots' containers
    later = queue(first)
    waits = []
    wait_for_containers = services.wait_for_containers

    def the_other_process_ends_its_match_and_claims_the_next_of_the_same_bots_first(busy):
        waits.append(busy.running)
        services.run(other_process.pop())
        other_process.append(services.claim(queue(first).pk))
        return wait_for_containers(busy)

    monkeypatch.setattr(services, "wait_for_containers",
                        the_other_process_ends_its_match_and_claims_the_next_of_the_same_bots_first)
    run_match.run(later.pk)

    later.refresh_from_db()
    assert len(waits) == services.MAX_PASSES and later.status == Match.Status.FINISHED
    assert status(other_process[0].match) == Match.Status.RUNNING  # (played beside it, in containers of its own)
