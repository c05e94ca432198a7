"""In a real browser (Debian's chromium) with a real Celery worker and the Docker sandbox: an instructor
creates an assignment with a rubric, students submit their uploaded bots, grading runs with its progress
bar, and the instructor opens a student's drill-down and downloads the gradebook CSV."""

import csv
import io
import zoneinfo
from datetime import timedelta

import pytest
from django.utils import timezone

from arena.accounts.models import Course
from arena.bots.models import BotVersion
from arena.bots.services import create_bot, upload_version
from platform_helpers import BROWSER_TIMEOUT_MS, EXAMPLE_BOT, wait_for
from tournament_helpers import LOOKAHEAD_BOT

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "grading-browser-pass"


@pytest.fixture
def classroom(django_user_model, live_worker):
    """An instructor and two students whose uploaded bots the worker has validated (before the browser
    starts: its event loop forbids database calls in this thread)."""
    users = {name: django_user_model.objects.create_user(name, password=PASSWORD) for name in ("prof", "ann", "ben")}
    course = Course.objects.create(code="algo", name="Algorithms", time_zone="Europe/Paris")
    course.instructors.add(users["prof"])
    course.students.add(users["ann"], users["ben"])
    for name, code in (("ann", EXAMPLE_BOT), ("ben", LOOKAHEAD_BOT.encode())):
        upload_version(create_bot(users[name], "endgame", f"{name}-bot"), code, "bot.py")
    wait_for(lambda: not BotVersion.objects.filter(status=BotVersion.Status.VALIDATING).exists(), 120,
             "the worker to validate the uploads")
    assert BotVersion.objects.filter(status=BotVersion.Status.ACCEPTED).count() == 2
    return course


def signed_in(browser, url, username):
    page = browser.new_context(accept_downloads=True).new_page()
    page.set_default_timeout(BROWSER_TIMEOUT_MS)
    page.goto(f"{url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("text=Your bots")
    return page


def test_an_instructor_builds_an_assignment_grades_it_and_exports_the_csv(live_server, classroom, chromium):
    paris = timezone.now().astimezone(zoneinfo.ZoneInfo("Europe/Paris"))
    prof = signed_in(chromium, live_server.url, "prof")
    prof.goto(f"{live_server.url}/courses/{classroom.pk}/assignments/")
    prof.fill("input[name=title]", "Beat greedy")
    prof.select_option("select[name=game]", "endgame")
    prof.fill("input[name=opens_at]", (paris - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"))
    prof.fill("input[name=deadline]", (paris + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"))
    prof.click("button:has-text('Create assignment')")
    prof.wait_for_selector("text=now build its rubric")
    assert "CET" in prof.inner_text("#deadline") or "CEST" in prof.inner_text("#deadline")
    for kind, weight in (("win_rate", "80"), ("reliability", "20")):  # each kind's own form, no JSON
        prof.click(f"#add-{kind} summary")
        prof.fill(f"input[name={kind}-weight]", weight)
        prof.select_option(f"select[name={kind}-opponent]", "greedy")
        prof.fill(f"input[name={kind}-games]", "2")
        prof.click(f"#add-{kind} button:has-text('Add this part')")
        prof.wait_for_selector("text=Part added")
    assert prof.locator("#rubric tbody tr").count() == 2
    assignment_url = prof.url

    for student in ("ann", "ben"):
        page = signed_in(chromium, live_server.url, student)
        page.goto(assignment_url)
        page.select_option("select[name=bot]", label=f"{student}/{student}-bot")
        page.click("button:has-text('Submit this bot')")
        page.wait_for_selector(f"#submission:has-text('{student}/{student}-bot')")
        page.context.close()

    prof.reload()
    assert prof.inner_text("#missing") == "Everyone has submitted."
    prof.click("#run-grading")
    prof.wait_for_selector("#run .progress-bar")
    # The bar polls the run; once every game has been played the page reloads with the grades.
    prof.wait_for_selector("#run-status:has-text('finished')")
    prof.wait_for_selector("#grades a.total")
    assert prof.locator("#histogram rect").count() == 10

    prof.click("#grades tr:has-text('ann') a.total")
    prof.wait_for_selector("#graded-version:has-text('v1')")
    assert prof.locator("section.part").count() == 2
    assert prof.locator("section.part a.replay").count() == 4  # both parts: the same two games vs greedy
    prof.go_back()
    with prof.expect_download() as download:
        prof.click("#export")
    lines = list(csv.reader(io.StringIO(open(download.value.path()).read())))
    assert lines[0][:4] == ["student_id", "email", "name", "total"] and lines[0][-1] == "late_days"
    assert sorted(line[2] for line in lines[1:]) == ["ann", "ben"]
    assert all(float(line[3]) >= 0 for line in lines[1:])
