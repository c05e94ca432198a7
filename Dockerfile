# The Arena platform image: the web server, the Celery worker and the scheduler all run from it.
# (Bots never run in this image: the worker starts them in the sandbox image, sandbox/Dockerfile.)
# BASE_IMAGE: any Debian bookworm with python3 3.11 and its venv module; docker-compose.yml passes
# ARENA_BASE_IMAGE, which `python -m sandbox.compose_images build` sets where no registry answers.
ARG BASE_IMAGE=python:3.11-slim-bookworm
FROM ${BASE_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/arena/bin:$PATH \
    DJANGO_SETTINGS_MODULE=arena.settings \
    ARENA_VAR_DIR=/var/lib/arena

# A virtual environment: the same on the official python image and on Debian's python3, whose system
# site-packages pip refuses to touch (PEP 668).
RUN python3 -m venv /opt/arena
WORKDIR /app
COPY pyproject.toml README.md ./
COPY games ./games
COPY sandbox ./sandbox
COPY platform ./platform
# The game guides the site renders (arena/variants/game_docs.py) and their example bots: installed with it.
COPY docs/bots ./docs/bots
COPY docs/bot-protocol.md docs/tournaments.md docs/platform-api.md docs/operator-guide.md ./docs/
# The whole platform as one installed package (arena with games and sandbox; templates, static files,
# migrations and the guides included): no path of its own, and `arena-admin` runs its commands anywhere.
RUN pip install --no-cache-dir --disable-pip-version-check . gunicorn==23.0.0
COPY manage.py gunicorn.conf.py ./

RUN useradd --system --uid 10001 arena && mkdir -p /var/lib/arena && chown arena /var/lib/arena
USER arena
EXPOSE 8000
# The web server: gunicorn with uvicorn workers (ASGI: live streams are coroutines), its processes and address
# in gunicorn.conf.py (read from the working directory).
CMD ["gunicorn", "--config", "gunicorn.conf.py"]
