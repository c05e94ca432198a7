"""Live updates: the one way a page learns that what it shows has changed (a table, a match, a room).

Server-sent events (SSE), not Django Channels, because:

- they run under the servers the platform already has: the demo's threaded `manage.py runserver`,
  pytest-django's `live_server` and gunicorn's threaded workers (gunicorn.conf.py) are all WSGI; Channels
  would need an ASGI server (daphne or uvicorn) beside or instead of them, and a channel layer;
- the browser's `EventSource` reconnects by itself and sends the last event id it got (`Last-Event-ID`),
  so a dropped connection, a restarted server or the end of a stream's bounded life costs nothing;
- the database stays the only truth. A stream sends what its `snapshot` function reads (from the database,
  or from what the database points at); `publish` only *wakes* the streams of a topic early, through Redis
  pub/sub when the platform has Redis. A lost wake-up delays an update by at most a keepalive period; it
  never loses one. Without Redis (the embedded demo: SQLite and a filesystem broker) every stream polls
  its snapshot instead (ARENA_LIVE_POLL_SECONDS).

The API, for the apps:

    publish("table:12")    # after the change is committed (transaction.on_commit), wake that topic's streams

    def stream(request, pk):                  # the view checks who may see it first (403/404 are its own)
        table = ...
        return event_stream(request, f"table:{pk}", lambda: Snapshot(version, payload, final))

A page part with no version of its own (a tournament's standings) streams `html_snapshot(rendered)`; its page
renders it with the same function (`rendered_part`) and passes that snapshot's version to its stream.

A stream sends the snapshot at once, then each time its version differs from the last one sent (the event
id is the version; a reconnect whose Last-Event-ID is the current version gets nothing it already has),
keepalive comments meanwhile, and ends after a final snapshot or after ARENA_LIVE_STREAM_SECONDS (the
client reconnects), so that a thread of a WSGI server is never held forever. Once a final snapshot was
sent, a reconnect gets 204, which tells EventSource to stop. A snapshot function returning None (the
thing is gone) ends the stream. Pages use core/static/core/live.js.

Each stream holds one thread of the web server for its life: see docs/operator-guide.md ("Live pages").
Over ARENA_LIVE_MAX_STREAMS streams in one process, a new stream sends its snapshot once and asks the
client to come back later (a slower, polling page instead of a server with no thread left for pages).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.db import connections, transaction
from django.http import HttpResponse, StreamingHttpResponse
from django.template.loader import render_to_string

logger = logging.getLogger(__name__)

# A topic is a kind and an id: "table:12", "match:7", "room:3".
TOPIC = re.compile(r"[a-z][a-z0-9_-]{0,31}:[A-Za-z0-9_-]{1,64}")
# What the client waits before reconnecting after a stream's normal end, and when the process is full.
RECONNECT_MS = 500
BUSY_RECONNECT_MS = 3000
# The Last-Event-ID taken from a client: a version is a non-negative int of at most this many digits;
# anything else is ignored (the client gets the snapshot, as on a first connection).
MAX_VERSION_DIGITS = 18


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """What a topic's page shows now: `version` grows with each change (it is the event id), `payload` is
    JSON-able, `final` means it will not change again (the stream ends after sending it)."""

    version: int
    payload: dict[str, Any]
    final: bool = False


SnapshotFunction = Callable[[], Snapshot | None]

# A form's CSRF field: Django masks the token anew for every rendering, so it is no change of what a part shows.
CSRF_INPUT = re.compile(r'<input type="hidden" name="csrfmiddlewaretoken" value="[^"]*">')


def html_snapshot(html: str, final: bool = False) -> Snapshot:
    """A part of a page as it is now, rendered (payload `{"html": ...}`, which live.js puts in an element
    marked `data-live-html`), for a part with no version of its own: the version is a digest of what it
    shows, so it changes exactly when the HTML does (not with the CSRF tokens of its forms)."""
    digest = hashlib.blake2b(CSRF_INPUT.sub("", html).encode(), digest_size=7).digest()
    return Snapshot(int.from_bytes(digest, "big"), {"html": html}, final)


def rendered_part(request, template: str, context: dict, final: bool = False) -> Snapshot:
    """A part of a page rendered from `template`, for its page as for its stream (html_snapshot). The page
    shows `part.payload.html` and names its stream with `?last_event_id={{ part.version }}`, so that the
    stream sends the part only once it differs from what the page shows. A page that rendered the part
    itself (an `{% include %}`) could only name its stream without a version, and the stream's first event
    then sent the part again, which live.js swapped in right after the page loaded: a click on one of its
    buttons in that moment was lost."""
    return html_snapshot(render_to_string(template, context, request=request), final)


def redis_namespace() -> str:
    """The start of every Redis name of live pages: a match or table id means something in one database
    only, and several sites (or the test suite's parallel workers, each with a database of its own) may
    share one Redis, as they may share it with Celery."""
    return f"arena:{connections['default'].settings_dict['NAME']}"


def channel(topic: str) -> str:
    """The Redis pub/sub channel of `topic`."""
    return f"{redis_namespace()}:live:{topic}"


def check_topic(topic: str) -> str:
    if not isinstance(topic, str) or not TOPIC.fullmatch(topic):
        raise ValueError(f"a live topic is 'kind:id', e.g. 'match:7', not {topic!r}")
    return topic


def publish(topic: str) -> None:
    """The state behind `topic` changed: wake its streams once the current transaction commits (at once
    outside a transaction). Never raises for a Redis that is down: the streams still poll, more slowly."""
    check_topic(topic)
    transaction.on_commit(lambda: _wake(topic))


def _wake(topic: str) -> None:
    if wakeup_mode() != "redis":
        return  # the streams poll
    try:
        redis_client().publish(channel(topic), "1")
    except Exception as error:  # redis.RedisError, OSError: a wake-up is an optimisation, never a failure
        logger.warning("live: could not publish %s (%s); its streams see the change at their next poll", topic, error)


def wakeup_mode() -> str:
    """'redis' (pub/sub wakes the streams) or 'poll' (each stream reads its snapshot every poll period)."""
    return settings.ARENA_LIVE_WAKEUP


_clients: dict[str, Any] = {}
_clients_lock = threading.Lock()


def redis_client():
    """The live pages' Redis (ARENA_LIVE_REDIS_URL): one redis-py client (a connection pool) per URL and
    process, shared by its threads. For what live pages keep beside the database (a match's position)."""
    import redis

    url = settings.ARENA_LIVE_REDIS_URL
    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            client = _clients[url] = redis.Redis.from_url(url, socket_connect_timeout=2, health_check_interval=30)
        return client


class _Poller:
    """The fallback wake-up: nobody wakes us, wait one poll period."""

    def wait(self, seconds: float) -> bool:
        """Waits at most `seconds`; True: read the snapshot again."""
        time.sleep(max(0.0, min(seconds, settings.ARENA_LIVE_POLL_SECONDS)))
        return True

    def close(self) -> None:
        pass


class _RedisWaker:
    """Waits on the topics' pub/sub channels; subscribed before the first snapshot is read, so a change
    committed between that read and the wait still wakes it. If Redis fails, it polls from then on."""

    def __init__(self, *topics: str):
        self.pubsub = redis_client().pubsub(ignore_subscribe_messages=True)
        self.pubsub.subscribe(*map(channel, topics))
        self.fallback: _Poller | None = None
        self.quiet_since = time.monotonic()

    def wait(self, seconds: float) -> bool:
        """Waits at most `seconds` for a wake-up; True: read the snapshot again (woken, or quiet for a
        keepalive period, so that a lost wake-up costs at most that long)."""
        if self.fallback:
            return self.fallback.wait(seconds)
        try:
            if self.pubsub.get_message(timeout=max(0.0, seconds)) is not None:
                while self.pubsub.get_message(timeout=0) is not None:  # several changes: one read covers them
                    pass
                self.quiet_since = time.monotonic()
                return True
            if time.monotonic() - self.quiet_since < settings.ARENA_LIVE_KEEPALIVE_SECONDS:
                return False
            # Nothing for a keepalive period: an idle stream holds no database connection (a PostgreSQL
            # has a hundred to give); one whose topic is busy keeps its own, saving a reconnection a read.
            for database in connections.all(initialized_only=True):
                database.close()
            self.quiet_since = time.monotonic()
            return True
        except Exception as error:
            logger.warning("live: lost Redis (%s); polling instead", error)
            self.fallback = _Poller()
            return True

    def close(self) -> None:
        try:
            self.pubsub.close()
        except Exception:  # closing a broken connection: nothing left to free
            pass


def _open_waker(*topics: str):
    if wakeup_mode() == "redis":
        try:
            return _RedisWaker(*topics)
        except Exception as error:
            logger.warning("live: cannot subscribe to %s (%s); polling instead", ", ".join(topics), error)
    return _Poller()


def wait_until(topics: list[str], done: Callable[[], bool], seconds: float) -> bool:
    """Wait at most `seconds` until `done()` (read at once, then whenever one of `topics` is published, or at
    each poll without Redis): whether it is. For a worker that waits on another's change (a match's end)."""
    deadline = time.monotonic() + seconds
    waker = _open_waker(*map(check_topic, topics))
    try:
        while not (finished := done()) and (left := deadline - time.monotonic()) > 0:
            waker.wait(left)
    finally:
        waker.close()
    return finished


# The longest a stream waits without looking whether the process is closing its streams (`stop_streams`).
CLOSING_CHECK_SECONDS = 1.0


class _StreamCount:
    """Streams open in this process, against ARENA_LIVE_MAX_STREAMS (0: no limit)."""

    def __init__(self):
        self.lock = threading.Condition()
        self.open = 0
        self.closing = threading.Event()

    def enter(self) -> bool:
        limit = settings.ARENA_LIVE_MAX_STREAMS
        with self.lock:
            if self.closing.is_set() or (limit and self.open >= limit):
                return False
            self.open += 1
            return True

    def leave(self) -> None:
        with self.lock:
            self.open -= 1
            self.lock.notify_all()

    def close_all(self, timeout: float) -> bool:
        """Ends every stream of this process within about CLOSING_CHECK_SECONDS (their clients reconnect,
        elsewhere) and refuses new ones; True once none is left, False if some still run after `timeout`."""
        self.closing.set()
        with self.lock:
            return self.lock.wait_for(lambda: self.open == 0, timeout)


streams = _StreamCount()


def stop_streams(timeout: float = 10.0) -> bool:
    """A server going down ends its streams first, so that none still reads the database it closes (a test
    server before its test database is dropped). True once they have all ended."""
    return streams.close_all(timeout)


def last_event_id(request) -> int | None:
    """The version the client already has: its Last-Event-ID header (a reconnecting EventSource), else
    `?last_event_id=` (a page that rendered a version and opens its stream after it). Anything that is not
    a small non-negative integer is no version at all."""
    value = request.headers.get("Last-Event-ID") or request.GET.get("last_event_id") or ""
    value = value.strip()
    if value.isascii() and value.isdigit() and len(value) <= MAX_VERSION_DIGITS:
        return int(value)
    return None


def format_event(snapshot: Snapshot) -> str:
    data = json.dumps({"version": snapshot.version, "final": snapshot.final, "payload": snapshot.payload},
                      separators=(",", ":"))
    # json.dumps escapes newlines inside strings, so the data is one line.
    return f"id: {snapshot.version}\ndata: {data}\n\n"


def event_stream(request, topic: str, snapshot: SnapshotFunction) -> HttpResponse:
    """The stream of `topic`'s snapshots for `request` (see the module's docstring). The caller has already
    decided that this person may see the topic."""
    check_topic(topic)
    known = last_event_id(request)
    first = snapshot()
    if first is None or (first.final and first.version == known):
        # Gone, or over and the client has the end: 204 stops EventSource's reconnecting.
        return HttpResponse(status=204)
    return _sse_response(_events(topic, snapshot, first, known))


def _sse_response(content: Iterator[str]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(content, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache, no-store"
    response["X-Accel-Buffering"] = "no"  # a proxy (nginx) must pass each event on at once
    return response


def _events(topic: str, snapshot: SnapshotFunction, current: Snapshot, known: int | None) -> Iterator[str]:
    """The stream's text. It counts itself among the process's streams once it starts (a response that is
    never read holds nothing), and leaves however it ends (the client going away closes the generator)."""
    count = streams  # the one it entered, whatever the module's is by the time it leaves
    if not count.enter():
        yield f"retry: {BUSY_RECONNECT_MS}\n\n" + ("" if current.version == known else format_event(current))
        return
    waker = None
    try:
        waker = _open_waker(topic)
        # Read again after subscribing: a change between the first read and the subscription is not lost.
        current = snapshot() or current
        started = time.monotonic()
        ends = started + settings.ARENA_LIVE_STREAM_SECONDS
        keepalive = settings.ARENA_LIVE_KEEPALIVE_SECONDS
        yield f"retry: {RECONNECT_MS}\n\n"
        sent = known
        last_write = started
        while True:
            if current.version != sent:
                yield format_event(current)
                sent, last_write = current.version, time.monotonic()
            if current.final:
                return
            now = time.monotonic()
            if now >= ends:
                return
            if now - last_write >= keepalive:
                yield ": keepalive\n\n"
                last_write = now
            look_again = waker.wait(min(ends - now, keepalive - (now - last_write), CLOSING_CHECK_SECONDS))
            if count.closing.is_set():
                return
            if not look_again:
                continue
            latest = snapshot()
            if latest is None:
                return
            current = latest
    finally:
        if waker:
            waker.close()
        count.leave()
