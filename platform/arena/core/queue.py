"""Publishing Celery tasks by name once the current transaction commits.

By name, so that a services module never imports its tasks module (tasks import services). Publishing
retries a broker hiccup at once; if the broker stays down, what the task would do is already recorded
in the database and the periodic sweeps (matches.tasks.requeue_stuck_matches,
tournaments.tasks.resume_tournaments) send it later: a request that queued work never fails for it.
"""

import logging
from enum import IntEnum

from celery import current_app
from django.db import transaction

log = logging.getLogger(__name__)

# A few quick tries (a broker restart takes about a second) before leaving the work to the sweep.
PUBLISH_RETRY = {"max_retries": 5, "interval_start": 0.1, "interval_step": 0.5, "interval_max": 2.0}


class Priority(IntEnum):
    """Whose work a task is, most urgent first: the platform's grading runs, then its tournaments, then the
    staff's own work, then the students', and last the ladder's matches the platform chooses by itself
    (ratings.matchmaking), which only fill idle time. A student's burst never delays the classes before it: the broker
    hands out the more urgent messages first (broker_priority), and a worker claiming a match takes the most
    urgent one queued in the database whichever message woke it (matches.services.claim)."""

    GRADING = 0
    TOURNAMENT = 1
    STAFF = 2
    STUDENT = 3
    LADDER = 4


# Redis hands out lower numbers first, a list for each of kombu's priority steps 0, 3, 6 and 9 (the embedded
# broker ignores them): one step a class. Work sent again because its worker died or its message was lost
# goes a step AHEAD of its class, before everything of its class sent after it, so a queue position counted
# by age stays true.
STEP = 3
LAST_STEP = 9


def broker_priority(priority: Priority, ahead: bool = False) -> int:
    # The ladder shares the students' last step on the broker (kombu has four); the database's claim still
    # takes a student's match before a ladder's.
    return min(LAST_STEP, max(0, STEP * int(priority) - (STEP if ahead else 0)))


def publish_on_commit(task_name: str, *args, ahead: bool = False, countdown: float | None = None,
                      priority: Priority = Priority.STUDENT) -> None:
    """Send `task_name` with `args` at `priority` once the current transaction commits (`countdown` seconds
    later if given: a table's time limit)."""
    def publish():
        try:
            current_app.send_task(task_name, args=args, priority=broker_priority(priority, ahead), retry=True,
                                  retry_policy=PUBLISH_RETRY, countdown=countdown)
        except Exception:  # never fail the request: the database holds the work, a sweep sends it
            log.exception("the broker refused %s%s; the periodic sweep will send it", task_name, args)

    transaction.on_commit(publish)
