"""In a real browser: an instructor creates and starts a tournament, and its bracket fills in live."""

import pytest

from tournament_helpers import course_with_bots

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def course(make_user):
    # Created before the browser starts: its event loop forbids database calls in this thread.
    course, instructor, bots = course_with_bots(make_user, "endgame", 4)
    for person in (instructor, *(bot.owner for bot in bots)):
        person.set_password("teacher-browser-pass")
        person.save()
    return course, bots


def sign_in(page, url, username):
    page.goto(f"{url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "teacher-browser-pass")
    page.click("button[type=submit]")


def test_an_instructor_starts_a_tournament_and_the_bracket_fills_in_live(live_server, live_worker, course, chromium,
                                                                        browser_page, tmp_path):
    course, bots = course
    page = browser_page
    sign_in(page, live_server.url, "teacher")

    page.goto(f"{live_server.url}/courses/{course.pk}/tournaments/")
    page.fill("input[name=name]", "Browser cup")
    page.select_option("select[name=game]", "endgame")
    page.select_option("select[name=format]", "single-elimination")
    page.select_option("select[name=seeding]", "given")
    page.click("button:has-text('Create draft')")
    page.wait_for_selector("h1:has-text('Browser cup')")
    for bot in bots:
        page.select_option("select[name=bot]", label=bot.label)
        page.click("button:has-text('Enter')")
        page.wait_for_selector(f"#entrants td:has-text('{bot.label}')")
    # Each student's bot plays only once its owner accepts, on the bot's page in their own browser.
    for bot in bots:
        student = chromium.new_context().new_page()
        sign_in(student, live_server.url, bot.owner.username)
        student.goto(f"{live_server.url}/bots/{bot.pk}/")
        student.click("button:has-text('Accept')")
        student.wait_for_load_state()
        student.context.close()
    page.reload()
    page.click("button:has-text('Start')")
    page.wait_for_selector("#bracket")
    assert page.locator("#bracket g.bracket-series").count() == 3
    page.screenshot(path=str(tmp_path / "bracket-started.png"), full_page=True)

    # From here on nothing reloads the page: the marker survives only if the bracket updates in place.
    page.evaluate("window.stillTheSamePage = true")
    page.wait_for_selector("#champion", timeout=180_000)
    assert page.evaluate("window.stillTheSamePage") is True
    assert page.locator("#bracket g.series-decided").count() == 3
    assert page.locator("#bracket text.won").count() >= 3  # each series shows its winner
    assert "3 of 3 series decided" in page.inner_text("#progress")
    assert page.locator("#controls").count() == 0, "a finished tournament offers no pause or cancel"
    page.set_viewport_size({"width": 390, "height": 800})  # a student's phone
    page.screenshot(path=str(tmp_path / "bracket-finished-phone.png"), full_page=True)
    print(f"screenshots in {tmp_path}")
