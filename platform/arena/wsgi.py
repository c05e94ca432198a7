"""WSGI entry point: `gunicorn --pythonpath platform arena.wsgi` or Django's runserver via manage.py."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

from django.core.wsgi import get_wsgi_application  # noqa: E402

application = get_wsgi_application()
