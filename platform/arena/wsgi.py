"""WSGI entry point: `gunicorn arena.wsgi` (the arena package installed, or platform/ on the path)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

application = get_wsgi_application()
