"""Schemathesis' stateful testing over the whole API, as each kind of user: sequences of calls whose later
steps take their ids from earlier answers (the OpenAPI links schemathesis infers from the response schemas and
path parameters), bodies included, on a world with two courses. Whatever the sequence, no server error.

Bounded to a few seconds of requests per role (MAX_SEQUENCES x STEPS) so the seven roles cost about a minute;
test_schema_fuzz checks each operation's answers against the schema in full."""

import hypothesis
import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck
from schemathesis.checks import not_a_server_error

from arena.accounts import tokens
from arena.accounts.models import Course
from arena.wsgi import application
from arena.bots.models import Bot
from grading_helpers import open_assignment
from arena.matches import services
from platform_helpers import active_bot, play_now
from tournament_helpers import entered
from quick_tier import examples

SCHEMA_URL = "/api/schema/?format=json"
ROLES = ("anonymous", "student", "other_student", "ta", "instructor", "other_instructor", "operator")
MAX_SEQUENCES, STEPS = 6, 8


@pytest.fixture
def world_tokens(db, settings, make_user, in_process_sandbox):
    """Two courses, each with an instructor and a student owning an active bot; the first with an assistant, a
    graded-to-be assignment, a draft tournament of both its bots and a finished match; an operator. The API
    token of each role (None: anonymous)."""
    settings.ALLOWED_HOSTS = ["*"]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ARENA_RATES = {scope: "100000/min" for scope in settings.ARENA_RATES}
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 10000, "rate": "10000/min"}
    users = {role: make_user(role) for role in ROLES if role != "anonymous"}
    users["operator"].is_superuser = users["operator"].is_staff = True
    users["operator"].save()
    course, other = Course.objects.create(code="algo", name="Algorithms"), Course.objects.create(code="b", name="B")
    course.instructors.add(users["instructor"])
    course.teaching_assistants.add(users["ta"])
    course.students.add(users["student"])
    other.instructors.add(users["other_instructor"])
    other.students.add(users["other_student"])
    bots = [active_bot(users["student"]), active_bot(users["instructor"], name="staff bot")]
    active_bot(users["other_student"], name="elsewhere")
    play_now(services.create_match("endgame", [bots[0], Bot.objects.builtin("endgame", "greedy")],
                                   purpose="challenge", rated=False))
    open_assignment(users["instructor"], course)
    entered(users["instructor"], course, bots, game="endgame", format="round-robin")
    # As Django's test client does: a request through the WSGI app must not close the test's connection.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield {role: tokens.issue(user, "stateful").key for role, user in users.items()} | {"anonymous": None}
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.mark.parametrize("role", ROLES)
def test_no_sequence_of_calls_gives_a_server_error(world_tokens, role):
    machine = schemathesis.openapi.from_wsgi(SCHEMA_URL, application).as_state_machine()
    token = world_tokens[role]

    class AsRole(machine):
        def get_call_kwargs(self, case):
            return {"headers": {"Authorization": f"Token {token}"}} if token else {}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(response, checks=[not_a_server_error])

    AsRole.run(settings=hypothesis.settings(
        max_examples=examples(MAX_SEQUENCES), stateful_step_count=STEPS, derandomize=True, deadline=None, database=None,
        suppress_health_check=list(HealthCheck), phases=[hypothesis.Phase.generate]))
