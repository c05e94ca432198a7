"""Hostile ids and values at every id field of the site's forms and the API, on this run's database and (from
a PostgreSQL run) on SQLite too: each is a result or a 4xx, never a server error. An id past 2^63 made SQLite
raise OverflowError in a URL (`/bots/9999999999999999999/versions/1/code/`), the challenge form's opponents
and a team's members (page and API); a rubric's `{"opponent": ["greedy"]}` raised "unhashable"; a roster field
over 128 KiB raised `_csv.Error`."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from arena.core.ids import IdConverter
from grading_helpers import course_with_people, open_assignment
from hostile import HOSTILE_IDS
from platform_helpers import active_bot

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def patterns(resolver=None, prefix=""):
    for entry in (resolver or get_resolver()).url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from patterns(entry, route)
        else:
            assert isinstance(entry, URLPattern)
            yield route, entry.pattern


def test_every_number_in_a_url_is_a_bounded_id():
    """Django's <int:...> takes any number of digits; every route's numbers are <id:...> (arena.core.ids)."""
    unbounded = [route for route, pattern in patterns()
                 for name, converter in getattr(pattern, "converters", {}).items()
                 if not isinstance(converter, IdConverter) and converter.regex == "[0-9]+"]
    assert unbounded == []


@pytest.fixture
def world(make_user):
    course, people = course_with_people(make_user)
    client = Client(raise_request_exception=False)
    client.force_login(people["instructor"])
    return {"course": course, "people": people, "client": client, "bot": active_bot(people["instructor"]),
            "assignment": open_assignment(people["instructor"], course)}


def answers(response) -> int:
    assert response.status_code < 500, (response.request["PATH_INFO"], response.content[:300])
    return response.status_code


@pytest.mark.parametrize("hostile", HOSTILE_IDS, ids=lambda value: repr(value)[:24])
def test_hostile_ids_in_urls_forms_and_json_are_refused_not_a_server_error(world, hostile):
    client, course, bot = world["client"], world["course"], world["bot"]
    text = str(hostile)
    for path in (f"/bots/{text}/versions/1/code/", f"/bots/{bot.pk}/versions/{text}/code/", f"/bots/{text}/",
                 f"/courses/{text}/", f"/tournaments/{text}/", f"/matches/{text}/", f"/api/bots/{text}/",
                 f"/api/courses/{text}/teams/", f"/assignments/{text}/rubric/1/remove/"):
        answers(client.get(path))
    assert answers(client.post(f"/bots/{bot.pk}/challenge/", {"opponents": [text]})) == 400
    assert answers(client.post(f"/courses/{course.pk}/people/teams/", {"name": "t", "members": [text]})) in (400, 302)
    for members in ([hostile], [text], hostile, [[hostile]], [{"id": hostile}]):
        assert answers(client.post(f"/api/courses/{course.pk}/teams/", {"name": "t", "members": members},
                                   content_type="application/json")) in (400, 403)
    assert answers(client.post("/api/matches/", {"bot": hostile, "opponents": [hostile]},
                               content_type="application/json")) in (400, 403)


@pytest.mark.parametrize("params", [{"opponent": ["greedy"]}, {"opponent": {"a": 1}}, {"opponent": 7},
                                    {"opponent": True}, {"opponent": "x" * 100_000}, {"games": ["2"]},
                                    {"opponent": None, "games": {"n": 1}}])
def test_a_rubric_part_with_parameters_of_any_type_is_a_400(world, params):
    response = world["client"].post(f"/api/assignments/{world['assignment'].pk}/rubric/",
                                    {"kind": "win_rate", "weight": 10, "params": params},
                                    content_type="application/json")
    assert answers(response) == 400


@pytest.mark.parametrize("row", ["s1,a@example.org," + "n" * (128 * 1024 + 1), "s1,a@example.org,\"unclosed",
                                 "s1,a@example.org,nul\x00name", ",".join(["x"] * 10_000)],
                         ids=["field over 128 KiB", "unclosed quote", "NUL", "10000 columns"])
def test_a_roster_no_csv_reader_can_read_is_a_400_that_names_the_line(world, row):
    text = f"student_id,email,name\n{row}\n"
    response = world["client"].post(f"/api/courses/{world['course'].pk}/roster/", {"text": text},
                                    content_type="application/json")
    assert answers(response) in (200, 201, 400)
    if response.status_code == 400:  # the text field's own refusal (a NUL), or the CSV's, naming the line
        body = response.json()
        assert "text" in body or "line 2" in body["detail"], body


def test_the_same_on_sqlite(tmp_path):
    """The database that overflowed was SQLite: from a PostgreSQL run the tests above run again on a file."""
    if connection.vendor == "sqlite":
        pytest.skip("this run is on SQLite already")
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "PYTEST_XDIST_WORKER", "CI")}
    env["ARENA_VAR_DIR"] = str(tmp_path)
    # The SQLite run leaves this test out by name (no skip marker: it would not run itself again).
    here = str(Path(__file__))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", here,
                          "--deselect", f"{here}::test_the_same_on_sqlite"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:][:2000] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failed" not in run.stdout
