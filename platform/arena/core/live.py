"""Live updates: the one way a page learns that what it shows has changed (a table, a match, a room).

Server-sent events (SSE), not Django Channels: the browser's `EventSource` reconnects by itself and sends the
last event id it got (`Last-Event-ID`), so a dropped connection, a restarted server or the end of a stream's
bounded life costs nothing, and no channel layer is needed beside the Redis the platform has.

The database stays the only truth. A stream sends what its `snapshot` function reads; `publish` only *wakes*
the streams of a topic, and names the topic's new *generation* (a counter in Redis the writer increments).
A lost wake-up delays an update by at most a keepalive period; it never loses one.

A lecture hall watches one table: a snapshot is computed once per topic generation and *audience* and shared
by every stream of that audience (`SharedSnapshots`): in the process, and through Redis between processes.
An audience is who sees the same thing (a table's watchers; a seat's player); by default each user is an
audience of their own, which is always right, and a view names a wider one where the page is the same for
many (tables, matches, tournaments). The event's text is formatted once too. Nothing is kept per stream
beyond its own state: an audience's snapshot goes when its last stream ends.

Two ways to serve a stream, chosen by the request:
- under ASGI (production: gunicorn's uvicorn workers, gunicorn.conf.py), an async iterator: a stream is a
  coroutine, not a thread, and one Redis pub/sub connection per process (`_Fanout`) wakes all its streams;
- under WSGI (the embedded demo's `runserver`, pytest-django's `live_server`), a generator holding a
  thread, woken by a pub/sub connection of its own, or polling without Redis (ARENA_LIVE_POLL_SECONDS:
  then the shared snapshot is read again at most once per poll period, whatever the number of streams).

Each person and each address has a cap on the streams it holds at once (ARENA_LIVE_STREAMS_PER_USER for a
signed-in person, ARENA_LIVE_STREAMS_PER_ADDRESS for visitors not signed in, counted across the processes
in Redis): beyond it a stream sends the snapshot and a `refused` event saying why, and asks the client to
come back in ARENA_LIVE_REFUSED_RETRY_SECONDS; live.js shows the reason and the page goes on, polling.

The API, for the apps:

    publish("table:12")    # after the change is committed (transaction.on_commit), wake that topic's streams

    def stream(request, pk):                  # the view checks who may see it first (403/404 are its own)
        table = ...
        return event_stream(request, f"table:{pk}", lambda: Snapshot(version, payload, final),
                            audience="watchers")   # optional: who else sees exactly this

A page part with no version of its own (a tournament's standings) streams `html_snapshot(rendered)`; its page
renders it with the same function (`rendered_part`) and passes that snapshot's version to its stream.

A stream sends the snapshot at once, then each time its version differs from the last one sent (the event
id is the version; a reconnect whose Last-Event-ID is the current version gets nothing it already has),
keepalive comments meanwhile, and ends after a final snapshot or after ARENA_LIVE_STREAM_SECONDS (the
client reconnects). Once a final snapshot was sent, a reconnect gets 204, which tells EventSource to stop.
A snapshot function returning None (the thing is gone) ends the stream. Pages use core/static/core/live.js.
Over ARENA_LIVE_MAX_STREAMS streams in one process (0: no limit), a new stream sends its snapshot once and
asks the client to come back later. See docs/operator-guide.md ("Live pages").
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import json
import logging
import re
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Hashable, Iterator
from typing import Any

from django.conf import settings
from django.db import connections, transaction
from django.core.handlers.asgi import ASGIRequest
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

    @functools.cached_property
    def event(self) -> str:
        """The snapshot as an SSE event: formatted once however many streams send it."""
        data = json.dumps({"version": self.version, "final": self.final, "payload": self.payload},
                          separators=(",", ":"))
        # json.dumps escapes newlines inside strings, so the data is one line.
        return f"id: {self.version}\ndata: {data}\n\n"


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


def generation_key(topic: str) -> str:
    """The Redis counter of `topic`'s changes: its generation, which the writer increments and publishes."""
    return f"{redis_namespace()}:live:generation:{topic}"


