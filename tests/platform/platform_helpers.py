"""Helpers shared by the platform tests (conftest.py holds the fixtures)."""

import time

import pytest

EXAMPLE_BOT = b"def act(observation):\n    board = observation['board']\n    return 'left' if board[0] >= board[-1] else 'right'\n"


def wait_for(predicate, timeout: float, what: str):
    """Poll `predicate` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out after {timeout}s waiting for {what}")


def database_url() -> str:
    """The test database as a DATABASE_URL, for the worker processes a test starts."""
    from django.db import connection

    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def play_now(match):
    """Run a queued match in this process, as a worker would."""
    from matches import services

    claimed = services.claim(match.pk)
    assert isinstance(claimed, services.Claim)
    services.run(claimed)
    match.refresh_from_db()
    return match
