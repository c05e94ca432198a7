"""gunicorn's settings for the web service, read from the working directory (the image's /app, the
repository's root): `gunicorn arena.wsgi:application` needs nothing more.

Three processes, as the image always ran, each with 4 threads: a request spends much of its time waiting
on PostgreSQL and Redis, and a waiting thread no longer holds a whole process. On the shared 2 cores
bench/load_run.py doubled the trivial view's throughput with 3x4 against 3 single-threaded processes; it
could not tell 3x4 from 2x6 or 5x1 for the pages (the other load on the machine swung the figures more).
Both can be set for a larger machine (ARENA_WEB_WORKERS, ARENA_WEB_THREADS), and the address
(ARENA_WEB_BIND).
"""

import os

wsgi_app = "arena.wsgi:application"
pythonpath = "platform,."
bind = os.environ.get("ARENA_WEB_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("ARENA_WEB_WORKERS", "3"))
threads = int(os.environ.get("ARENA_WEB_THREADS", "4"))
worker_class = "gthread"
