"""What people send is checked at a cost in proportion to its length, and a crafted input is refused as
any bad input is (a 4xx saying why): JSON bodies, roster CSV, usernames.

One unauthenticated body, `{"username":"x` + `\\"` x 16,000, held a web process 11 s (issue 40). Costs are
compared at 1x and 8x, never against the clock (tests/linear_cost.py)."""

from __future__ import annotations

import io
import uuid

import pytest
from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.test import override_settings
from grading_helpers import course_with_people
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from linear_cost import assert_linear, growth
from quick_tier import examples
from rest_framework.exceptions import ParseError

from arena.accounts import people as people_services
from arena.accounts.usernames import LONGEST_SPELLING, clean_username, username_key
from arena.core.parsers import BoundedJSONParser

TOKEN_URL = "/api/auth/token/"
REPORTED_BODY = ('{"username":"x' + '\\"' * 16_000 + "}").encode()
UNITS = [b'\\"', b'"', b'"[', b"[]", b"[", b"\\", b'["\\', b'\\"[', b'{"a":"', b"\xc3", b'"\\u']
PREFIXES = [b'{"username":"x', b'{"username":"ada","password":"', b"[", b""]


def _fresh_rate_limits():
    """A cache key prefix of its own: every request of a cost comparison reaches the parser."""
    return override_settings(CACHES={"default": {**django_settings.CACHES["default"],
                                                 "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}})


@pytest.mark.django_db
@pytest.mark.parametrize("body", [REPORTED_BODY, b'{"username":"x' + b'\\"' * ((1 << 20) // 2) + b"}"],
                         ids=["reported-16000", "one-mebibyte"])
def test_the_crafted_token_request_is_refused_as_bad_json(api_client, body):
    response = api_client.post(TOKEN_URL, body, content_type="application/json")

    assert response.status_code == 400, response.content[:300]
    assert response.json()["detail"].startswith("JSON parse error - ")


@pytest.mark.django_db
def test_refusing_a_crafted_body_over_http_grows_with_its_length_alone(api_client):
    def post(body):
        with _fresh_rate_limits():
            assert api_client.post(TOKEN_URL, body, content_type="application/json").status_code == 400

    assert_linear(post, lambda scale: b'{"username":"x' + b'\\"' * (8192 * scale) + b"}", 1)


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prefix=st.sampled_from(PREFIXES),
       unit=st.sampled_from(UNITS) | st.binary(min_size=1, max_size=4))
def test_the_json_body_parser_is_linear_on_crafted_bodies(prefix, unit):
    def parse(body):
        try:
            BoundedJSONParser().parse(io.BytesIO(body), "application/json", {"encoding": "utf-8"})
        except ParseError:
            pass

    assert_linear(parse, lambda scale: prefix + unit * (4096 * scale // len(unit)), 1)


ROSTER_SHAPES = {
    "unclosed-quote-of-doubled-quotes": lambda n: 'student_id,email,name\n"' + '""' * n,
    "unclosed-quote-of-commas": lambda n: 'student_id,email,name\n1,"' + ",\n" * n,
    "header-of-commas": lambda n: "," * n + "\n",
    "quoted-header": lambda n: '"student_id' + '""' * n + '",email,name\n',
    "no-header": lambda n: "x" * n,
}


@pytest.mark.django_db
@pytest.mark.parametrize("shape", ROSTER_SHAPES.values(), ids=ROSTER_SHAPES.keys())
def test_a_roster_is_read_in_linear_time(make_user, shape):
    course, people = course_with_people(make_user)
    assert_linear(lambda text: people_services.import_roster(people["instructor"], course, text), shape, 4096)


@pytest.mark.django_db
def test_a_roster_the_csv_reader_cannot_read_is_refused_saying_where(make_user, api_client):
    """A field past the csv module's limit (a quote never closed) was a server error."""
    course, people = course_with_people(make_user)
    api_client.force_authenticate(people["instructor"])
    text = 'student_id,email,name\n1,ann@uni.example,Ann\n2,"' + "x" * 200_000

    response = api_client.post(f"/api/courses/{course.pk}/roster/", {"text": text}, format="json")

    assert response.status_code == 400, response.content[:300]
    assert "not a CSV file the platform can read (line 3" in response.json()["detail"]
    assert not course.roster.exists()


USERNAME_SHAPES = {
    "latin": lambda n: "a" * n,
    "cyrillic-lookalikes": lambda n: "а" * n,
    "mixed-scripts": lambda n: "aа" * n,
    "nfkc-expanding": lambda n: "\ufdfa" * n,
    "fullwidth": lambda n: "Ａ" * n,
    "refused-characters": lambda n: "a!" * n,
}


@pytest.mark.django_db
@pytest.mark.parametrize("shape", USERNAME_SHAPES.values(), ids=USERNAME_SHAPES.keys())
def test_a_username_is_checked_in_linear_time(shape):
    def check(name):
        try:
            clean_username(name)
        except ValidationError:
            pass

    assert_linear(check, shape, 2048)


@pytest.mark.django_db
@pytest.mark.parametrize("check", [clean_username, username_key], ids=["registration", "sign-in-limit"])
def test_a_name_longer_than_any_username_is_never_normalised(check):
    """NFKC makes U+FDFA 18 characters: a 1 MiB name in a sign-in body cost its limit 0.4 s of CPU. Past
    the longest spelling of a username the work no longer grows with the name (it was 8x at 8x)."""
    ratio = growth(check, lambda scale: "\ufdfa" * scale, 2 * LONGEST_SPELLING)
    assert ratio < 3, f"8x the name cost {ratio:.1f}x the work"
    with pytest.raises(ValidationError, match="at most 150 characters"):
        clean_username("\ufdfa" * (LONGEST_SPELLING + 1))


NOT_ASCII_NUMBERS = ["²", "١", "9" * 5000, "-1", " 1", ""]


@pytest.mark.django_db
@pytest.mark.parametrize("number", NOT_ASCII_NUMBERS, ids=["superscript", "arabic-indic", "5000-digits", "negative",
                                                          "spaced", "empty"])
def test_a_query_number_that_is_not_ascii_digits_is_a_4xx_or_ignored_never_a_server_error(client, signed_in,
                                                                                          number):
    """str.isdigit takes "²" (which int() refuses) and 5,000 nines (past int()'s digit limit): both were 500s."""
    from platform_helpers import active_bot, play_now

    from arena.bots.models import Bot
    from arena.matches import services

    mine = active_bot(signed_in)
    page = client.get(f"/bots/{mine.pk}/", {"against": number})
    assert page.status_code == 200
    match = play_now(services.create_match("endgame", [Bot.objects.builtin("endgame", "greedy")] * 2,
                                           purpose="challenge", rated=False))
    replay = client.get(f"/matches/{match.pk}/replay/data/", {"seat": number})
    assert replay.status_code == (200 if number == "" else 400), replay.content[:200]
