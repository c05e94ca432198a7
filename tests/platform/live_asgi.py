"""The site as production serves it (arena.asgi) with the live test topics of live_urls.py, for a test that
runs it in a real uvicorn process: `python -m uvicorn live_asgi:application` (tests/platform on the path)."""

from django.conf import settings

from arena.asgi import application  # noqa: F401 - the server's entry point; sets the settings up

settings.ROOT_URLCONF = "live_urls"