# A topic's generation counter outlives any stream of it by far; a week unused and it goes (a topic
# published again starts over at 1, which is as good as any other generation the streams have not seen).
GENERATION_TTL_SECONDS = 7 * 24 * 3600


def publish(topic: str) -> None:
    """The state behind `topic` changed: once the current transaction commits (at once outside a
    transaction), start its next generation and wake its streams. Never raises for a Redis that is down:
    the streams see the change at their next poll or keepalive."""
    check_topic(topic)
    transaction.on_commit(lambda: _wake(topic))


def _wake(topic: str) -> None:
    if wakeup_mode() != "redis":
        _local_generations.bump(topic)  # this process's streams read at once; the others poll
        return
    try:
        client = redis_client()
        with client.pipeline() as pipe:
            pipe.incr(generation_key(topic)).expire(generation_key(topic), GENERATION_TTL_SECONDS)
            generation = pipe.execute()[0]
        client.publish(channel(topic), str(generation))
    except Exception as error:  # redis.RedisError, OSError: a wake-up is an optimisation, never a failure
        logger.warning("live: could not publish %s (%s); its streams see the change at their next poll", topic, error)


class _LocalGenerations:
    """Without Redis, the changes this process published itself (a person's move in the demo's one web
    process): a stream's shared snapshot is read again at once after one, not only at the next poll. Bounded:
    forgetting a topic only costs its streams one early read."""

    LIMIT = 10_000

    def __init__(self):
        self.lock = threading.Lock()
        self.counts: dict[str, int] = {}

    def bump(self, topic: str) -> None:
        with self.lock:
            if len(self.counts) >= self.LIMIT:
                self.counts.clear()
            self.counts[topic] = self.counts.get(topic, 0) + 1

    def get(self, topic: str) -> int:
        return self.counts.get(topic, 0)


_local_generations = _LocalGenerations()


