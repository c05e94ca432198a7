"""The API's JSON bodies (api/parsers.py): a body the platform cannot store or parse safely is a 400 saying
why, before any view sees it, never a 500 and never a value quietly changed."""

import uuid

import pytest
from django.conf import settings as django_settings
from django.test import override_settings
from hypothesis import HealthCheck, given, settings, strategies as st

from arena.bots.models import Bot
from hostile import DEEPEST
from quick_tier import examples

pytestmark = pytest.mark.django_db

PARSE_ERROR = "JSON parse error - "


def _not_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


# Bodies no view may see: nested past any parser (closed or not), NaN and Infinity anywhere (also as a
# number too large for a float), bytes that are not UTF-8.
refused_bodies = st.one_of(
    st.builds(lambda depth, closed: ("[" * depth + ("]" * depth if closed else "")).encode(),
              st.integers(65, DEEPEST), st.booleans()),
    st.builds(lambda bad, nested: (f'{{"name": "x", "game": {bad}}}' if not nested
                                   else f'{{"name": [[{{"a": {bad}}}]]}}').encode(),
              st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e400", "9e99999"]), st.booleans()),
    st.binary(min_size=1, max_size=40).filter(_not_utf8),
)


@pytest.mark.parametrize("url", ["/api/bots/", "/api/matches/", "/api/auth/register/"])
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=refused_bodies)
def test_a_body_the_platform_cannot_read_safely_is_a_400_saying_why(api_client, ada, url, body):
    # Rate limits counted from zero for each example, as for each test (conftest.fresh_rate_limits).
    fresh = {"default": {**django_settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}
    with override_settings(CACHES=fresh):
        response = api_client.post(url, body, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["detail"].startswith(PARSE_ERROR)


@pytest.mark.parametrize("body, reason", [
    (b'{"name": "deep", "game": ' + b"[" * DEEPEST + b"]" * DEEPEST + b"}", "JSON nested more than 64 levels deep"),
    (b'{"name": NaN, "game": "endgame"}', "NaN is not a JSON number"),
    (b'{"name": -Infinity, "game": "endgame"}', "-Infinity is not a JSON number"),
    (b'{"name": 1e999, "game": "endgame"}', "1e999 is too large a number"),
])
def test_a_refused_body_creates_nothing_and_says_why(api_client, ada, body, reason):
    response = api_client.post("/api/bots/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": PARSE_ERROR + reason}
    assert not Bot.objects.filter(owner=ada).exists()  # (1e999 used to make a bot named "inf")


def test_a_body_in_its_declared_charset_is_read(api_client, ada):
    body = '{"name": "été", "game": "endgame"}'.encode("latin-1")
    response = api_client.post("/api/bots/", body, content_type="application/json; charset=latin-1")
    assert response.status_code == 201, response.content
    assert Bot.objects.get(owner=ada).name == "été"
