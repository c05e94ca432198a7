"""Destructive buttons ask first, in a real browser under the site's Content-Security-Policy (which blocks inline
handlers: an `onsubmit="return confirm(...)"` never ran, and a draft was deleted at once). Dismissing the question
keeps the thing; accepting it does what the button says. No template has an inline handler."""

import re
from pathlib import Path

import pytest

from arena.accounts import tokens
from arena.grading import services as grading
from arena.rooms import services as rooms
from arena.tournaments import services as tournaments
from arena.variants import services as variants
from grading_helpers import course_with_people, open_assignment
from platform_helpers import EXAMPLE_BOT, signed_in_page
from tournament_helpers import accepted_bot, entered

pytestmark = pytest.mark.django_db(transaction=True)
TEMPLATES = Path(__file__).resolve().parents[2] / "platform" / "arena"
INLINE_HANDLER = re.compile(r"""<[^>]*\son[a-z]+\s*=|javascript:""", re.IGNORECASE)


def test_no_template_has_an_inline_handler():
    offenders = [f"{path.relative_to(TEMPLATES)}: {match.group(0)[:80]}"
                 for path in TEMPLATES.rglob("templates/**/*.html")
                 for match in INLINE_HANDLER.finditer(path.read_text())]
    assert offenders == []


@pytest.fixture
def course_things(make_user):
    """Made before the browser starts (its event loop forbids database calls in this thread)."""
    course, people = course_with_people(make_user)
    teacher, ann = people["instructor"], people["ann"]
    bots = [accepted_bot(people[name], "endgame", f"{name}-bot", EXAMPLE_BOT.decode()) for name in ("ann", "ben")]
    draft = entered(teacher, course, bots, game="endgame", format="round-robin", name="Draft cup")
    running = entered(teacher, course, bots, game="endgame", format="round-robin", name="Running cup")
    tournaments.start(teacher, running)
    assignment = open_assignment(teacher, course)
    grading.add_part(teacher, assignment, "win_rate", 100, {"opponent": "greedy", "games": 2})
    grading.submit(ann, assignment, bots[0])
    variants.create_variant(teacher, course, game="endgame", name="short", config={"length": 6})
    room = rooms.open_room(teacher, course, "endgame")
    tokens.issue(ann, "laptop")
    return {"course": course, "people": people, "draft": draft, "running": running, "assignment": assignment,
            "room": room}


def asks(page, url: str, button: str, question: str, gone) -> None:
    """On `url`, `button` asks `question`: dismissed, `gone(page)` stays false after a reload; accepted, it holds."""
    questions = []

    def answer(dialog, accept):
        questions.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    for accept in (False, True):
        page.goto(url)
        page.once("dialog", lambda dialog, accept=accept: answer(dialog, accept))
        page.locator(button).first.click()
        if accept:
            page.wait_for_load_state("load")
        page.goto(url)
        assert gone(page) is accept, (button, accept)
    assert len(questions) == 2 and all(question in asked for asked in questions), questions


def test_each_destructive_button_asks_and_only_an_accepted_question_acts(live_server, course_things, chromium):
    things, base = course_things, live_server.url
    teacher = signed_in_page(chromium, base, things["people"]["instructor"])
    draft, running = f"{base}/tournaments/{things['draft'].pk}/", f"{base}/tournaments/{things['running'].pk}/"
    assignment = f"{base}/assignments/{things['assignment'].pk}/"
    course = f"{base}/courses/{things['course'].pk}/"

    asks(teacher, draft, "#entrants button:has-text('remove')", "Remove",
         lambda page: page.locator("#entrants tbody tr").count() == 1)
    asks(teacher, running, "button:has-text('Cancel tournament')", "Cancel this tournament?",
         lambda page: page.locator("#status").inner_text() == "Cancelled")
    asks(teacher, assignment, "form[action*='/rubric/'] button:has-text('remove')", "Remove this part",
         lambda page: page.locator("form[action*='/rubric/'] button:has-text('remove')").count() == 0)
    asks(teacher, course, "button:has-text('Delete')", "Delete the variant short?",
         lambda page: page.locator("button:has-text('Delete')").count() == 0)
    asks(teacher, f"{base}/rooms/{things['room'].pk}/", "#close-room", "Close the room?",
         lambda page: page.locator("#close-room").count() == 0)
    # Last: the draft itself (dismissed it stays; accepted, its page is gone).
    asks(teacher, draft, "#discard", "Discard this draft?", lambda page: "Draft cup" not in page.content())

    student = signed_in_page(chromium, base, things["people"]["ann"])
    asks(student, assignment, "#withdraw", "Withdraw your submission?",
         lambda page: page.locator("#withdraw").count() == 0)
    asks(student, f"{base}/accounts/tokens/", "button:has-text('revoke')", "Revoke the token laptop?",
         lambda page: "laptop" not in page.locator("table").first.inner_text())
