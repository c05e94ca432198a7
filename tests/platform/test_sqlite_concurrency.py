"""The embedded demo configuration (SQLite file, filesystem broker) under a burst of concurrent writers.

Real processes throughout: a Celery worker with two pool processes claims and records matches while
eight threads of another process upload versions and queue challenges. The deadline sweep is pushed out
of reach, so every match must be run by its own task: a dropped task (a claim failing with "database is
locked", as it did) would leave its match queued and fail the test.
"""

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from platform_helpers import stop_process

ROOT = Path(__file__).resolve().parents[2]
STUDENTS, UPLOADS, CHALLENGES = 6, 2, 5


def sqlite_env(var_dir: Path) -> dict:
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "PYTEST_XDIST_WORKER")}
    env.update({
        "ARENA_VAR_DIR": str(var_dir),
        "DJANGO_SETTINGS_MODULE": "arena.settings",
        # Our own example bot and built-ins only: a plain process keeps the burst about the database.
        "ARENA_SANDBOX": "none",
        # Far beyond the test: no match may rely on the sweep.
        "ARENA_MATCH_DEADLINE_SECONDS": "3600",
    })
    return env


def statuses(database: Path, ids: list[int]) -> dict[int, str]:
    with sqlite3.connect(database, timeout=30) as db:
        rows = db.execute(
            f"SELECT id, status FROM matches_match WHERE id IN ({','.join('?' * len(ids))})", ids
        ).fetchall()
    return dict(rows)


@pytest.fixture
def sqlite_platform(tmp_path):
    env = sqlite_env(tmp_path)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    log_path = tmp_path / "worker.log"
    with open(log_path, "w") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "arena", "worker", "--concurrency", "2", "--loglevel", "INFO",
             "--without-gossip", "--without-mingle", "-n", f"sqlite-burst-{os.getpid()}@%h"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        yield env, tmp_path / "arena.sqlite3", log_path
    finally:
        stop_process(worker)


@pytest.mark.long  # a worker, a burst of uploads and the matches they start, all in processes of their own
def test_a_burst_of_uploads_and_challenges_strands_no_match_on_sqlite(sqlite_platform):
    env, database, log_path = sqlite_platform
    burst = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "platform" / "sqlite_burst.py"), str(STUDENTS), str(UPLOADS),
         str(CHALLENGES)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert burst.returncode == 0, burst.stderr[-3000:]
    report = json.loads(burst.stdout.strip().splitlines()[-1])
    assert report["errors"] == [], "a request failed under the burst (the web would have shown a 500)"
    queued = report["queued"]
    assert len(queued) == STUDENTS * (UPLOADS + CHALLENGES)

    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        now = statuses(database, queued)
        if all(status in ("finished", "set_aside") for status in now.values()):
            break
        time.sleep(0.5)
    waiting = {pk: status for pk, status in statuses(database, queued).items() if status != "finished"}
    assert not waiting, (
        f"{len(waiting)} of {len(queued)} matches never finished (left for the deadline sweep): {waiting}\n"
        + log_path.read_text()[-3000:]
    )