def current_generation(topic: str) -> Hashable:
    """What names the state of `topic` now, for the shared snapshots: its published generation with Redis;
    without it (or with Redis down) this process's own publishes and the poll period we are in, so that a
    snapshot is read again at most once per poll period whatever the number of streams."""
    if wakeup_mode() == "redis":
        try:
            return int(redis_client().get(generation_key(topic)) or 0)
        except Exception:  # Redis down: as without it (the streams poll)
            pass
    return (_local_generations.get(topic), int(time.monotonic() / max(settings.ARENA_LIVE_POLL_SECONDS, 0.01)))


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
        self.peak = 0
        self.closing = threading.Event()

    def enter(self) -> bool:
        limit = settings.ARENA_LIVE_MAX_STREAMS
        with self.lock:
            if self.closing.is_set() or (limit and self.open >= limit):
                return False
            self.open += 1
            self.peak = max(self.peak, self.open)
            return True

    def leave(self) -> None:
        with self.lock:
            self.open -= 1
            self.lock.notify_all()
            # A hall left (a quarter of the most held since the last return, or none at all).
            emptied = self.open == 0 or (self.peak >= 64 and self.open <= self.peak // 4)
            if emptied:
                self.peak = self.open
        if emptied:
            _give_memory_back()

    def close_all(self, timeout: float) -> bool:
        """Ends every stream of this process within about CLOSING_CHECK_SECONDS (their clients reconnect,
        elsewhere) and refuses new ones; True once none is left, False if some still run after `timeout`."""
        self.closing.set()
        with self.lock:
            return self.lock.wait_for(lambda: self.open == 0, timeout)


streams = _StreamCount()

# The least time between two returns of memory to the system (each a full garbage collection).
MEMORY_RETURN_SECONDS = 30.0
_memory_returned_at = -MEMORY_RETURN_SECONDS


def _give_memory_back() -> None:
    """The process's streams are mostly gone: what a hall of them left in the heap (their buffers, their requests)
    goes back to the system, not only to Python's allocator, so that the process is its size of before the
    hall (glibc's malloc_trim; elsewhere only the collection). At most every MEMORY_RETURN_SECONDS."""
    global _memory_returned_at
    now = time.monotonic()
    if now - _memory_returned_at < MEMORY_RETURN_SECONDS:
        return
    _memory_returned_at = now
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the collection is all there is
        pass


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


class SharedSnapshots:
    """The snapshots of this process's streams, one per topic and audience, each read once per generation of
    its topic (and again after a keepalive period without one, so that what changes with no publish, a clock
    running out, still shows): every stream of the audience sends that one snapshot and its one formatted
    event. With Redis, a snapshot read for a generation is kept there for a keepalive period too, so that the
    other web processes take it rather than read it again. An audience's snapshot goes with its last stream
    (or ORPHAN_SECONDS after a view read it for a stream that never started): nothing grows with streams."""

    ORPHAN_SECONDS = 30.0

    @dataclasses.dataclass(eq=False)
    class Entry:
        lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
        generation: Hashable = None
        snapshot: Snapshot | None = None
        read_at: float | None = None  # time.monotonic() of the read, None before the first
        holders: int = 0
        touched: float = 0.0

    def __init__(self):
        self.lock = threading.Lock()
        self.entries: dict[tuple[str, str], SharedSnapshots.Entry] = {}
        self.computations = 0  # snapshot functions this process ran (what the tests and bench/hall.py count)

    def _entry(self, key: tuple[str, str], hold: int) -> Entry:
        now = time.monotonic()
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                for stale in [other for other, old in self.entries.items()
                              if old.holders <= 0 and now - old.touched > self.ORPHAN_SECONDS]:
                    del self.entries[stale]
                entry = self.entries[key] = self.Entry()
            entry.holders += hold
            entry.touched = now
            return entry

    def hold(self, topic: str, audience: str) -> None:
        self._entry((topic, audience), 1)

    def release(self, topic: str, audience: str) -> None:
        with self.lock:
            entry = self.entries.get((topic, audience))
            if entry is not None:
                entry.holders -= 1
                if entry.holders <= 0:
                    del self.entries[(topic, audience)]

    def read(self, topic: str, audience: str, snapshot: SnapshotFunction) -> Snapshot | None:
        """`topic`'s snapshot for `audience` now: the one already read for the topic's current generation,
        else `snapshot()` (run by one thread; the others of the audience wait for it and share it)."""
        generation = current_generation(topic)
        entry = self._entry((topic, audience), 0)
        with entry.lock:
            if (entry.read_at is not None and entry.generation == generation
                    and time.monotonic() - entry.read_at < settings.ARENA_LIVE_KEEPALIVE_SECONDS):
                return entry.snapshot
            fresh = self._read_through(topic, audience, generation, snapshot)
            entry.generation, entry.snapshot, entry.read_at = generation, fresh, time.monotonic()
            return fresh

    def _read_through(self, topic: str, audience: str, generation: Hashable, snapshot: SnapshotFunction):
        """The snapshot another process read for this generation (Redis), or `snapshot()`, kept there."""
        key = None
        if isinstance(generation, int):  # a generation published through Redis: the same in every process
            digest = hashlib.blake2b(audience.encode(), digest_size=8).hexdigest()
            key = f"{redis_namespace()}:live:snapshot:{topic}:{digest}:{generation}"
            try:
                kept = redis_client().get(key)
                if kept is not None:
                    return _parse_event(kept.decode())
            except Exception as error:  # an optimisation only: read it here
                logger.debug("live: no shared snapshot for %s (%s)", topic, error)
        self.computations += 1
        fresh = snapshot()
        if key is not None and fresh is not None:
            try:
                redis_client().set(key, fresh.event, ex=max(1, int(settings.ARENA_LIVE_KEEPALIVE_SECONDS)))
            except Exception as error:
                logger.debug("live: could not share the snapshot of %s (%s)", topic, error)
        return fresh


def _parse_event(text: str) -> Snapshot:
    """The snapshot of an event's text (as Snapshot.event formats it), keeping that text."""
    data = json.loads(text.split("\ndata: ", 1)[1])
    snapshot = Snapshot(data["version"], data["payload"], data["final"])
    snapshot.__dict__["event"] = text  # cached_property's own slot: not formatted again
    return snapshot


shared = SharedSnapshots()


class _Holders:
    """Streams each person (or address) holds at once, against their cap: in Redis with the platform's
    Redis, so that the cap holds across the web processes (a sorted set per holder, of streams and the
    time by which each has surely ended: a process killed under its streams frees their places then),
    else in this process."""

    def __init__(self):
        self.lock = threading.Lock()
        self.local: dict[str, int] = {}

    def take(self, holder: str, limit: int) -> str | None:
        """A token for one more stream of `holder`, or None: it holds `limit` already. (0: no limit.)"""
        if limit <= 0:
            return ""
        if wakeup_mode() == "redis":
            key, token, now = f"{redis_namespace()}:live:holders:{holder}", uuid.uuid4().hex, time.time()
            life = settings.ARENA_LIVE_STREAM_SECONDS + settings.ARENA_LIVE_KEEPALIVE_SECONDS + 30
            try:
                client = redis_client()
                with client.pipeline() as pipe:  # added, then counted: two at once may both be refused, never both let in
                    pipe.zremrangebyscore(key, "-inf", now).zadd(key, {token: now + life}).zcard(key)
                    pipe.expire(key, int(life) + 1)
                    held = pipe.execute()[2]
                if held <= limit:
                    return f"redis:{token}"
                client.zrem(key, token)
                return None
            except Exception as error:  # Redis down: counted in this process meanwhile
                logger.warning("live: cannot count %s's streams in Redis (%s)", holder, error)
        with self.lock:
            if self.local.get(holder, 0) >= limit:
                return None
            self.local[holder] = self.local.get(holder, 0) + 1
            return "local"

    def give_back(self, holder: str, token: str) -> None:
        if token.startswith("redis:"):
            try:
                redis_client().zrem(f"{redis_namespace()}:live:holders:{holder}", token.removeprefix("redis:"))
            except Exception:  # its place frees itself when its time is up
                pass
        elif token == "local":
            with self.lock:
                left = self.local.get(holder, 0) - 1
                if left > 0:
                    self.local[holder] = left
                else:
                    self.local.pop(holder, None)


holders = _Holders()


def client_address(request) -> str:
    """The client's address as the rate limits see it (REMOTE_ADDR, or X-Forwarded-For behind
    ARENA_NUM_PROXIES proxies)."""
    from rest_framework.throttling import BaseThrottle

    return BaseThrottle().get_ident(request)


def _holder(request) -> tuple[str, int, str]:
    """Whose streams a request's stream counts among, their cap, and what a refusal tells them. A person
    signed in counts alone (a lecture hall behind one NAT address is many people); a visitor not signed in
    can only be told apart by address."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        limit = settings.ARENA_LIVE_STREAMS_PER_USER
        return f"user-{user.pk}", limit, (f"You have {limit} live pages open already: this one is updated every "
                                          f"{settings.ARENA_LIVE_REFUSED_RETRY_SECONDS:g} s instead. Close another "
                                          "to have it live again.")
    limit = settings.ARENA_LIVE_STREAMS_PER_ADDRESS
    return f"addr-{client_address(request)}", limit, (
        f"{limit} live pages are open from your network already: this one is updated every "
        f"{settings.ARENA_LIVE_REFUSED_RETRY_SECONDS:g} s instead. Sign in to have it live.")


def _audience(request, audience: str | None) -> str:
    if audience is not None:
        return f"shared:{audience}"
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return f"visitor:{uuid.uuid4().hex}"  # what one visitor sees may hold their own CSRF token: theirs alone


def event_stream(request, topic: str, snapshot: SnapshotFunction, audience: str | None = None) -> HttpResponse:
    """The stream of `topic`'s snapshots for `request` (see the module's docstring). The caller has already
    decided that this person may see the topic. `audience` names everyone who sees exactly what `snapshot`
    returns for this request (e.g. "watchers" of a table: no seat, no invitation): their streams share one
    snapshot per change. Without it, what this person sees is theirs alone."""
    check_topic(topic)
    audience = _audience(request, audience)
    known = last_event_id(request)
    first = shared.read(topic, audience, snapshot)
    if first is None or (first.final and first.version == known):
        # Gone, or over and the client has the end: 204 stops EventSource's reconnecting.
        return HttpResponse(status=204)
    holder, limit, reason = _holder(request)
    token = holders.take(holder, limit)
    if token is None:
        retry = settings.ARENA_LIVE_REFUSED_RETRY_SECONDS
        refusal = json.dumps({"reason": reason, "retry_seconds": retry})
        # A whole answer, not a stream: the snapshot, why it is not live, and when to ask again (EventSource
        # does, with its Last-Event-ID): the page goes on, polling.
        return _sse_headers(HttpResponse(
            f"retry: {int(retry * 1000)}\n\nevent: refused\ndata: {refusal}\n\n"
            + ("" if first.version == known else first.event), content_type=SSE_CONTENT_TYPE))
    stream = _Stream(topic, audience, snapshot, first, known, lambda: holders.give_back(holder, token))
    if not isinstance(request, ASGIRequest):
        return _sse_headers(StreamingHttpResponse(stream.events(), content_type=SSE_CONTENT_TYPE))
    # Under ASGI the request's database connection would last as long as the stream: closed now (the stream
    # closes it again when it starts, in case the middleware after this view opened one).
    connections.close_all()
    return _sse_headers(StreamingHttpResponse(stream.async_events(), content_type=SSE_CONTENT_TYPE))


SSE_CONTENT_TYPE = "text/event-stream; charset=utf-8"


def _sse_headers(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-cache, no-store"
    response["X-Accel-Buffering"] = "no"  # a proxy (nginx) must pass each event on at once
    return response


class _Stream:
    """One client's stream: what it sent, and its two ways of waiting (a thread under WSGI, a coroutine under
    ASGI). It counts itself among the process's streams once it starts (a response that is never read holds
    nothing), and leaves however it ends (the client going away closes it)."""

    def __init__(self, topic: str, audience: str, snapshot: SnapshotFunction, current: Snapshot,
                 known: int | None, release: Callable[[], None]):
        self.topic, self.audience, self.snapshot = topic, audience, snapshot
        self.current, self.known, self.release = current, known, release
        self.count = streams  # the one it entered, whatever the module's is by the time it leaves

    def _enter(self) -> bool:
        if not self.count.enter():
            self.release()
            return False
        shared.hold(self.topic, self.audience)
        return True

    def _leave(self) -> None:
        shared.release(self.topic, self.audience)
        self.count.leave()
        self.release()

    def _busy(self) -> str:
        return f"retry: {BUSY_RECONNECT_MS}\n\n" + ("" if self.current.version == self.known else self.current.event)

    def read(self) -> Snapshot | None:
        return shared.read(self.topic, self.audience, self.snapshot)

    def events(self) -> Iterator[str]:
        """Under WSGI: this thread waits on the topic's wake-ups (its own pub/sub connection) or polls."""
        if not self._enter():
            yield self._busy()
            return
        waker = None
        try:
            waker = _open_waker(self.topic)
            # Read again after subscribing: a change between the first read and the subscription is not lost.
            current = self.read() or self.current
            started = time.monotonic()
            ends = started + settings.ARENA_LIVE_STREAM_SECONDS
            keepalive = settings.ARENA_LIVE_KEEPALIVE_SECONDS
            yield f"retry: {RECONNECT_MS}\n\n"
            sent, last_write = self.known, started
            while True:
                if current.version != sent:
                    yield current.event
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
                if self.count.closing.is_set():
                    return
                if not look_again:
                    continue
                latest = self.read()
                if latest is None:
                    return
                current = latest
        finally:
            if waker:
                waker.close()
            self._leave()

    async def async_events(self) -> AsyncIterator[str]:
        """Under ASGI: a coroutine woken by its process's one pub/sub connection (_Fanout); the snapshot is
        read once per change for all the process's streams of its audience (_Watch.read)."""
        if not self._enter():
            yield self._busy()
            return
        from asgiref.sync import sync_to_async

        fanout = _Fanout.of_this_loop()
        watch = fanout.join(self.topic)
        try:
            # The view's database connection (its request's, under ASGI) is not held while the stream lasts,
            # nor the thread Django ran the view in (one per request): the stream's reads use the loop's few.
            await sync_to_async(connections.close_all, thread_sensitive=False)()
            _release_request_thread()
            await fanout.wait_subscribed()
            changed = watch.changed
            current = await watch.read(self) or self.current
            started = time.monotonic()
            ends = started + settings.ARENA_LIVE_STREAM_SECONDS
            keepalive = settings.ARENA_LIVE_KEEPALIVE_SECONDS
            yield f"retry: {RECONNECT_MS}\n\n"
            sent, last_write, last_read = self.known, started, started
            while True:
                if current.version != sent:
                    yield current.event
                    sent, last_write = current.version, time.monotonic()
                if current.final:
                    return
                now = time.monotonic()
                if now >= ends:
                    return
                if now - last_write >= keepalive:
                    yield ": keepalive\n\n"
                    last_write = now
                woken = await _woken(changed, min(ends - now, keepalive - (now - last_write), CLOSING_CHECK_SECONDS))
                if self.count.closing.is_set():
                    return
                if not woken and time.monotonic() - last_read < keepalive:
                    continue
                changed = watch.changed
                latest = await watch.read(self)
                last_read = time.monotonic()
                if latest is None:
                    return
                current = latest
        finally:
            fanout.leave(watch)
            self._leave()


