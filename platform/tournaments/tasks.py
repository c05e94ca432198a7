"""Celery tasks of tournaments: advancing one (idempotent, see services.advance) and resuming them all."""

from celery import shared_task

from matches.transient import TRANSIENT_ERRORS, retrying

from . import services
from .models import Tournament


@shared_task(bind=True, acks_late=True, max_retries=None)
def advance_tournament(self, tournament_id: int, series_id: int | None = None) -> None:
    try:
        retrying(services.advance, tournament_id, series_id, patience=30.0)
    except TRANSIENT_ERRORS as exc:
        raise self.retry(exc=exc, countdown=5)


@shared_task
def resume_tournaments() -> int:
    """Advance every running tournament: whatever a lost message or a killed worker left undone gets done."""
    running = list(Tournament.objects.in_progress().values_list("pk", flat=True))
    for tournament_id in running:
        retrying(services.advance, tournament_id, patience=30.0)
    return len(running)
