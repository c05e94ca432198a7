"""What a class walking through issue 29 on the demo found confusing in the pairing rooms' pages and the demo
data, each fixed and kept so here: the course page tells one room from another and a student who is in one
from one who is not, the staff's "Start round" waits while a round is played, the room names students one
way, and the results download names them as the gradebook does."""

import csv
import io
import re

import pytest

from arena.accounts.models import Course, Profile, RosterEntry
from arena.rooms import services
from arena.rooms.models import RoomGame

pytestmark = pytest.mark.django_db


@pytest.fixture
def course(make_user):
    course = Course.objects.create(name="Algorithms", code="ALG1")
    course.instructors.add(make_user("teacher"))
    course.students.add(make_user("ada"), make_user("ben"), make_user("cy"))
    return course


def member(course, name):
    return course.instructors.filter(username=name).first() or course.students.get(username=name)


def rooms_section(client, course) -> str:
    page = client.get(f"/courses/{course.pk}/").content.decode()
    return page[page.index('id="pairing-rooms"'):page.index("</section>", page.index('id="pairing-rooms"'))]


def test_the_course_page_tells_rooms_apart_and_a_student_in_one_is_not_asked_to_join_it(course, client):
    teacher, ada = member(course, "teacher"), member(course, "ada")
    first = services.open_room(teacher, course, "endgame")
    second = services.open_room(teacher, course, "endgame")
    services.join(ada, first)
    client.force_login(ada)
    section = rooms_section(client, course)
    assert "round 0" not in section  # a room nobody has played in yet said "round 0"
    items = {int(number): text for number, text in re.findall(r'data-room="(\d+)">(.*?)</li>', section, re.S)}
    assert f"room #{first.pk}" in items[first.pk] and f"room #{second.pk}" in items[second.pk]
    assert "opened by teacher" in items[first.pk] and "no round yet" in items[first.pk]
    assert "1 student in it" in items[first.pk] and "0 students in it" in items[second.pk]
    assert "You are in it" in items[first.pk] and "join-room" not in items[first.pk]
    assert "join-room" in items[second.pk] and "You are in it" not in items[second.pk]

    services.join(member(course, "ben"), first)
    services.start_round(teacher, first)
    assert "round 1 being played" in rooms_section(client, course)


def test_start_round_waits_disabled_while_a_round_is_played(course, client):
    teacher = member(course, "teacher")
    room = services.open_room(teacher, course, "endgame", config={"board": [1, 5, 2, 8]})
    for name in ("ada", "ben"):
        services.join(member(course, name), room)
    client.force_login(teacher)
    start = re.compile(r'<button type="submit" id="start-round"([^>]*)>Start round (\d)')
    assert start.search(client.get(f"/rooms/{room.pk}/").content.decode()).groups() == ("", "1")

    services.start_round(teacher, room)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    attributes, number = start.search(page).groups()
    assert "disabled" in attributes and number == "2"
    assert "once every game of round 1 is over" in page
    # The button is in the part the room's live stream sends again, so it comes back by itself.
    live = page[page.index('id="room-live"'):]
    assert 'id="start-round"' in live

    for game in RoomGame.objects.filter(room=room).order_by("leg"):
        game.refresh_from_db()
        services.record_result(game, [0])
    attributes, number = start.search(client.get(f"/rooms/{room.pk}/").content.decode()).groups()
    assert "disabled" not in attributes and number == "2"


def test_the_rounds_name_students_as_the_results_table_does(course, client):
    teacher, ada, ben = (member(course, name) for name in ("teacher", "ada", "ben"))
    Profile.objects.update_or_create(user=ada, defaults={"display_name": "Ada Lovelace"})
    room = services.open_room(teacher, course, "endgame")
    services.join(ada, room)
    services.join(ben, room)
    services.start_round(teacher, room)
    client.force_login(teacher)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    games = page[page.index('class="room-games"'):]
    assert "Ada Lovelace" in games and "ada (first)" not in games and " ada:" not in games
    assert re.search(r"<td>Ada Lovelace</td>", page)


def test_the_results_download_names_students_by_student_id_and_email_as_the_gradebook(course, client):
    teacher, ada, ben = (member(course, name) for name in ("teacher", "ada", "ben"))
    ben.email = "ben@uni.example"
    ben.save()
    RosterEntry.objects.create(course=course, user=ada, student_id="S-17", email="ada@uni.example",
                               name="Ada Lovelace")
    room = services.open_room(teacher, course, "endgame")
    services.join(ada, room)
    services.join(ben, room)
    client.force_login(teacher)
    rows = list(csv.reader(io.StringIO(client.get(f"/rooms/{room.pk}/results.csv").content.decode())))
    assert rows[0][:4] == ["student_id", "email", "name", "games"]
    assert sorted(row[:3] for row in rows[1:]) == [["", "ben@uni.example", "ben"],
                                                   ["S-17", "ada@uni.example", "Ada Lovelace"]]


def test_a_disabled_button_looks_disabled():
    """The waiting Start round button (and a move being sent at a table) looked like any other button."""
    from django.contrib.staticfiles import finders

    stylesheet = open(finders.find("core/arena.css"), encoding="utf-8").read()
    rule = re.search(r"button:disabled[^{]*\{([^}]*)\}", stylesheet)
    assert rule and "cursor: not-allowed" in rule.group(1) and "color:" in rule.group(1)


def test_the_open_room_form_starts_at_end_game_with_a_whole_number_of_seconds(course, client):
    client.force_login(member(course, "teacher"))
    page = client.get(f"/courses/{course.pk}/").content.decode()
    form = page[page.index('id="open-room"'):]
    assert re.search(r'<option value="endgame" selected>', form)  # it started at Crazy-KING
    assert re.search(r'name="move_seconds" value="300"', form)  # it said 300.0


def test_a_student_is_told_that_leaving_the_room_mid_game_loses_it(course, client):
    teacher, ada, ben = (member(course, name) for name in ("teacher", "ada", "ben"))
    room = services.open_room(teacher, course, "endgame")
    services.join(ada, room)
    services.join(ben, room)
    client.force_login(ada)
    warning = "leaving now loses the game you are playing"
    assert warning not in client.get(f"/rooms/{room.pk}/").content.decode()  # nothing to lose yet
    services.start_round(teacher, room)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    assert 'id="leave-room" aria-describedby="leave-loses"' in page and warning in page
