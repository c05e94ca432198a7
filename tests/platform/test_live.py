"""Live updates (arena.core.live): a real HTTP client reads the server-sent events of a running server.

Each stream test runs twice: woken by Redis pub/sub (the stream would wait an hour for anything else, so
an update that arrives proves the wake-up), and with the polling fallback of the demo (no Redis)."""

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

from arena.core import live
from platform_helpers import end_streams_left_open, wait_for
from required import require
from sse_client import READ_TIMEOUT, Stream
from quick_tier import examples

pytestmark = pytest.mark.urls("live_urls")


def redis_available(settings) -> bool:
    if not settings.ARENA_LIVE_REDIS_URL:
        return False
    try:
        return bool(live.redis_client().ping())
    except Exception:
        return False


@pytest.fixture(params=["redis", "poll"])
def wakeup(request, settings):
    if request.param == "redis":
        require(redis_available(settings), "Redis (the live pages' wake-up)")
        # Nothing but a publish can wake a stream within the client's read timeout (its keepalive comes later).
        settings.ARENA_LIVE_KEEPALIVE_SECONDS = READ_TIMEOUT + 10
    settings.ARENA_LIVE_WAKEUP = request.param
    settings.ARENA_LIVE_STREAM_SECONDS = 3600
    return request.param


@pytest.fixture
def person(transactional_db):
    return get_user_model().objects.create_user("watched", first_name="start", last_name="1")


def change(user, name: str, version: int, final: bool = False) -> None:
    """What a service does: change the state in a transaction, publish its topic."""
    with transaction.atomic():
        get_user_model().objects.filter(pk=user.pk).update(first_name=name, last_name=str(version),
                                                           is_active=not final)
        live.publish(f"user:{user.pk}")


def stream_url(live_server, user) -> str:
    return f"{live_server.url}/live-test/{user.pk}/"


def test_a_stream_sends_the_snapshot_then_each_change_and_ends_at_the_final_one(wakeup, person, live_server):
    with Stream(stream_url(live_server, person)) as stream:
        assert stream.status == 200
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        first = stream.next_event()
        assert first["id"] == "1" and first["data"] == {"version": 1, "final": False, "payload": {"name": "start"}}
        change(person, "moved", 2)
        assert stream.next_event()["data"]["payload"] == {"name": "moved"}
        change(person, "over", 3, final=True)
        last = stream.next_event()
        assert last["id"] == "3" and last["data"]["final"] is True
        assert stream.next_event() is None  # the server ended the stream


def test_a_reconnect_with_last_event_id_gets_nothing_it_already_has(wakeup, person, live_server):
    with Stream(stream_url(live_server, person), last_event_id="1") as stream:
        change(person, "moved", 2)
        event = stream.next_event()
        assert event["id"] == "2" and event["data"]["payload"] == {"name": "moved"}


def test_a_client_that_has_the_final_snapshot_is_told_to_stop(wakeup, person, live_server):
    change(person, "over", 5, final=True)
    with Stream(stream_url(live_server, person)) as stream:
        assert stream.next_event()["data"]["final"] is True
    with Stream(stream_url(live_server, person), last_event_id="5") as stream:
        assert stream.status == 204  # EventSource stops reconnecting


def test_a_stream_of_something_gone_is_204_and_a_deleted_one_ends(wakeup, person, live_server):
    with Stream(stream_url(live_server, person)) as stream:
        stream.next_event()
        with transaction.atomic():
            get_user_model().objects.filter(pk=person.pk).delete()
            live.publish(f"user:{person.pk}")
        assert stream.next_event() is None
    with Stream(stream_url(live_server, person)) as stream:
        assert stream.status == 204


def test_several_streams_at_once_each_get_the_change(wakeup, person, live_server):
    streams = [Stream(stream_url(live_server, person)) for _ in range(4)]
    try:
        assert all(stream.next_event()["id"] == "1" for stream in streams)
        change(person, "moved", 2)
        assert [stream.next_event()["id"] for stream in streams] == ["2"] * 4
    finally:
        for stream in streams:
            stream.close()


def test_a_stream_ends_after_its_lifetime_and_the_client_resumes(person, live_server, settings):
    settings.ARENA_LIVE_WAKEUP = "poll"
    settings.ARENA_LIVE_STREAM_SECONDS = 0
    with Stream(stream_url(live_server, person)) as stream:
        assert stream.next_event()["id"] == "1"
        assert stream.next_event() is None
    settings.ARENA_LIVE_STREAM_SECONDS = 3600
    with Stream(stream_url(live_server, person), last_event_id="1") as stream:
        change(person, "moved", 2)
        assert stream.next_event()["id"] == "2"


