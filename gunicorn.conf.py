"""gunicorn's settings for the web service, read from the working directory (the image's /app, the
repository's root): `gunicorn --config gunicorn.conf.py` needs nothing more.

Four processes of uvicorn's gunicorn worker (arena/asgi.py: ASGI, an event loop with uvloop and httptools
each). A live page's stream (arena/core/live.py) is a coroutine waiting on one Redis pub/sub connection per
process, not a thread: a lecture hall of 1,000 watchers holds no thread and no database connection
(bench/hall.py). The pages are Django's sync views, which the ASGI handler runs one at a time per process in
its thread for them (asgiref's thread-sensitive mode): the same concurrency as the former 4 processes of 2
gthread threads under the interpreter lock, for pages that are mostly Python. Both can be set for a larger
machine (ARENA_WEB_WORKERS) and the address (ARENA_WEB_BIND).

uvicorn rather than daphne: it runs as gunicorn's worker (the arbiter keeps restarting dead workers,
graceful reloads, the same configuration file as before), and with httptools and uvloop it is the faster of
the two at many idle long-lived responses; daphne is Channels' server, which the platform does not use.
"""

import os

wsgi_app = "arena.asgi:application"
bind = os.environ.get("ARENA_WEB_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("ARENA_WEB_WORKERS", "4"))
worker_class = "arena.asgi.Worker"
# Exported for the workers' Django settings. Under ASGI each request has a database connection of its own
# (Django's connections follow the request's context, not the thread): kept open after the request
# (DATABASE_CONN_MAX_AGE > 0) or left by a request its client abandoned, they piled up until PostgreSQL
# refused new clients (bench/hall.py, 1,000 watchers). A pool per process (psycopg_pool, at most
# DATABASE_POOL_SIZE connections, 10 unless set: 4 processes hold at most 40 of PostgreSQL's 100) lends each
# request one and takes it back; a live stream holds none between its reads (arena/core/live.py).
os.environ.setdefault("DATABASE_POOL_SIZE", "10")
