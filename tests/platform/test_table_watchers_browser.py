"""The Done-when's watched table, in real browsers (Debian's chromium, the site's Content-Security-Policy on):
ada opens a Crazy-KING table for her course with ben (invited by a link) and two built-ins; their classmate
cleo, not seated, watches it on a phone-sized page. Every move reaches cleo live, in the public view only:
no seat's cards, which ada and ben each see of their own seat, and nothing for her to click. The two people
play the game to its end (one round, the options typed on the Play form, so that it ends within a test's
time: a whole game to 500 points is hundreds of moves), and cleo sees the end and opens the replay."""

import pytest
from django.conf import settings
from django.test import Client

from arena.accounts.models import Course
from arena.bots.models import Bot
from test_tables_browser import PHONE, browser_as, invite

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser, pytest.mark.docker]

# One round, over at the draw pile's first run-out at the latest: about 30 decisions, half of them the people's.
OPTIONS = '{"max_rounds": 1, "max_run_outs": 1}'
MAX_TURNS = 400  # a guard against a game that never ends: one round is far shorter


@pytest.fixture
def classroom(django_user_model):
    """ada, ben and cleo in one course, each with a session in the database; the two built-ins seated. Made
    before the browser starts: its event loop forbids database calls in this thread."""
    course = Course.objects.create(name="Algorithms", code="ALG1")
    sessions = {}
    for name in ("ada", "ben", "cleo"):
        user = django_user_model.objects.create_user(name)
        course.students.add(user)
        client = Client()
        client.force_login(user)
        sessions[name] = client.cookies[settings.SESSION_COOKIE_NAME].value
    bots = [Bot.objects.builtin("crazyking", name).pk for name in ("random", "tactician")]
    return course.pk, sessions, bots


def open_watched_table(ada, course: int, bots: list[int]) -> None:
    """ada, on the Play form: Crazy-KING, herself, a person by invitation and two built-ins, watched by the
    course, one round."""
    ada.click("#play-link")
    ada.wait_for_selector("#choose-game[hidden]", state="attached")  # the script submits on a change of game
    with ada.expect_navigation():
        ada.select_option("#game-choice", "crazyking")
    for seat, value in enumerate(["me", "invite", f"bot:{bots[0]}", f"bot:{bots[1]}"]):
        ada.select_option(f"#seat{seat}", value)
    ada.select_option("#seat4", "")
    ada.fill("#move-seconds", "600")
    ada.fill("#config", OPTIONS)
    ada.select_option("#course", str(course))
    ada.click("#open")
    ada.wait_for_selector("#status")


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1


def assert_public_view_only(cleo) -> None:
    """cleo sees every seat's cards face down, knows of no hand, and has no move, select or leave to use."""
    assert cleo.locator("#board .seat-box").count() == 4
    assert cleo.locator("#board .seat-box [data-card]").count() == 0
    sizes = [int(text.split(" card")[0].split("· ")[-1])
             for text in cleo.locator("#board .seat-box .hint-light").all_inner_texts()]
    assert cleo.locator("#board .seat-box .card.back").count() == sum(sizes)
    text = cleo.locator("#text").text_content()
    assert '"hand"' not in text and '"hands"' not in text and '"drawn_card": null' in text
    assert cleo.locator("#choice-list *, #leave-form, #take-seat").count() == 0
    assert "(you)" not in cleo.locator("#seats").inner_text()


def assert_own_cards_only(page, seat: int) -> None:
    """A seated person sees their own seat's cards face up (as many as it holds) and no other seat's."""
    own = page.locator(f"#board .seat-box[data-seat='{seat}']")
    assert own.locator("[data-card]").count() == own.locator(".card").count() > 0
    assert page.locator(f"#board .seat-box:not([data-seat='{seat}']) [data-card]").count() == 0


def test_a_class_watches_a_crazy_king_table_of_two_people_and_two_bots(live_worker, classroom, live_server,
                                                                      chromium):
    course, sessions, bots = classroom
    base = live_server.url
    ada, ben = (browser_as(chromium, base, sessions[name]) for name in ("ada", "ben"))
    open_watched_table(ada, course, bots)
    table_url = ada.url
    invite(ada, ben)
    cleo = browser_as(chromium, base, sessions["cleo"])
    cleo.set_viewport_size(PHONE)
    cleo.goto(table_url)  # the course's classmate, not seated: the page of a table she only watches
    cleo.wait_for_selector("#status[data-status=playing]")
    people = {0: ada, 1: ben}
    moves = 0
    while True:
        # Whose move it is, as cleo's page shows it: a person's (a bot answers by itself), or the end.
        cleo.wait_for_selector("#status[data-status=finished], #status[data-on-move='0'], #status[data-on-move='1']")
        status = cleo.locator("#status")
        if status.get_attribute("data-status") == "finished":
            break
        turn, seat = int(status.get_attribute("data-turn")), int(status.get_attribute("data-on-move"))
        assert_public_view_only(cleo)
        mover = people[seat]
        mover.wait_for_selector(f"#status[data-turn='{turn}']")
        mover.wait_for_selector("#choice-list button.choice, #choice-list select")
        assert_own_cards_only(mover, seat)
        if mover.locator("#choice-select").count():
            mover.click("#play-choice")  # many moves: the first of the list
        else:
            mover.locator("#choice-list button.choice").first.click()
        # The move reaches cleo live (no reload), in the words the mover's page has for it.
        played = mover.locator(f"#moves li[value='{turn + 1}']").inner_text()
        assert played.startswith(mover.locator("#seats .player", has_text="(you)").inner_text().split(" (you)")[0])
        cleo.wait_for_selector(f"#moves li[value='{turn + 1}']")
        assert cleo.locator(f"#moves li[value='{turn + 1}']").inner_text() == played
        assert no_horizontal_scroll(cleo)
        moves += 1
        assert turn < MAX_TURNS
    assert moves >= 2  # both people played (each at least once), to the end of the game
    assert "Game over" in cleo.locator("#status").inner_text()
    assert no_horizontal_scroll(cleo)
    # The same end on the players' pages, and the last move's words on all three.
    for page in (ada, ben):
        page.wait_for_selector("#status[data-status=finished]")
        assert page.locator("#moves li").last.inner_text() == cleo.locator("#moves li").last.inner_text()
    last_step = int(cleo.locator("#moves li").last.get_attribute("value"))
    cleo.click("#replay-link")
    cleo.wait_for_selector("#moves tbody tr")
    assert cleo.locator("#moves tbody tr").count() == last_step
    assert no_horizontal_scroll(cleo)