async def _woken(changed: asyncio.Event, seconds: float) -> bool:
    try:
        async with asyncio.timeout(max(0.0, seconds)):
            await changed.wait()
        return True
    except TimeoutError:
        return False


def _release_request_thread() -> None:
    """Django's ASGI handler gives each request a thread of its own for its sync code (asgiref's
    ThreadSensitiveContext), kept until the response ends: for a stream, its whole life. Once the view and
    its middleware are done, nothing of the request needs it: it is let go (it ends once idle), so that 1,000
    streams are not 1,000 waiting threads. A later sync call of the request gets a new one."""
    from asgiref.sync import SyncToAsync

    try:
        context = SyncToAsync.thread_sensitive_context.get()
    except LookupError:
        return
    executor = SyncToAsync.context_to_thread_executor.pop(context, None)
    if executor is not None:
        executor.shutdown(wait=False)


def _read_and_disconnect(stream: _Stream) -> Snapshot | None:
    """`stream`'s shared snapshot, read in the context of the stream's request, whose database connection
    is then closed: under ASGI a connection belongs to its request's context and would otherwise stay open
    for the whole life of the stream (a PostgreSQL has a hundred to give, a lecture hall 1,000 streams)."""
    try:
        return stream.read()
    finally:
        connections.close_all()


