"""Celery tasks of tournaments: advancing one (idempotent, see services.advance) and resuming them all."""

from celery import shared_task

from arena.matches import batches

from . import services
from .models import Tournament


# Named as before the platform became the arena package: queued messages and the beat schedule name them.
@shared_task(name="tournaments.tasks.advance_tournament", bind=True, acks_late=True, max_retries=None)
def advance_tournament(self, tournament_id: int, series_id: int | None = None) -> None:
    batches.advance_task(self, services.advance, tournament_id, series_id)


@shared_task(name="tournaments.tasks.resume_tournaments")
def resume_tournaments() -> int:
    """Advance every running tournament: whatever a lost message or a killed worker left undone gets done."""
    return batches.advance_all(services.advance, list(Tournament.objects.in_progress().values_list("pk", flat=True)))
