"""Celery tasks of grading: advancing one run (idempotent, see runs.advance_run) and resuming them all."""

from celery import shared_task

from arena.matches import batches

from . import runs
from .models import GradingRun


# Named as before the platform became the arena package: queued messages and the beat schedule name them.
@shared_task(name="grading.tasks.advance_grading_run", bind=True, acks_late=True, max_retries=None)
def advance_grading_run(self, run_id: int) -> None:
    batches.advance_task(self, runs.advance_run, run_id)


@shared_task(name="grading.tasks.resume_grading_runs")
def resume_grading_runs() -> int:
    """Advance every run still waiting: whatever a lost message or a killed worker left undone gets done."""
    return batches.advance_all(runs.advance_run, list(GradingRun.objects.awaiting().values_list("pk", flat=True)))