def test_over_the_process_limit_a_stream_sends_its_snapshot_and_asks_to_come_back_later(person, live_server,
                                                                                          settings, monkeypatch):
    settings.ARENA_LIVE_WAKEUP = "poll"
    settings.ARENA_LIVE_STREAM_SECONDS = 3600
    # Counted apart from the streams of earlier tests, which the live server (one per session) may still hold.
    monkeypatch.setattr(live, "streams", live._StreamCount())
    settings.ARENA_LIVE_MAX_STREAMS = 1
    # A server learns that a client went away when it next writes: a keepalive, here soon.
    settings.ARENA_LIVE_KEEPALIVE_SECONDS = 0.2
    with Stream(stream_url(live_server, person)) as holding:
        assert holding.next_event()["id"] == "1"
        with Stream(stream_url(live_server, person)) as turned_away:
            event = turned_away.next_event()
            assert event["id"] == "1" and event["data"]["payload"] == {"name": "start"}
            assert turned_away.next_event() is None
    # The first stream leaves the count once the server sees its client gone: the next one streams again.
    wait_for(lambda: live.streams.open == 0, 10, "the server to close the stream of a client that went away")
    with Stream(stream_url(live_server, person)) as stream:
        stream.next_event()
        change(person, "moved", 2)
        assert stream.next_event()["id"] == "2"


def test_publish_wakes_only_after_the_commit(transactional_db, settings):
    require(redis_available(settings), "Redis (the live pages' wake-up)")
    settings.ARENA_LIVE_WAKEUP = "redis"
    subscriber = live.redis_client().pubsub(ignore_subscribe_messages=True)
    subscriber.subscribe(live.channel("match:77"))
    try:
        with transaction.atomic():
            live.publish("match:77")
            assert subscriber.get_message(timeout=0.5) is None
        # The wake-up names the topic's new generation, the one its streams' shared snapshot is read for.
        assert int(subscriber.get_message(timeout=10)["data"]) == live.current_generation("match:77") > 0
    finally:
        subscriber.close()


@pytest.mark.parametrize("topic", ["", "match", "match:", ":7", "Match:7", "match:7\n", "match:7 8", "x" * 40 + ":1"])
def test_a_topic_is_a_kind_and_an_id(topic):
    with pytest.raises(ValueError):
        live.publish(topic)


@pytest.mark.django_db
@hypothesis_settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(header=st.text(max_size=40).filter(lambda text: "\n" not in text and "\r" not in text),
       query=st.text(max_size=40))
def test_hostile_last_event_ids_and_query_strings_get_a_stream_never_an_error(client, settings, header, query):
    settings.ARENA_LIVE_WAKEUP = "poll"
    settings.ARENA_LIVE_STREAM_SECONDS = 0
    user, _ = get_user_model().objects.get_or_create(username="watched", defaults={"last_name": "4"})
    response = client.get(f"/live-test/{user.pk}/", {"last_event_id": query, "x": query},
                          headers={"Last-Event-ID": header})
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode()
    known = next((value for value in (header.strip(), query.strip()) if value), "")
    # A client whose id is the current version gets no event again; any other id gets the snapshot.
    assert ("id: 4\n" in body) is (known != "4")


def test_a_server_going_down_ends_its_streams_and_takes_no_new_one(wakeup, person, live_server, monkeypatch):
    """`stop_streams` (run before a test server's database is dropped) ends an open stream within a second or
    so, whatever its wake-up, and a stream asked for afterwards gets its snapshot and is told to come back."""
    monkeypatch.setattr(live, "streams", live._StreamCount())  # this process's own count stays open
    with Stream(stream_url(live_server, person)) as stream:
        assert stream.next_event()["data"]["version"] == 1
        assert live.stop_streams(timeout=10) is True
        assert stream.next_event() is None  # the server ended it; EventSource would reconnect elsewhere
    with Stream(stream_url(live_server, person)) as late:
        assert late.next_event()["data"]["version"] == 1
        assert late.next_event() is None


def test_the_streams_a_test_leaves_open_end_before_the_next_one_and_new_ones_start(person, live_server):
    """The session's server outlives each test: a stream whose client has gone runs on until its next write,
    so tests/platform/conftest.py ends what a test left before its teardown, and the server takes streams again."""
    left = Stream(stream_url(live_server, person))
    assert left.next_event()["data"]["version"] == 1
    left.close()  # the server's thread has not noticed: it writes nothing until a change or a keepalive
    assert live.streams.open == 1
    assert end_streams_left_open()
    assert live.streams.open == 0
    with Stream(stream_url(live_server, person)) as stream:  # new streams are served as before
        assert stream.next_event()["data"]["version"] == 1
