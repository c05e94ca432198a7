"""Hostile input from instructors ends in a typed refusal, never a server error (issue 24, finding 6), and every
service error is mapped once: 403 not allowed, 404 not found, 400 invalid, 409 conflict, 429 too many; JSON
under /api/, the 500 page included."""

import json


import pytest
from rest_framework.test import APIClient

from grading_helpers import course_with_people, open_assignment
from arena.grading import services as grading_services

pytestmark = pytest.mark.django_db


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.fixture
def instructor_client(make_user):
    course, people = course_with_people(make_user)
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(people["instructor"])
    assignment = open_assignment(people["instructor"], course)
    return client, course, people, assignment


HOSTILE = [
    # (what, method, path template, body)
    ("roster nested 100,000 deep", "post", "/api/courses/{course}/roster/", '{"text": ' + deep(100000) + "}"),
    ("assignment config 5", "post", "/api/assignments/", {"config": 5}),
    ("assignment config true", "post", "/api/assignments/", {"config": True}),
    ("assignment config a list", "post", "/api/assignments/", {"config": ["length"]}),
    ("late_cutoff_days 100000000", "patch", "/api/assignments/{assignment}/", {"late_cutoff_days": 100000000}),
    ("late penalty 1e308", "patch", "/api/assignments/{assignment}/", {"late_penalty_per_day": 1e308}),
    ("rubric params a list", "post", "/api/assignments/{assignment}/rubric/",
     {"kind": "win_rate", "weight": 10, "params": [1]}),
    ("rubric params a string", "post", "/api/assignments/{assignment}/rubric/",
     {"kind": "win_rate", "weight": 10, "params": "x"}),
    ("rubric weight 1e308", "post", "/api/assignments/{assignment}/rubric/", {"kind": "win_rate", "weight": 1e308}),
    ("tournament config 5", "post", "/api/tournaments/", {"config": 5}),
    ("tournament config a list", "post", "/api/tournaments/", {"config": ["length"]}),
]


@pytest.mark.parametrize("what, method, path, body", HOSTILE, ids=[case[0] for case in HOSTILE])
def test_hostile_instructor_input_is_refused_with_a_400(instructor_client, what, method, path, body):
    client, course, people, assignment = instructor_client
    if isinstance(body, dict) and path in ("/api/assignments/", "/api/tournaments/"):
        body = {"course": course.pk, "title": "T", "name": "T", "game": "endgame", "format": "round-robin",
                "opens_at": "2030-01-01T00:00:00Z", "deadline": "2030-02-01T00:00:00Z", **body}
    payload = body if isinstance(body, str) else json.dumps(body)
    response = getattr(client, method)(path.format(course=course.pk, assignment=assignment.pk), payload,
                                       content_type="application/json")
    assert response.status_code == 400, (what, response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")


def test_an_adjustment_of_1e308_is_refused(instructor_client, make_user):
    client, course, people, assignment = instructor_client
    bot = __import__("tournament_helpers").accepted_bot(people["ann"], "endgame", "b", "def act(o):\n    return 'left'\n")
    submission = grading_services.submit(people["ann"], assignment, bot)
    response = client.post(f"/api/submissions/{submission.pk}/adjustments/", {"points": 1e308, "comment": "x"},
                           format="json")
    assert response.status_code == 400, response.content


def test_a_server_error_under_the_api_is_json(client, settings):
    from arena.core.errors import server_error

    response = server_error(__import__("django.test", fromlist=["RequestFactory"]).RequestFactory().get("/api/x/"))
    assert response.status_code == 500 and json.loads(response.content)["detail"]


@pytest.mark.parametrize("error, status", [("NotAllowed", 403), ("NotFound", 404), ("Invalid", 400),
                                           ("Conflict", 409), ("TooMany", 429)])
def test_each_kind_of_error_is_mapped_once_on_the_api_and_the_pages(error, status):
    from django.test import RequestFactory

    from arena.core import errors

    exc = getattr(errors, error)("why it was refused")
    api = errors.api_exception_handler(exc, {})
    assert api.status_code == status and api.data == {"detail": "why it was refused"}
    for path, kind in (("/api/anything/", "application/json"), ("/courses/1/", "text/html")):
        request = RequestFactory().get(path)
        request.user = __import__("django.contrib.auth.models", fromlist=["AnonymousUser"]).AnonymousUser()
        page = errors.ArenaErrorMiddleware(lambda r: None).process_exception(request, exc)
        assert page.status_code == status and page["Content-Type"].startswith(kind)
        assert "why it was refused" in page.content.decode()
    if error == "TooMany":
        assert api["Retry-After"] == "60"


def test_the_apps_errors_are_kinds_of_the_one_hierarchy():
    from arena.accounts.access import NotAllowed
    from arena.accounts.people import PeopleError, PeopleNotAllowed
    from arena.core import errors
    from arena.bots.validation import UploadRejected
    from arena.grading.services import GradingError, GradingNotAllowed
    from arena.core.budget import OverBudget
    from arena.matches.services import ChallengeError
    from arena.tournaments.services import TournamentConflict, TournamentError, TournamentNotAllowed

    for invalid in (PeopleError, GradingError, UploadRejected, ChallengeError, TournamentError):
        assert errors.status_of(invalid("x")) == 400
    for refused in (NotAllowed, PeopleNotAllowed, GradingNotAllowed, TournamentNotAllowed):
        assert errors.status_of(refused("x")) == 403
    assert errors.status_of(TournamentConflict("x")) == 409
    assert errors.status_of(OverBudget("x", retry_after=30)) == 429 and OverBudget("x", retry_after=30).retry_after == 30
