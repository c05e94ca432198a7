"""In a real browser (Debian's chromium), with a real Celery worker and the Docker sandbox, at 1280 and 390 px:
an instructor builds a rubric by its form (no JSON) and grades; a student changes the submitted bot and reads
"not graded yet" beside the last grade; a double elimination plays out and its cards show the game scores."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from arena.grading import services as grading
from grading_helpers import course_with_people
from platform_helpers import EXAMPLE_BOT, signed_in_page as signed_in
from tournament_helpers import LOOKAHEAD_BOT, accepted_bot, entered

pytestmark = pytest.mark.django_db(transaction=True)
WIDE, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}


@pytest.fixture
def classroom(make_user):
    """Made before the browser starts (its event loop forbids database calls in this thread): a course, an
    open assignment without a rubric, ann's and ben's bots (ann has two), ann's first submitted; and a draft
    double elimination of four of the course's bots."""
    course, people = course_with_people(make_user)
    now = timezone.now()
    assignment = grading.create_assignment(people["instructor"], course, title="Beat greedy", game="endgame",
                                           opens_at=now - timedelta(days=1), deadline=now + timedelta(days=1))
    first = accepted_bot(people["ann"], "endgame", "first", EXAMPLE_BOT.decode())
    second = accepted_bot(people["ann"], "endgame", "second", LOOKAHEAD_BOT)
    ben = accepted_bot(people["ben"], "endgame", "bens", LOOKAHEAD_BOT)
    cat = accepted_bot(people["cat"], "endgame", "cats", EXAMPLE_BOT.decode())
    grading.submit(people["ann"], assignment, first)
    cup = entered(people["instructor"], course, [first, second, ben, cat], game="endgame",
                  format="double-elimination", games_per_series=2, name="Double cup")
    return {"assignment": assignment, "people": people, "cup": cup}


def fits(page) -> bool:
    """Nothing wider than the window: the page never scrolls sideways (wide tables scroll in their box)."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_rubric_by_form_a_run_a_changed_submission_and_a_double_elimination_at_1280_and_390(
        live_server, live_worker, classroom, chromium, tmp_path):
    assignment, people, cup = classroom["assignment"], classroom["people"], classroom["cup"]
    url = f"{live_server.url}/assignments/{assignment.pk}/"
    prof = signed_in(chromium, live_server.url, people["instructor"], WIDE)
    prof.goto(url)
    assert prof.locator("input[name=params], textarea[name=params]").count() == 0
    prof.click("#add-win_rate summary")
    prof.fill("input[name=win_rate-weight]", "10")
    games = prof.locator("input[name=win_rate-games]")
    assert (games.get_attribute("min"), games.get_attribute("max")) == ("2", "200")  # bounded in the browser too
    games.fill("2")
    prof.fill("input[name=win_rate-full_at]", "0.5")
    prof.click("#add-win_rate button:has-text('Add this part')")
    prof.wait_for_selector("text=Part added")
    assert "Win at least 50% of 2 games against greedy for full marks" in prof.inner_text("#rubric")

    prof.click("#run-grading")
    prof.wait_for_selector("#run-status:has-text('finished')", timeout=240_000)
    prof.wait_for_selector("#grades a.total")
    assert "Run 1" in prof.inner_text("#run")
    prof.screenshot(path=str(tmp_path / "dashboard-1280.png"), full_page=True)

    # ann, on her phone, designates her other bot: the page says so beside her last grade, and does not fail.
    ann = signed_in(chromium, live_server.url, people["ann"], PHONE)
    ann.goto(url)
    assert "/ 10" in ann.inner_text("#own-grade") and "Open" in ann.inner_text("#deadline-state")
    ann.select_option("select[name=bot]", label="algo-ann/second")
    ann.click("button:has-text('Submit this bot')")
    ann.wait_for_selector("#pending:has-text('not graded yet for this bot')")
    assert "Last grade, of algo-ann/first v1" in ann.inner_text("#own-grade")
    assert fits(ann)
    ann.screenshot(path=str(tmp_path / "student-390.png"), full_page=True)
    prof.reload()
    row = prof.locator("#grades tr:has-text('algo-ann')").inner_text()
    assert "algo-ann/second" in row and "not graded yet for this bot" in row
    prof.set_viewport_size(PHONE)
    assert fits(prof), "the dashboard fits a phone"
    histogram_text = prof.locator("#histogram text").first.bounding_box()
    assert histogram_text["height"] >= 10, "the histogram's axis reads on a phone"
    prof.screenshot(path=str(tmp_path / "dashboard-390.png"), full_page=True)

    # The double elimination, started from its page and played by the worker.
    prof.set_viewport_size(WIDE)
    prof.goto(f"{live_server.url}/tournaments/{cup.pk}/")
    prof.click("button:has-text('Start')")
    prof.wait_for_selector("#champion", timeout=300_000)
    prof.evaluate("document.querySelectorAll('details.round').forEach(round => round.open = true)")
    names = prof.locator("details.round summary").all_inner_texts()
    assert names[:2] == ["Winners' round 1", "Winners' round 2"] and "Grand final" in names
    for key in ("W1-1", "W1-2", "GF1"):
        card = prof.locator(f"#series-{key}")
        text = card.inner_text()
        assert len(re.findall(r"\d", text)) >= 2 and card.locator(".won-mark").count() == 1, text
        assert card.locator(".game-score").count() == 2
    assert prof.locator("#bracket text.score.won").count() >= 3
    prof.screenshot(path=str(tmp_path / "double-elimination-1280.png"), full_page=True)
    prof.set_viewport_size(PHONE)
    assert fits(prof), "the bracket scrolls in its box; the page does not"
    prof.screenshot(path=str(tmp_path / "double-elimination-390.png"), full_page=True)
    print(f"screenshots in {tmp_path}")
