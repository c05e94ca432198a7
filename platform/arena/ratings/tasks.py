"""The ladders' Celery task, sent by beat once a minute (settings.CELERY_BEAT_SCHEDULE)."""

from celery import shared_task
from django.db import transaction

from . import matchmaking


@shared_task(name="ratings.tasks.play_ladder_matches")
def play_ladder_matches() -> int:
    """Start this minute's rated ladder matches (matchmaking.play_ladder_matches); how many it started.
    Idempotent enough for beat: a second run in the same minute finds the bots it seated busy, and every
    ladder holds at most ARENA_LADDER_MAX_IN_FLIGHT matches in flight."""
    with transaction.atomic():
        return len(matchmaking.play_ladder_matches())
