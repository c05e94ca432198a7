"""The Arena platform's Django project: settings, URLs, WSGI and the Celery app."""

import sys
from pathlib import Path

# The repository root holds `games` and `sandbox`; whoever imports the project (manage.py, WSGI, the
# Celery worker, pytest) gets them importable too.
REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.append(str(REPO_ROOT))

from .celery import app as celery_app  # noqa: E402 - needs the path above

__all__ = ["celery_app"]
