"""gunicorn's settings for the web service, read from the working directory (the image's /app, the
repository's root): `gunicorn --config gunicorn.conf.py` needs nothing more.

Four processes of uvicorn's gunicorn worker (arena/asgi.py: ASGI, an event loop with uvloop and httptools
each). A live page's stream (arena/core/live.py) is a coroutine waiting on one Redis pub/sub connection per
process, not a thread: once its view has run it gives back the thread Django's ASGI handler lends each
request for its sync code, and holds no database connection between its reads. The pages are the same
Django views, each request in a thread of its own. The processes can be set for a larger machine
(ARENA_WEB_WORKERS), and the address (ARENA_WEB_BIND).

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
# (DATABASE_CONN_MAX_AGE > 0) they piled up until PostgreSQL refused new clients (bench/hall.py, 1,000
# watchers). Closed at each request's end, a page pays a local connection (about a millisecond), and a live
# stream holds none between its reads (arena/core/live.py). (A pool, psycopg_pool, was tried and left: a
# request its client abandons while it waits for its thread never gives its connection back, and the pool
# ran dry for good; an unpooled connection left that way is closed when it is collected.)
os.environ.setdefault("DATABASE_CONN_MAX_AGE", "0")
# A stream costs nothing while it waits here (a coroutine), but each reconnection is a request (the session,
# the viewer's rights, a Redis read): 10 minutes rather than the threaded servers' minute, so that a hall of
# 1,000 reconnects about twice a second rather than 17 times; the keepalive comment every 15 s keeps a proxy
# from closing it (nginx's proxy_read_timeout is 60 s by default).
os.environ.setdefault("ARENA_LIVE_STREAM_SECONDS", "600")
