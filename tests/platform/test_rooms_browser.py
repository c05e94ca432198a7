"""A class in a pairing room, in real browsers (Debian's chromium, the site's Content-Security-Policy on): the
instructor opens a room for End Game from the course page, six students join it there, each in a browser of
their own, and play two rounds by clicking their moves, the second with a built-in for the odd student out
after one leaves; the instructor's results table follows without a reload, the CSV downloads with the right
lines, and a student opens their own game's replay."""

import csv
import io

import pytest
from django.conf import settings
from django.test import Client

from arena.accounts.models import Course
from platform_helpers import BROWSER_TIMEOUT_MS

# long: the longest test of the suite (a class of six playing two rounds), started first (tests/conftest.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser, pytest.mark.docker, pytest.mark.long]

LENGTH = 6  # numbers on the board: moves in a game
PHONE = {"width": 390, "height": 844}
STUDENTS = [f"student{number}" for number in range(1, 7)]


@pytest.fixture
def classroom(django_user_model):
    """The course, its instructor and six students, each with a session in the database. Made before the
    browser starts: its event loop forbids database calls in this thread."""
    course = Course.objects.create(name="Algorithms", code="ALG1")
    sessions = {}
    for name in ["teacher", *STUDENTS]:
        user = django_user_model.objects.create_user(name)
        (course.instructors if name == "teacher" else course.students).add(user)
        client = Client()
        client.force_login(user)
        sessions[name] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return course.pk, sessions


def browser_as(chromium, base: str, session: str, path: str):
    """A separate browser context (its own cookies: another person) signed in with `session`, at `path`."""
    context = chromium.new_context(accept_downloads=True)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": base, "value": session}])
    page = context.new_page()
    page.set_default_timeout(BROWSER_TIMEOUT_MS)
    page.goto(f"{base}{path}")
    return page


def wait_for_round(page, number: int, over: bool) -> None:
    """The room page (without a reload: the live stream) shows round `number` being played, or over."""
    page.wait_for_selector(f"#room-status[data-round='{number}'][data-round-over='{'yes' if over else 'no'}']")


def table_of(page, room_url: str) -> str:
    """The student's current table, from the room page's "go to your table" (arriving live)."""
    page.goto(room_url)
    return page.locator("#my-table a").get_attribute("href", timeout=BROWSER_TIMEOUT_MS)


def my_seat(page) -> int:
    """The seat the student plays at the table page they are on."""
    page.wait_for_selector("#seats .player")
    you = page.locator("#seats .player", has_text="(you)")
    return int(you.get_attribute("class").split("seat-")[1].split()[0])


def play_games(pages: dict, base: str, room_url: str) -> None:
    """Every student of `pages` goes from the room page to their table and plays it to the end, clicking the
    first move offered; the tables of one leg are played one after the other (a bot takes its own turns)."""
    tables: dict[str, dict[int, object]] = {}
    for page in pages.values():
        href = table_of(page, room_url)
        page.goto(f"{base}{href}")
        tables.setdefault(href, {})[my_seat(page)] = page
    for seats in tables.values():
        for turn in range(LENGTH):
            page = seats.get(turn % 2)  # End Game: seat 0 moves first, then they alternate
            if page is None:
                continue  # the built-in's move: the next person's wait covers it
            page.wait_for_selector(f"#status[data-turn='{turn}'][data-status=playing]")
            page.wait_for_selector("#choice-list button.choice")
            page.locator("#choice-list button.choice").first.click()
            # Past this turn (a built-in may answer before the page shows turn + 1: it shows the newest only).
            page.wait_for_selector(f"#status:not([data-turn='{turn}'])")
        for page in seats.values():
            page.wait_for_selector("#status[data-status=finished]")


