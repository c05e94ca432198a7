"""Live pages for a lecture hall (arena.core.live): many streams of one topic share one snapshot read per
change, each person and address holds a bounded number of streams, and the production server (uvicorn,
ASGI) serves streams as coroutines woken by one pub/sub subscription per process."""

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client

import live_urls
from arena.core import live
from platform_helpers import database_url, free_port, stop_process, wait_for
from required import require
from sse_client import READ_TIMEOUT, Stream
from test_live import change, redis_available

pytestmark = pytest.mark.urls("live_urls")
ROOT = Path(__file__).resolve().parents[2]
WATCHERS = 6


@pytest.fixture
def person(transactional_db):
    return get_user_model().objects.create_user("watched", first_name="start", last_name="1")


@pytest.fixture
def with_redis(settings):
    require(redis_available(settings), "Redis (the live pages' wake-up)")
    settings.ARENA_LIVE_WAKEUP = "redis"
    settings.ARENA_LIVE_KEEPALIVE_SECONDS = READ_TIMEOUT + 10  # no read but those a publish causes
    settings.ARENA_LIVE_STREAM_SECONDS = 3600


def forget_places() -> None:
    """The places held in Redis by an earlier session's streams on a database of the same name (its users had
    the ids this session's have): a test starts with none."""
    client = live.redis_client()
    for key in client.scan_iter(f"{live.redis_namespace()}:live:holders:*"):
        client.delete(key)


@pytest.fixture(params=["redis", "poll"])
def wakeup(request, settings, transactional_db):
    if request.param == "redis":
        require(redis_available(settings), "Redis (the live pages' wake-up)")
        forget_places()
    settings.ARENA_LIVE_WAKEUP = request.param
    settings.ARENA_LIVE_STREAM_SECONDS = 3600
    # A server learns that a client went away when it next writes: a keepalive, here soon.
    settings.ARENA_LIVE_KEEPALIVE_SECONDS = 0.2
    return request.param


def cookie_of(user) -> str:
    client = Client()
    client.force_login(user)
    return f"{django_settings.SESSION_COOKIE_NAME}={client.cookies[django_settings.SESSION_COOKIE_NAME].value}"


def test_many_streams_of_one_audience_read_the_snapshot_once_per_change(with_redis, person, live_server):
    streams = [Stream(f"{live_server.url}/live-test/{person.pk}/hall/") for _ in range(WATCHERS)]
    try:
        assert [stream.next_event()["id"] for stream in streams] == ["1"] * WATCHERS
        before = live_urls.hall_reads.value
        for version in (2, 3, 4):
            change(person, f"move {version}", version)
            assert [stream.next_event()["id"] for stream in streams] == [str(version)] * WATCHERS
        # Three changes, six streams: three reads, not eighteen.
        assert live_urls.hall_reads.value - before == 3
    finally:
        for stream in streams:
            stream.close()


def test_streams_of_people_who_see_it_alone_read_it_each(with_redis, person, live_server):
    """The default audience is the person: two people's streams of one topic read it once each per change."""
    watchers = [get_user_model().objects.create_user(f"watcher{number}") for number in range(2)]
    streams = [Stream(f"{live_server.url}/live-test/{person.pk}/", cookies=cookie_of(watcher)) for watcher in watchers]
    try:
        assert all(stream.next_event()["id"] == "1" for stream in streams)
        entries = {key for key in live.shared.entries if key[0] == f"user:{person.pk}"}
        assert entries == {(f"user:{person.pk}", f"user:{watcher.pk}") for watcher in watchers}
    finally:
        for stream in streams:
            stream.close()


def refusal_then_snapshot(stream: Stream) -> dict:
    refusal = stream.next_event()
    assert refusal["event"] == "refused", refusal
    assert refusal["data"]["retry_seconds"] == django_settings.ARENA_LIVE_REFUSED_RETRY_SECONDS
    snapshot = stream.next_event()
    assert snapshot["id"] == "1" and snapshot["data"]["payload"] == {"name": "start"}
    assert stream.next_event() is None  # not a stream: the client asks again later
    return refusal["data"]


def test_a_person_over_their_cap_of_streams_is_told_why_and_gets_the_snapshot(wakeup, person, live_server, settings):
    settings.ARENA_LIVE_STREAMS_PER_USER = 2
    viewer = get_user_model().objects.create_user("many-tabs")
    other = get_user_model().objects.create_user("neighbour")
    url = f"{live_server.url}/live-test/{person.pk}/"
    held = [Stream(url, cookies=cookie_of(viewer)) for _ in range(2)]
    try:
        assert all(stream.next_event()["id"] == "1" for stream in held)
        with Stream(url, cookies=cookie_of(viewer)) as third:
            assert third.status == 200
            assert "2 live pages open" in refusal_then_snapshot(third)["reason"]
        # Someone else from the same address is not refused: the cap is the person's.
        with Stream(url, cookies=cookie_of(other)) as neighbour:
            assert neighbour.next_event()["id"] == "1"
            change(person, "moved", 2)
            assert neighbour.next_event()["id"] == "2"
    finally:
        held.pop().close()
    # A stream closed gives its place back (once the server sees its client gone).
    wait_for(lambda: live.holders.take(f"user-{viewer.pk}", 2) is not None, 10, "a place given back")
    for stream in held:
        stream.close()


