"""A match result (scores, replay, rating change) is recorded exactly once, however often its task runs."""

import threading

import pytest
from celery.exceptions import Retry
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from bots.models import Bot
from matches import services
from matches.models import Match
from matches.tasks import run_match
from ratings.models import Rating

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("deliveries_by_hand")]


@pytest.fixture
def deliveries_by_hand(monkeypatch):
    """No task goes to the broker: each test delivers (and re-delivers) the run task itself."""
    monkeypatch.setattr(services, "dispatch", lambda match: None)


def rated_builtin_match() -> Match:
    greedy = Bot.objects.builtin("endgame", "greedy")
    random_bot = Bot.objects.builtin("endgame", "random")
    return services.create_match("endgame", [greedy, random_bot], purpose=Match.Purpose.CHALLENGE, rated=True)


def deliver(match_id: int, outcomes: list) -> None:
    """One delivery of the run task, as a worker process would execute it."""
    try:
        run_match.run(match_id)
        outcomes.append("ran")
    except Retry:
        outcomes.append("retry later")
    finally:
        connection.close()


def test_concurrent_duplicate_deliveries_rate_the_match_once():
    match = rated_builtin_match()
    outcomes = []
    threads = [threading.Thread(target=deliver, args=(match.pk, outcomes)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    deliver(match.pk, outcomes)  # a late re-delivery after the result is in

    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert len(outcomes) == 5
    assert match.attempts == 1
    for seat in match.seats.all():
        rating = Rating.objects.get(bot=seat.bot)
        assert rating.played == 1
        assert rating.value == pytest.approx(seat.rating_after)
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
