"""One delivery of the run_match task in a process of its own, as a worker's pool process runs it.

    python deliver_run_task.py MATCH_ID NAME MEETING_FOLDER PEERS

Started by test_exactly_once.py, with DATABASE_URL naming the test database. Every delivery waits at a
barrier in MEETING_FOLDER until all PEERS have arrived, so they claim the match at the same moment; one
that wins the claim then waits (before playing) until every other delivery's claim has been answered,
so the losers are answered while the winner still holds the match, whatever the scheduler does. The
claim, the play and the recording are the platform's own code, unchanged. Prints a JSON line: what the
delivery's claim returned, how the task ended, and the monotonic times of each step.
"""

import json
import os
import sys
import time
from pathlib import Path

import django

PATIENCE = 60.0


def wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up after {PATIENCE}s waiting for {what}")
        time.sleep(0.005)


def main(match_id: int, name: str, meeting: Path, peers: int) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    django.setup()
    from celery.exceptions import Retry

    from arena.matches import services
    from arena.matches.tasks import run_match

    report = {"name": name}
    claim, run = services.claim, services.run

    def observed_claim(match_id, route=None):
        report["claim_began"] = time.monotonic()
        result = claim(match_id, route)
        report["claimed"] = type(result).__name__ if result is not None else "nothing"
        if isinstance(result, float):
            report["retry_after"] = result
        report["claim_answered"] = time.monotonic()
        (meeting / f"answered-{name}").touch()
        return result

    def run_after_the_others_are_answered(claimed):
        wait_until(lambda: len(list(meeting.glob("answered-*"))) == peers, "the other deliveries' claims")
        recorded = run(claimed)
        report["recorded_at"] = time.monotonic()
        return recorded

    services.claim, services.run = observed_claim, run_after_the_others_are_answered
    (meeting / f"ready-{name}").touch()
    wait_until(lambda: len(list(meeting.glob("ready-*"))) == peers, "every delivery at the barrier")
    try:
        run_match.run(match_id)
        report["task"] = "ran"
    except Retry:
        report["task"] = "retry later"
    print(json.dumps(report))


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]))
