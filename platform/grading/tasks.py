"""Celery tasks of grading: advancing one run (idempotent, see runs.advance_run) and resuming them all."""

from celery import shared_task

from matches.transient import TRANSIENT_ERRORS, retrying

from . import runs
from .models import GradingRun


@shared_task(bind=True, acks_late=True, max_retries=None)
def advance_grading_run(self, run_id: int) -> None:
    try:
        retrying(runs.advance_run, run_id, patience=30.0)
    except TRANSIENT_ERRORS as exc:
        raise self.retry(exc=exc, countdown=5)


@shared_task
def resume_grading_runs() -> int:
    """Advance every running grading run: whatever a lost message or a killed worker left undone gets done."""
    running = list(GradingRun.objects.in_progress().values_list("pk", flat=True))
    for run_id in running:
        retrying(runs.advance_run, run_id, patience=30.0)
    return len(running)
