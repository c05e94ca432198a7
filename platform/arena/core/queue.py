"""Publishing Celery tasks by name once the current transaction commits.

By name, so that a services module never imports its tasks module (tasks import services). Publishing
retries a broker hiccup at once; if the broker stays down, what the task would do is already recorded
in the database and the periodic sweeps (matches.tasks.requeue_stuck_matches,
tournaments.tasks.resume_tournaments) send it later: a request that queued work never fails for it.
"""

import logging

from celery import current_app
from django.db import transaction

log = logging.getLogger(__name__)

# A few quick tries (a broker restart takes about a second) before leaving the work to the sweep.
PUBLISH_RETRY = {"max_retries": 5, "interval_start": 0.1, "interval_step": 0.5, "interval_max": 2.0}


# Redis hands out lower numbers first (kombu's priority steps 0, 3, 6 and 9, a list each; the embedded
# broker ignores them). Work is sent at ORDINARY; work sent again because its worker died or its message
# was lost goes AHEAD of everything sent after it, so a queue position counted by age stays true.
AHEAD, ORDINARY = 0, 6


def publish_on_commit(task_name: str, *args, ahead: bool = False, countdown: float | None = None) -> None:
    """Send `task_name` with `args` once the current transaction commits (`countdown` seconds later if given:
    a table's time limit)."""
    def publish():
        try:
            current_app.send_task(task_name, args=args, priority=AHEAD if ahead else ORDINARY, retry=True,
                                  retry_policy=PUBLISH_RETRY, countdown=countdown)
        except Exception:  # never fail the request: the database holds the work, a sweep sends it
            log.exception("the broker refused %s%s; the periodic sweep will send it", task_name, args)

    transaction.on_commit(publish)
