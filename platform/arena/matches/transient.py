"""Retrying work that failed for a moment: a locked SQLite file, a PostgreSQL restart, a dropped connection.

Such an error says nothing about the match; dropping the task for it would strand the match until the
deadline sweep. Retry at once with a short exponential backoff instead, on a fresh connection.
"""

import logging
import time

from django.db import InterfaceError, OperationalError, close_old_connections, connection

log = logging.getLogger(__name__)

TRANSIENT_ERRORS = (OperationalError, InterfaceError)


def retrying(function, *args, patience: float = 10.0, first_wait: float = 0.05, **kwargs):
    """`function(*args, **kwargs)`, tried again on a transient database error until `patience` seconds
    have passed (then the last error propagates)."""
    deadline = time.monotonic() + patience
    wait = first_wait
    attempt = 1
    while True:
        try:
            return function(*args, **kwargs)
        except TRANSIENT_ERRORS as exc:
            if connection.in_atomic_block or time.monotonic() + wait > deadline:
                # Inside an outer transaction the whole of it must be retried, not this part: let it go up.
                raise
            log.warning("%s failed (attempt %d: %s); retrying in %.2fs", function.__name__, attempt, exc, wait)
        time.sleep(wait)
        _fresh_connection()
        wait = min(wait * 2, 2.0)
        attempt += 1


def _fresh_connection() -> None:
    """Drop a connection the error left unusable (a restarted server), so the next query opens a new one."""
    close_old_connections()
    if connection.connection is not None and not connection.is_usable():
        connection.close()