class _Watch:
    """A topic's streams in one process under ASGI: `changed` is set (and replaced) at each wake-up, and the
    reads of the shared snapshot after a wake-up are one per audience, however many streams wait for it."""

    def __init__(self, topic: str):
        self.topic = topic
        self.changed = asyncio.Event()
        self.wakeups = 0
        self.streams = 0
        self.reads: dict[str, tuple[int, asyncio.Future]] = {}

    def wake(self) -> None:
        self.wakeups += 1
        self.changed.set()
        self.changed = asyncio.Event()

    async def read(self, stream: _Stream) -> Snapshot | None:
        from asgiref.sync import sync_to_async

        pending = self.reads.get(stream.audience)
        if pending is None or pending[0] != self.wakeups:
            # In one of the event loop's few threads (the stream gave its request's own back).
            future = asyncio.ensure_future(sync_to_async(_read_and_disconnect, thread_sensitive=False)(stream))
            pending = self.reads[stream.audience] = (self.wakeups, future)
            future.add_done_callback(lambda done, audience=stream.audience: self._finished(audience, done))
        return await asyncio.shield(pending[1])  # a stream going away never cancels the others' read

    def _finished(self, audience: str, done: asyncio.Future) -> None:
        if not done.cancelled():
            done.exception()  # retrieved: each waiting stream has it raised
        if self.reads.get(audience, (0, None))[1] is done:
            del self.reads[audience]


