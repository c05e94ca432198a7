"""The table page around the board, in chromium (the site's CSP on): what it draws from the table's live state
follows the game without a reload: the seats' names, the leave control and its confirmation, a pairing room's
way back and its next game."""

import pytest
from django.conf import settings
from django.test import Client

from arena.accounts.models import Course
from arena.bots.models import Bot
from arena.rooms import services as rooms
from arena.tables import services as tables
from platform_helpers import BROWSER_TIMEOUT_MS
from test_tables_browser import PHONE, browser_as, invite, open_table, people  # noqa: F401  (people: a fixture)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

BOARD = [-1, 3, 9, 4, 7, 2]


@pytest.fixture
def room_round(django_user_model):
    """A pairing room of ada and ben, its first round started: (room, its first table, sessions).
    Made before the browser starts: its event loop forbids database calls in this thread."""
    course = Course.objects.create(name="Algorithms", code="ALG1")
    teacher = django_user_model.objects.create_user("teacher")
    course.instructors.add(teacher)
    sessions = {}
    room = rooms.open_room(teacher, course, "endgame", config={"board": BOARD})
    for name in ("ada", "ben"):
        user = django_user_model.objects.create_user(name)
        course.students.add(user)
        rooms.join(user, room)
        client = Client()
        client.force_login(user)
        sessions[name] = client.cookies[settings.SESSION_COOKIE_NAME].value
    first, _ = rooms.start_round(teacher, room)
    return room.pk, first.table_id, sessions


def test_a_room_game_left_after_a_confirmation_shows_the_other_the_next_game_live(room_round, live_server, chromium):
    room, table, sessions = room_round
    base = live_server.url
    ada, ben = (browser_as(chromium, base, sessions[name]) for name in ("ada", "ben"))
    for page in (ada, ben):
        page.goto(f"{base}/tables/{table}/")
        page.wait_for_selector("#status[data-status=playing]")
    assert ada.locator("#home-link").get_attribute("href") == f"/rooms/{room}/"
    assert not ben.locator("#confirm-leave").is_visible()  # one click does not leave: it asks first
    ben.click("#leave summary")
    ben.click("#confirm-leave")
    ben.wait_for_selector("#status[data-status=finished]")
    # ada's page, without a reload: the game over, no leave control, the way to the pair's second game.
    ada.wait_for_selector("#next-table")
    ada.wait_for_selector("#leave", state="hidden")
    following = ada.locator("#next-table").get_attribute("href")
    assert following.startswith("/tables/") and following != f"/tables/{table}/"
    ada.click("#next-table")
    ada.wait_for_selector("#status[data-status=playing]")  # the pair's second game, ben first this time


def test_the_seats_names_follow_the_invited_person_and_turns_count_from_1(people, live_server, chromium):
    ada, ben = (browser_as(chromium, live_server.url, people[name]) for name in ("ada", "ben"))
    open_table(ada, live_server.url, "invite")
    assert ada.locator("#seats").inner_text() == "ada (you) · (invited)"
    invite(ada, ben)
    ada.wait_for_selector("#seats .seat-1:text-is('ben')")  # without a reload
    assert ada.locator("#seats").inner_text() == "ada (you) · ben"
    ada.wait_for_selector("#status[data-turn='0']")
    assert ada.locator("#status").inner_text().startswith("Your move (turn 1)")  # people count from 1


@pytest.fixture
def crazy_king_on_move(django_user_model):
    """ada at a four-seat Crazy-KING table with three built-ins, on move first (seed 2): no bot decides before
    her move, so no sandbox is needed. (her session, the table's id)"""
    ada = django_user_model.objects.create_user("ada")
    builtin = Bot.objects.builtin("crazyking", "greedy")
    table = tables.open_table(ada, "crazyking", [tables.SeatChoice(user=ada)] + [tables.SeatChoice(bot=builtin)] * 3,
                              seed=2)
    client = Client()
    client.force_login(ada)
    return client.cookies[settings.SESSION_COOKIE_NAME].value, table.pk


def test_on_a_phone_the_moves_show_without_scrolling(crazy_king_on_move, live_server, chromium):
    session, table = crazy_king_on_move
    context = chromium.new_context(viewport=PHONE)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": live_server.url, "value": session}])
    page = context.new_page()
    page.set_default_timeout(BROWSER_TIMEOUT_MS)
    page.goto(f"{live_server.url}/tables/{table}/")
    page.wait_for_selector("#status[data-on-move='0']")
    for button in page.locator("#choice-list button.choice").all():
        box = button.bounding_box()
        assert box["y"] + box["height"] <= PHONE["height"], button.inner_text()
    context.close()