def test_six_students_play_two_rounds_in_a_pairing_room(live_worker, classroom, live_server, chromium, settings):
    # Streams end and reconnect often (EventSource resumes them with the last version it has): none outlives
    # the test by long, and the resuming is exercised too.
    settings.ARENA_LIVE_STREAM_SECONDS = 5
    course, sessions = classroom
    base = live_server.url
    teacher = browser_as(chromium, base, sessions["teacher"], f"/courses/{course}/")
    teacher.select_option("#open-room select[name=game]", "endgame")
    teacher.fill("#open-room input[name=config]", f'{{"length": {LENGTH}}}')
    teacher.fill("#open-room input[name=move_seconds]", "600")
    teacher.click("#open-room button[type=submit]")
    teacher.wait_for_selector("#start-round")
    room_url = teacher.url

    students = {}
    for name in STUDENTS:
        page = browser_as(chromium, base, sessions[name], f"/courses/{course}/")
        page.click("#pairing-rooms button.join-room")  # from the course page
        page.wait_for_selector("#waiting")
        assert page.url == room_url
        students[name] = page
    teacher.wait_for_selector("#room-status[data-present='6']")  # the joins arrive live

    # Round 1: three pairs, two games each (each student first once).
    teacher.click("#start-round")
    wait_for_round(teacher, 1, over=False)
    play_games(students, base, room_url)  # game 1 of every pair
    play_games(students, base, room_url)  # game 2, opened as game 1 ended
    wait_for_round(teacher, 1, over=True)
    assert teacher.locator("#results tr[data-played='2']").count() == 6  # followed live, no reload

    # Round 2: student6 leaves; five are paired, one of them with the built-in.
    leaver = students.pop("student6")
    leaver.goto(room_url)
    leaver.click("#leave-room")
    teacher.wait_for_selector("#room-status[data-present='5']")
    teacher.click("#start-round")
    wait_for_round(teacher, 2, over=False)
    play_games(students, base, room_url)
    play_games(students, base, room_url)
    wait_for_round(teacher, 2, over=True)
    assert teacher.locator("#results tr[data-played='4']").count() == 5
    assert teacher.locator("#results tr[data-played='2']").count() == 1
    assert teacher.locator(".room-games li", has_text="built-in random").count() == 2  # its pair's two games

    with teacher.expect_download() as download:
        teacher.click("#download-results")
    rows = list(csv.DictReader(io.StringIO(open(download.value.path(), encoding="utf-8").read())))
    assert sorted(row["name"] for row in rows) == STUDENTS
    assert {row["name"]: row["games"] for row in rows} == {**{name: "4" for name in STUDENTS[:5]}, "student6": "2"}
    for row in rows:
        assert int(row["wins"]) + int(row["draws"]) + int(row["losses"]) == int(row["games"])
        played_rounds = [row[f"round_{number}"] for number in (1, 2) if row[f"round_{number}"] != ""]
        assert float(row["points"]) == sum(float(points) for points in played_rounds)
    assert [row["round_2"] for row in rows if row["name"] == "student6"] == [""]

    # A student opens the replay of their own game from the room page.
    student = students["student1"]
    student.goto(room_url)
    assert student.locator(".room-games li").count() == 4  # their own games only
    student.locator(".room-games a.replay-link").first.click()
    student.wait_for_selector("#moves tbody tr")
    assert student.locator("#moves tbody tr").count() == LENGTH
    assert "student1" in student.content()

    # The room and the course page fit a phone.
    for page, path in [(teacher, room_url), (student, room_url), (student, f"{base}/courses/{course}/")]:
        page.set_viewport_size(PHONE)
        page.goto(path)
        assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1

    # The class is over: the room closes, and its pages' streams end with it.
    teacher.goto(room_url)
    teacher.once("dialog", lambda dialog: dialog.accept())  # "Close the room?"
    teacher.click("#close-room")
    teacher.wait_for_selector("#room-controls:has-text('This room is closed')")
    for page in [*students.values(), leaver]:
        page.goto(room_url)
        assert page.locator("#join-room, #leave-room").count() == 0
