"""Sessions: read from the shared cache when the platform has one, kept in the database all the same."""

from importlib import import_module

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client

from required import IN_CI

pytestmark = pytest.mark.django_db


def signed_in(client: Client) -> bool:
    return client.get("/").wsgi_request.user.is_authenticated


def test_with_a_shared_cache_sessions_are_read_from_it():
    # CI runs with Redis, as production does: the session read is a cache hit, not a database query.
    if IN_CI or settings.CACHES["default"]["BACKEND"].endswith("RedisCache"):
        assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.cached_db"
    else:  # a cache of each process's own would keep a signed-out session alive in the others
        assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.db"


def test_a_cache_emptied_by_a_restart_signs_nobody_out(make_user):
    client = Client()
    client.force_login(make_user("reader"))
    store = import_module(settings.SESSION_ENGINE).SessionStore(client.session.session_key)
    cache.delete(getattr(store, "cache_key", "no cache key"))  # what a Redis restart leaves: nothing cached
    assert signed_in(client)


def test_signing_out_ends_the_session_for_every_copy_of_its_cookie(make_user):
    client = Client()
    client.force_login(make_user("leaver"))
    copy = Client()
    copy.cookies[settings.SESSION_COOKIE_NAME] = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert signed_in(copy)
    client.post("/accounts/logout/")
    assert not signed_in(copy)
