"""The embedded broker's transport: kombu's filesystem transport that hears a worker's stop within a poll.

A Celery worker on a polling transport runs a blocking loop that asks the transport for messages for up to
2 s at a time (celery.worker.loops.synloop) and looks at its stop flag only between those calls, then once
more after it (its `finally`). kombu's filesystem transport also sleeps a whole second between two looks at
the folder. So a demo stopped with Ctrl-C spent 3 of its 6 s waiting on nothing, and a message waited up to
a second before a worker saw it. Here the folder is looked at every tenth of a second and the wait ends as
soon as the worker is told to stop; callers that wait for a reply (a control command's) keep their timeout.
"""

import socket
import time

from celery.worker import state as worker_state
from kombu.transport import filesystem

POLL_SECONDS = 0.1


def worker_told_to_stop() -> bool:
    """True once this process is a Celery worker told to stop (warm or cold), as celery's maybe_shutdown reads it."""
    return any(flag is not None and flag is not False
               for flag in (worker_state.should_stop, worker_state.should_terminate))


class EmbeddedTransport(filesystem.Transport):
    polling_interval = POLL_SECONDS

    def drain_events(self, connection, timeout=None):
        if timeout is None:
            return super().drain_events(connection)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or worker_told_to_stop():
                raise socket.timeout()
            try:
                return super().drain_events(connection, timeout=min(remaining, POLL_SECONDS))
            except socket.timeout:
                continue
