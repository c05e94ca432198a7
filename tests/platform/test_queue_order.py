"""The order in which the broker hands matches to the workers: a match sent again (its worker died, its
message was lost) runs before the matches queued after it, as its queue position says."""

import shutil
from datetime import timedelta

import pytest
from django.utils import timezone

from arena.core import queue
from arena.celery import app
from arena.bots.models import Bot
from celery_lab import RedisServer
from arena.matches import services
from arena.matches.models import Match
from required import require

pytestmark = pytest.mark.django_db
QUEUE = "arena-queue-order"


@pytest.fixture
def broker(tmp_path, monkeypatch):
    """A private Redis as the broker of every task this test publishes (publish_on_commit's own call)."""
    require(shutil.which("redis-server") is not None, "redis-server")
    server = RedisServer(tmp_path)
    server.start()
    send_task = app.send_task

    def to_the_private_broker(name, **options):
        with app.connection_for_write(server.url) as connection:
            return send_task(name, queue=QUEUE, connection=connection, **options)

    monkeypatch.setattr(queue.current_app, "send_task", to_the_private_broker)
    yield server
    server.kill()


def delivered(broker: RedisServer, count: int) -> list[int]:
    """The match ids of the next `count` run_match messages, in the order a worker receives them."""
    from kombu import Queue

    ids = []

    def receive(body, message):
        ids.append(body[0][0])
        message.ack()

    with app.connection_for_read(broker.url) as connection:
        with connection.Consumer(Queue(QUEUE), callbacks=[receive], prefetch_count=1):
            while len(ids) < count:
                connection.drain_events(timeout=10)
    return ids


def new_match() -> Match:
    bots = [Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "random")]
    return services.create_match("endgame", bots, purpose=Match.Purpose.CHALLENGE, rated=False)


def test_a_match_whose_worker_died_runs_before_the_matches_queued_after_it(broker, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = new_match()
    assert delivered(broker, 1) == [first.pk]
    services.claim(first.pk)  # then its worker dies mid-match
    with django_capture_on_commit_callbacks(execute=True):
        later = [new_match() for _ in range(3)]
    Match.objects.filter(pk=first.pk).update(deadline=timezone.now() - timedelta(seconds=1))

    with django_capture_on_commit_callbacks(execute=True):
        assert services.requeue_stuck() == 1

    first.refresh_from_db()
    assert first.status == Match.Status.QUEUED and first.queue_position() == 1
    assert delivered(broker, 4) == [first.pk, *(match.pk for match in later)]


def test_a_match_an_operator_requeues_runs_before_the_matches_queued_after_it(broker, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        failed = new_match()
        later = [new_match() for _ in range(2)]
    assert delivered(broker, 3) == [failed.pk, *(match.pk for match in later)]
    Match.objects.filter(pk=failed.pk).update(status=Match.Status.SET_ASIDE, error="the sandbox image was missing")
    with django_capture_on_commit_callbacks(execute=True):
        newest = new_match()

    with django_capture_on_commit_callbacks(execute=True):
        assert services.requeue(failed)  # the admin's Re-queue action

    assert delivered(broker, 2) == [failed.pk, newest.pk]
