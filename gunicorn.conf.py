"""gunicorn's settings for the web service, read from the working directory (the image's /app, the
repository's root): `gunicorn arena.wsgi:application` needs nothing more.

Four processes, each with 2 threads: a request spends part of its time waiting on PostgreSQL and Redis,
and a waiting thread no longer holds a whole process; but threads of one process share its interpreter
lock, so a page that is mostly Python waits for the other threads' pages. bench/load_run.py on the shared
2 cores, 50 people pausing about 1 s between requests, two runs each (p95, match page / API match list):
3x4 78-80 / 110-133 ms, 6x1 55-80 / 85-98 ms, 4x2 42-67 / 75-79 ms; closed loop 4x2 also served more
of each URL than 3x4 (match page 105/s against 95/s, the trivial view 475/s against 364/s).
Both can be set for a larger machine (ARENA_WEB_WORKERS, ARENA_WEB_THREADS), and the address
(ARENA_WEB_BIND).

A live page (arena/core/live.py) holds a thread for as long as its stream is open, waiting on a socket (no
CPU, no interpreter lock): each process gets ARENA_LIVE_MAX_STREAMS threads more for them (16 unless set),
and the platform never lets streams take more than that many of a process's threads, so the page threads
stay free (beyond it a live page polls every few seconds instead; docs/operator-guide.md, "Live pages").
"""

import os

wsgi_app = "arena.wsgi:application"
bind = os.environ.get("ARENA_WEB_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("ARENA_WEB_WORKERS", "4"))
# Exported for the workers' Django settings: the cap on streams matches the threads added for them.
live_streams = int(os.environ.setdefault("ARENA_LIVE_MAX_STREAMS", "16"))
threads = int(os.environ.get("ARENA_WEB_THREADS", "2")) + live_streams
worker_class = "gthread"


def post_worker_init(worker):
    """A worker told to stop (SIGTERM: a deploy, a restart, the arbiter replacing it) ends its live streams at
    once rather than waiting out `graceful_timeout` (30 s) for them: a stream is a client that reconnects by
    itself, to the next server, with the last version it got. The pages' requests still finish as before."""
    import signal

    from arena.core import live

    stop_gracefully = worker.handle_exit

    def stop_ending_streams(sig, frame):
        stop_gracefully(sig, frame)
        live.stop_streams(timeout=0)  # the flag only: the streams end themselves within a second

    signal.signal(signal.SIGTERM, stop_ending_streams)
    signal.siginterrupt(signal.SIGTERM, False)  # as gunicorn has it: active requests are not disturbed