def test_visitors_not_signed_in_are_capped_per_address(wakeup, person, live_server, settings):
    settings.ARENA_LIVE_STREAMS_PER_ADDRESS = 1
    url = f"{live_server.url}/live-test/{person.pk}/"
    with Stream(url) as first:
        assert first.next_event()["id"] == "1"
        with Stream(url) as second:
            assert "Sign in" in refusal_then_snapshot(second)["reason"]
        signed_in = get_user_model().objects.create_user("signed-in")
        with Stream(url, cookies=cookie_of(signed_in)) as member:
            assert member.next_event()["id"] == "1"


def test_memory_is_given_back_when_the_streams_end(wakeup, person, live_server):
    """What streams share and count goes with the last of them: nothing is kept per stream once it ended."""
    topic = f"user:{person.pk}"
    streams = [Stream(f"{live_server.url}/live-test/{person.pk}/hall/") for _ in range(3)]
    for stream in streams:
        stream.next_event()
    assert (topic, "shared:everyone") in live.shared.entries
    for stream in streams:
        stream.close()
    wait_for(lambda: (topic, "shared:everyone") not in live.shared.entries, 10, "the shared snapshot to go")

    def places_held() -> int:
        if wakeup == "redis":
            return live.redis_client().zcard(f"{live.redis_namespace()}:live:holders:addr-127.0.0.1")
        return live.holders.local.get("addr-127.0.0.1", 0)

    wait_for(lambda: places_held() == 0, 10, "the address's places given back")


@pytest.fixture
def uvicorn_server(transactional_db, tmp_path):
    """The site under a real uvicorn process (ASGI, as gunicorn.conf.py's workers serve it), on the test
    database, with the live test topics."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url(), "SECRET_KEY": django_settings.SECRET_KEY,
           "ALLOWED_HOSTS": "127.0.0.1", "ARENA_LIVE_REDIS_URL": django_settings.ARENA_LIVE_REDIS_URL,
           "ARENA_LIVE_WAKEUP": "redis", "ARENA_LIVE_KEEPALIVE_SECONDS": str(READ_TIMEOUT + 10),
           "PYTHONPATH": os.pathsep.join([str(ROOT / "tests" / "platform"), os.environ.get("PYTHONPATH", "")])}
    log = tmp_path / "uvicorn.log"
    with open(log, "w") as output:
        server = subprocess.Popen([sys.executable, "-m", "uvicorn", "live_asgi:application", "--port", str(port),
                                   "--host", "127.0.0.1", "--no-access-log"], env=env, stdout=output,
                                  stderr=subprocess.STDOUT)

    def answers() -> bool:
        try:
            return urllib.request.urlopen(f"http://127.0.0.1:{port}/live-test/reads/", timeout=2).status == 200
        except OSError:
            assert server.poll() is None, log.read_text()[-3000:]
            return False

    try:
        wait_for(answers, 30, "uvicorn")
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(server, timeout=10)


def test_the_asgi_server_serves_streams_from_one_subscription_and_one_read_per_change(with_redis, person,
                                                                                        uvicorn_server):
    def reads() -> int:
        return json.load(urllib.request.urlopen(f"{uvicorn_server}/live-test/reads/", timeout=5))["reads"]

    streams = [Stream(f"{uvicorn_server}/live-test/{person.pk}/hall/") for _ in range(WATCHERS)]
    try:
        assert [stream.next_event()["id"] for stream in streams] == ["1"] * WATCHERS
        # No stream subscribed a connection of its own: the process's one pattern subscription wakes them.
        channel = live.channel(f"user:{person.pk}")
        assert live.redis_client().pubsub_numsub(channel) == [(channel.encode(), 0)]
        before = reads()
        for version in (2, 3):
            change(person, f"move {version}", version)
            assert [stream.next_event()["id"] for stream in streams] == [str(version)] * WATCHERS
        assert reads() - before == 2
        change(person, "over", 4, final=True)
        assert all(stream.next_event()["data"]["final"] for stream in streams)
        assert all(stream.next_event() is None for stream in streams)
    finally:
        for stream in streams:
            stream.close()
