"""Pairing rooms through the pages and /api/rooms/: the course page's room, joining, starting, the results download,
hostile bodies and query strings (a 4xx, never a 500)."""

import csv
import io
import json
import uuid

import pytest
from django.conf import settings as django_settings
from django.test import Client, override_settings
from hypothesis import HealthCheck, given, settings, strategies as st
from rest_framework.test import APIClient

from arena.accounts.models import Course
from arena.rooms import services
from arena.rooms.models import Room, RoomGame
from arena.tables import services as tables
from quick_tier import examples
from sse_client import page_stream

pytestmark = pytest.mark.django_db

BOARD = [-1, 3, 9, 4, 7, 2]


@pytest.fixture
def course(make_user):
    course = Course.objects.create(name="Algorithms", code="ALG1")
    course.instructors.add(make_user("teacher"))
    course.students.add(make_user("ada"), make_user("ben"))
    return course


def person(course, name):
    return course.instructors.filter(username=name).first() or course.students.get(username=name)


def api_of(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_student_joins_from_the_course_page_and_is_sent_to_the_table(course, client):
    teacher, ada, ben = (person(course, name) for name in ("teacher", "ada", "ben"))
    client.force_login(teacher)
    page = client.get(f"/courses/{course.pk}/").content.decode()
    assert "Open a pairing room" in page and "Join the pairing room" not in page
    opened = client.post(f"/courses/{course.pk}/rooms/new/", {"game": "endgame", "builtin": "", "move_seconds": "120"})
    room = Room.objects.get()
    assert opened.status_code == 302 and opened["Location"] == f"/rooms/{room.pk}/"
    assert (room.game, room.builtin, room.move_seconds) == ("endgame", "random", 120)
    client.force_login(ada)
    page = client.get(f"/courses/{course.pk}/").content.decode()
    assert "Join the pairing room" in page and "Open a pairing room" not in page
    joined = client.post(f"/rooms/{room.pk}/join/")
    assert joined.status_code == 302 and joined["Location"] == f"/rooms/{room.pk}/"
    assert "Waiting for the next round" in client.get(f"/rooms/{room.pk}/").content.decode()
    services.join(ben, room)
    client.force_login(teacher)
    assert client.post(f"/rooms/{room.pk}/start/").status_code == 302
    client.force_login(ada)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    table = RoomGame.objects.get(leg=1).table
    assert f'href="/tables/{table.pk}/"' in page and "go to your table" in page
    assert "Start round" not in page and "Download the results" not in page


def test_a_refusal_of_the_rooms_state_is_a_message_on_its_page(course, client):
    room = services.open_room(person(course, "teacher"), course, "endgame")
    client.force_login(person(course, "teacher"))
    answer = client.post(f"/rooms/{room.pk}/start/", follow=True)
    assert answer.status_code == 200 and "nobody is in the room" in answer.content.decode()
    assert client.post(f"/rooms/{room.pk}/dance/").status_code == 404
    refused = client.post(f"/courses/{course.pk}/rooms/new/", {"game": "endgame", "builtin": "grandmaster",
                                                              "move_seconds": "60"}, follow=True)
    assert "no built-in bot" in refused.content.decode() and Room.objects.count() == 1
    for options, reason in [("[" * 1000, "nested more than"), ("[" * 100_000, "at most 20000"), ("NaN", "NaN"),
                            ("[1]", "JSON object"), ('{"length": 0}', "length")]:
        refused = client.post(f"/courses/{course.pk}/rooms/new/", {"game": "endgame", "config": options,
                                                                  "move_seconds": "60"}, follow=True)
        assert refused.status_code == 200 and reason in refused.content.decode(), options[:20]
    assert Room.objects.count() == 1


def test_the_staff_download_the_results_and_students_may_not(course, client):
    teacher, ada, ben = (person(course, name) for name in ("teacher", "ada", "ben"))
    room = services.open_room(teacher, course, "endgame", config={"board": BOARD})
    services.join(ada, room)
    services.join(ben, room)
    client.force_login(teacher)
    download = client.get(f"/rooms/{room.pk}/results.csv")
    assert download.status_code == 200 and download["Content-Type"].startswith("text/csv")
    assert download["Content-Disposition"] == f'attachment; filename="ALG1-room-{room.pk}-results.csv"'
    rows = list(csv.reader(io.StringIO(download.content.decode())))
    assert rows == [["student_id", "email", "name", "games", "wins", "draws", "losses", "points"],
                    ["", ada.email, "ada", "0", "0", "0", "0", "0"], ["", ben.email, "ben", "0", "0", "0", "0", "0"]]
    client.force_login(ada)
    assert client.get(f"/rooms/{room.pk}/results.csv").status_code == 403
    assert api_of(ada).get(f"/api/rooms/{room.pk}/results/").status_code == 403
    assert api_of(teacher).get(f"/api/rooms/{room.pk}/results/").content == download.content


def test_the_api_opens_a_room_joins_it_and_starts_a_round(course):
    teacher, ada, ben = (person(course, name) for name in ("teacher", "ada", "ben"))
    created = api_of(teacher).post("/api/rooms/", {"course": course.pk, "game": "endgame",
                                                   "config": {"board": BOARD}, "builtin": "greedy"}, format="json")
    assert created.status_code == 201, created.content
    room = created.json()
    assert (room["builtin"], room["rounds"], room["present"], room["results"]) == ("greedy", 0, 0, [])
    assert api_of(ada).post("/api/rooms/", {"course": course.pk, "game": "endgame"}, format="json").status_code == 403
    for student in (ada, ben):
        assert api_of(student).post(f"/api/rooms/{room['id']}/join/").json()["joined"] is True
    assert api_of(ada).post(f"/api/rooms/{room['id']}/start/").status_code == 403
    started = api_of(teacher).post(f"/api/rooms/{room['id']}/start/").json()
    assert started["rounds"] == 1 and started["round_over"] is False
    mine = api_of(ada).get(f"/api/rooms/{room['id']}/").json()
    assert mine["my_table"] == RoomGame.objects.get(leg=1).table_id
    assert api_of(teacher).post(f"/api/rooms/{room['id']}/start/").status_code == 409
    assert [r["name"] for r in mine["results"]] == ["ada", "ben"]
    listed = api_of(ada).get(f"/api/rooms/?course={course.pk}").json()["results"]
    assert [r["id"] for r in listed] == [room["id"]]
    assert api_of(teacher).post(f"/api/rooms/{room['id']}/close/").json()["status"] == "closed"


def test_another_courses_people_do_not_find_the_room(course, make_user):
    room = services.open_room(person(course, "teacher"), course, "endgame")
    other = Course.objects.create(name="Other", code="OTH")
    other_teacher = make_user("other_teacher")
    other.instructors.add(other_teacher)
    for path in [f"/api/rooms/{room.pk}/", f"/api/rooms/{room.pk}/results/"]:
        assert api_of(other_teacher).get(path).status_code == 404
    assert api_of(other_teacher).post(f"/api/rooms/{room.pk}/join/").status_code == 404
    assert api_of(other_teacher).get("/api/rooms/").json()["results"] == []
    opened = api_of(other_teacher).post("/api/rooms/", {"course": course.pk, "game": "endgame"}, format="json")
    assert opened.status_code == 404


@pytest.mark.parametrize("path", ["/api/rooms/99999999999999999999/", "/rooms/99999999999999999999/",
                                  "/rooms/9223372036854775808/", "/api/rooms/abc/", "/rooms/0/events/",
                                  "/rooms/99999999999999999999/results.csv"])
def test_a_room_that_cannot_exist_is_a_404(course, client, path):
    client.force_login(person(course, "teacher"))
    assert client.get(path).status_code == 404


@pytest.mark.parametrize("query", ["course=abc", "course=-1", "course=99999999999999999999", "course=%00",
                                   "course=1&course=x"])
def test_a_hostile_query_string_is_a_400(course, query):
    assert api_of(person(course, "ada")).get(f"/api/rooms/?{query}").status_code == 400


hostile_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.one_of(
    hostile_values,
    st.fixed_dictionaries({"course": hostile_values, "game": st.sampled_from(["endgame", "sprouts", "sorted", "x"]) | hostile_values,
                           "config": hostile_values, "move_seconds": hostile_values, "builtin": hostile_values}),
))
def test_hostile_bodies_are_refused_with_a_4xx_and_never_a_500(course, body):
    teacher = person(course, "teacher")
    room = Room.objects.first() or services.open_room(teacher, course, "endgame")
    fresh = {"default": {**django_settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}
    with override_settings(CACHES=fresh):
        for url in ["/api/rooms/", f"/api/rooms/{room.pk}/join/", f"/api/rooms/{room.pk}/start/"]:
            # Written by Python's json, NaN and Infinity included: the server's reader refuses them (400).
            response = api_of(teacher).post(url, json.dumps(body), content_type="application/json")
            assert response.status_code < 500, (url, response.content[:300])
        form = {str(key): str(value) for key, value in body.items()} if isinstance(body, dict) else {"game": str(body)}
        page = Client()
        page.force_login(teacher)
        assert page.post(f"/courses/{course.pk}/rooms/new/", form).status_code < 500


def test_a_rooms_table_leads_back_to_the_room_and_once_over_to_the_pairs_next_game(course, client, make_user):
    teacher, ada, ben = (person(course, name) for name in ("teacher", "ada", "ben"))
    room = services.open_room(teacher, course, "endgame", config={"board": BOARD})
    services.join(ada, room)
    services.join(ben, room)
    first, second = services.start_round(teacher, room)
    client.force_login(ada)
    page = client.get(f"/tables/{first.table_id}/").content.decode()
    assert f'id="home-link" href="/rooms/{room.pk}/"' in page and 'id="next-table"' not in page
    tables.leave(first.table, ben)  # the first game ends: the pair's second opens at once
    second.refresh_from_db()
    # What the page's live stream sends (table_state) once the game is over: the room, and the next game.
    home = client.get(f"/tables/{first.table_id}/data/").json()["home"]
    assert home == {"label": "the pairing room (End Game)", "url": f"/rooms/{room.pk}/",
                    "next": f"/tables/{second.table_id}/"}
    assert client.get(f"/tables/{second.table_id}/data/").json()["home"]["next"] is None  # being played
    tables.leave(second.table, ben)
    assert client.get(f"/tables/{second.table_id}/data/").json()["home"]["next"] is None  # the round is over
    client.force_login(teacher)  # the course's staff watch it: the room, no game of their own next
    assert client.get(f"/tables/{first.table_id}/data/").json()["home"]["next"] is None
    stranger = make_user("stranger")
    table = tables.open_table(stranger, "endgame", [tables.SeatChoice(user=stranger), tables.SeatChoice(user=ada)],
                              tag=f"room:{room.pk}:forged")
    client.force_login(stranger)  # not of the room's course: no way into the room
    assert client.get(f"/tables/{table.pk}/data/").json()["home"] is None


@pytest.mark.django_db(transaction=True)
def test_the_room_pages_stream_sends_only_what_changed_since_the_page_was_rendered(course, live_server):
    """The room page renders its live part; the stream it names then sends nothing until the room changes.
    It used to send the part again as soon as it opened, so the part was replaced right after the page
    loaded, and a click landing in that moment was lost (the instructor's "Close the room", in a loaded
    run of the class's browser test)."""
    teacher, ada = person(course, "teacher"), person(course, "ada")
    room = services.open_room(teacher, course, "endgame", builtin="random", move_seconds=120)
    client = Client()
    client.force_login(teacher)
    _, stream = page_stream(live_server, client, f"/rooms/{room.pk}/", "room-live")
    with stream:
        services.join(ada, room)
        event = stream.next_event()
    room.refresh_from_db()

    assert event["id"] == str(room.version)
    assert ">ada<" in event["data"]["payload"]["html"]
