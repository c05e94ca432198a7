"""The Arena platform: its Django project (settings, URLs, WSGI, the Celery app) and its domain apps
(arena.accounts, arena.bots, arena.matches, ...), with what they share in arena.core."""

from .celery import app as celery_app

__all__ = ["celery_app"]
