"""ASGI entry point: the production web server is gunicorn with uvicorn workers (gunicorn.conf.py), which
serves every page and keeps each live stream (arena/core/live.py) as a coroutine instead of a thread.

`Worker` is uvicorn's gunicorn worker, except that a worker told to stop (SIGTERM: a deploy, a restart, the
arbiter replacing it) ends its live streams within a second rather than waiting out gunicorn's
`graceful_timeout` for them: a stream is a client that reconnects by itself, to the next server, with the
last version it got. The pages' requests still finish as before.
"""

import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

application = get_asgi_application()


def _worker_class():
    # Imported only by gunicorn (worker_class = "arena.asgi.Worker"): the site itself needs no uvicorn.
    import uvicorn
    from gunicorn.arbiter import Arbiter
    from uvicorn_worker import UvicornWorker

    class StreamEndingServer(uvicorn.Server):
        def handle_exit(self, sig, frame):
            from arena.core import live

            live.stop_streams(timeout=0)  # the flag only: each stream ends itself within a second
            super().handle_exit(sig, frame)

    class Worker(UvicornWorker):
        async def _serve(self) -> None:  # UvicornWorker._serve, with the server above
            self.config.app = self.wsgi
            server = StreamEndingServer(config=self.config)
            self._install_sigquit_handler()
            await server.serve(sockets=self.sockets)
            if not server.started:
                sys.exit(Arbiter.WORKER_BOOT_ERROR)

    return Worker


def __getattr__(name):
    if name == "Worker":
        return _worker_class()
    raise AttributeError(name)
