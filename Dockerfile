# The Arena platform image: the web server, the Celery worker and the scheduler all run from it.
# (Bots never run in this image: the worker starts them in the sandbox image, sandbox/Dockerfile.)
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONPATH=/app/platform:/app \
    DJANGO_SETTINGS_MODULE=arena.settings \
    ARENA_VAR_DIR=/var/lib/arena

WORKDIR /app
COPY pyproject.toml README.md ./
COPY games ./games
COPY sandbox ./sandbox
RUN pip install --no-cache-dir . gunicorn==23.0.0
COPY platform ./platform
COPY manage.py ./

RUN useradd --system --uid 10001 arena && mkdir -p /var/lib/arena && chown arena /var/lib/arena
USER arena
EXPOSE 8000
CMD ["gunicorn", "--bind", "0.0.0.0:8000", "--workers", "3", "arena.wsgi:application"]