class _Fanout:
    """A process's live streams under ASGI: one Redis pub/sub connection (a pattern subscription to every
    topic of the site) wakes the streams of each topic published, instead of a connection per stream.
    Without Redis, or while Redis is down, it wakes every topic's streams each poll period instead."""

    _current: _Fanout | None = None

    @classmethod
    def of_this_loop(cls) -> _Fanout:
        """The process's one (its server's event loop; a new loop, as in a test, gets a new one)."""
        loop = asyncio.get_running_loop()
        if cls._current is None or cls._current.loop is not loop:
            cls._current = cls(loop)
        return cls._current

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.watches: dict[str, _Watch] = {}
        self.subscribed = asyncio.Event()
        self.task: asyncio.Task | None = None

    def join(self, topic: str) -> _Watch:
        watch = self.watches.get(topic)
        if watch is None:
            watch = self.watches[topic] = _Watch(topic)
        watch.streams += 1
        if self.task is None or self.task.done():
            self.task = self.loop.create_task(self._listen())
        return watch

    def leave(self, watch: _Watch) -> None:
        watch.streams -= 1
        if watch.streams <= 0 and self.watches.get(watch.topic) is watch:
            del self.watches[watch.topic]

    async def wait_subscribed(self) -> None:
        """Until the process listens (a change published before would be missed until a keepalive); at most
        a couple of seconds: a Redis that does not answer leaves the streams polling."""
        try:
            async with asyncio.timeout(2):
                await self.subscribed.wait()
        except TimeoutError:
            pass

    def _wake_all(self) -> None:
        for watch in list(self.watches.values()):
            watch.wake()

    async def _listen(self) -> None:
        while self.watches:
            if wakeup_mode() != "redis":
                self.subscribed.set()
                await asyncio.sleep(settings.ARENA_LIVE_POLL_SECONDS)
                self._wake_all()
                continue
            try:
                await self._relay()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                logger.warning("live: lost Redis (%s); polling until it answers again", error)
                self.subscribed.set()  # nothing to wait for: the streams poll
                for _ in range(max(1, int(2 / max(settings.ARENA_LIVE_POLL_SECONDS, 0.01)))):
                    await asyncio.sleep(settings.ARENA_LIVE_POLL_SECONDS)
                    self._wake_all()
        self.subscribed.clear()

    async def _relay(self) -> None:
        import redis.asyncio

        prefix = channel("")
        client = redis.asyncio.Redis.from_url(settings.ARENA_LIVE_REDIS_URL, socket_connect_timeout=2)
        try:
            async with client.pubsub(ignore_subscribe_messages=True) as pubsub:
                await pubsub.psubscribe(prefix.replace("[", "\\[").replace("?", "\\?").replace("*", "\\*") + "*")
                self.subscribed.set()
                self._wake_all()  # whatever was published before we listened is read now
                while self.watches and wakeup_mode() == "redis":
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None:
                        watch = self.watches.get(message["channel"].decode()[len(prefix):])
                        if watch is not None:
                            watch.wake()
        finally:
            await client.aclose()
