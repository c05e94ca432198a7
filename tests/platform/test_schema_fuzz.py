"""Schemathesis against the OpenAPI schema, in process (the Django WSGI app): for every operation, bounded
and seeded examples, valid and invalid, bodies included, sent as each role (the course's instructor, one of
its students, a student of no course, nobody signed in) one after the other on the same world, which the
accepted ones change, must get neither a server error nor an answer the schema does not describe (status,
headers, body)."""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings as hypothesis_settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from arena.accounts import tokens
from arena.accounts.models import Course
from arena.wsgi import application
from arena.bots.models import Bot
from arena.matches import services
from platform_helpers import active_bot, play_now
from arena.variants.models import Variant
from quick_tier import examples

SCHEMA_URL = "/api/schema/?format=json"


@pytest.fixture
def api_schema(db, settings, make_user, in_process_sandbox):
    """The served schema, with a world for its operations to find: a student who teaches a course with a
    variant, owns an active bot, and whose bot played a finished match."""
    settings.ALLOWED_HOSTS = ["*"]
    # Generous limits, so that the examples reach the views behind them (test_rate_limits tests the limits).
    settings.ARENA_RATES = {scope: "10000/min" for scope in settings.ARENA_RATES}
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 10000, "rate": "10000/min"}
    user = make_user("fuzzer")
    course = Course.objects.create(code="algo", name="Algorithms")
    course.instructors.add(user)
    Variant.objects.create(course=course, game="endgame", name="short", config={"length": 6}, created_by=user)
    bot = active_bot(user)
    play_now(services.create_match("endgame", [bot, Bot.objects.builtin("endgame", "greedy")], purpose="challenge",
                                   rated=False))
    student, outsider = make_user("fuzzed-student"), make_user("fuzzed-outsider")
    course.students.add(student)
    active_bot(student, name="theirs")
    pytest.fuzz_tokens = {"instructor": tokens.issue(user, "fuzz").key, "student": tokens.issue(student, "fuzz").key,
                          "outsider": tokens.issue(outsider, "fuzz").key, "anonymous": None}
    # As Django's test client does: a request through the WSGI app must not close the test's connection
    # (the world above lives in its transaction).
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi(SCHEMA_URL, application)
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.mark.slow  # thousands of requests; the quick tier has each route's own tests and the authorisation matrix
@pytest.mark.long  # the longest test of the full suite (minutes): it starts first (tests/conftest.py)
@schema.parametrize()
@hypothesis_settings(max_examples=examples(12), derandomize=True, deadline=None, database=None,
                     suppress_health_check=list(HealthCheck))
@pytest.mark.django_db
def test_every_operation_answers_as_its_schema_says(case):
    # Every check but "schema-valid data is accepted": a request can fit the schema and still break a rule
    # no schema states (a weak password, a name already taken, a deck too small), and gets a documented 400.
    for role, token in pytest.fuzz_tokens.items():
        headers = {"Authorization": f"Token {token}"} if token else {}
        case.call_and_validate(headers=headers, excluded_checks=[positive_data_acceptance])
