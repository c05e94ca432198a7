"""In a real browser (Debian's chromium), with the mail received by a real SMTP server, the whole way a class
starts: an operator runs `manage.py grant_instructor`; the instructor makes a course and an assignment and invites
by roster; the new student follows the mailed invitation, chooses a password, lands enrolled, reads the game's page
from the assignment, downloads the starter and the example bot and uploads the starter as a bot that validates; a
student who already has an account accepts the invitation (their consent) after signing in. And signed out: a join
link, registering, confirming, enrolled."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.accounts.models import Course
from platform_helpers import BROWSER_TIMEOUT_MS, database_url, with_confirmed_email

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "arrival-browser-pass"
ROOT = Path(__file__).resolve().parents[2]
STARTER = (ROOT / "docs" / "bots" / "examples" / "endgame_example.py").read_text()


@pytest.fixture
def site(live_server, smtp_server, settings, django_user_model):
    """The live site mailing through the SMTP server, with links to itself; `prof` has an account (made before
    the browser starts: its event loop forbids database calls in this thread)."""
    settings.ARENA_SITE_URL = live_server.url
    django_user_model.objects.create_user("prof", password=PASSWORD, email="prof@uni.example")
    return live_server.url


def operator_runs(*command: str) -> str:
    """`python manage.py COMMAND...` as the operator types it, on the test database."""
    done = subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "DATABASE_URL": database_url()}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def new_page(browser, **context):
    page = browser.new_context(**context).new_page()
    page.set_default_timeout(BROWSER_TIMEOUT_MS)
    return page


def sign_in(page, site: str, username: str) -> None:
    page.goto(f"{site}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("#profile-link")


@pytest.fixture
def max_account(site, django_user_model):
    """A student who registered before (and confirmed their address): the roster names them too."""
    return with_confirmed_email(django_user_model.objects.create_user("max", password=PASSWORD), "max@uni.example")


def test_an_instructor_makes_a_course_and_a_new_student_arrives_by_the_mailed_invitation_and_uploads_a_bot(
        site, smtp_server, max_account, live_worker, chromium, tmp_path):
    assert operator_runs("grant_instructor", "prof") == "prof can now create courses\n"
    prof = new_page(chromium)
    sign_in(prof, site, "prof")
    prof.click("text=New course")
    prof.fill("input[name=name]", "Algorithms 2027")
    prof.fill("input[name=code]", "algo-2027")
    prof.fill("input[name=time_zone]", "Europe/Paris")
    prof.click("button:has-text('Create course')")
    prof.wait_for_selector("text=Algorithms 2027 created")

    prof.click("nav[aria-label=course] >> text=Assignments")
    prof.fill("input[name=title]", "Lab 1")
    prof.select_option("select[name=game]", "endgame")
    prof.fill("input[name=opens_at]", "2026-01-05T09:00")
    prof.fill("input[name=deadline]", "2099-01-15T23:59")
    prof.fill("textarea[name=starter_code]", STARTER)
    prof.click("button:has-text('Create assignment')")
    prof.wait_for_selector("text=Lab 1 created")

    prof.click("nav[aria-label=course] >> text=People")
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,email,name\n2027-7,zoe@uni.example,Zoe Quinn\n2027-8,max@uni.example,Max Roe\n")
    prof.set_input_files("input[name=file]", str(roster))
    prof.click("button:has-text('Upload roster')")
    prof.wait_for_selector("text=0 enrolled, 2 invited")
    assert "zoe@uni.example" in prof.inner_text("#invitations")

    # The new student: the mailed link, a password, enrolled.
    mail = smtp_server.wait_for("zoe@uni.example", "Algorithms 2027: you are invited")
    zoe = new_page(chromium, accept_downloads=True)
    zoe.goto(mail.link("/invitations/"))
    assert "Zoe Quinn" in zoe.inner_text("#invitation")
    assert zoe.input_value("input[name=username]") == "zoe"
    zoe.fill("input[name=password1]", PASSWORD)
    zoe.fill("input[name=password2]", PASSWORD)
    zoe.click("button:has-text('Create my account and join')")
    zoe.wait_for_selector("text=You are enrolled in Algorithms 2027 (student id 2027-7).")
    assert zoe.inner_text("h1").startswith("Algorithms 2027")
    assert zoe.inner_text("#profile-link") == "zoe"

    # From the course to the assignment, its game's page, the downloads.
    zoe.click("nav[aria-label=course] >> text=Assignments")
    zoe.click("#assignments >> text=Lab 1")
    zoe.click("#write-a-bot >> text=End Game guide")
    zoe.wait_for_selector("article.guide h2")
    downloads = {}
    for link, name in (("Starter code of Lab 1", "starter"), ("endgame_example.py", "example")):
        with zoe.expect_download() as download:
            zoe.click(f".downloads >> text={link}")
        downloads[name] = tmp_path / download.value.suggested_filename
        download.value.save_as(downloads[name])
    assert downloads["starter"].read_bytes() == STARTER.encode()  # as the instructor typed it, byte for byte
    assert "def act(self, observation)" in downloads["example"].read_text()

    # A bot from the game's page, the starter uploaded, validated and listed.
    zoe.fill("#new-bot input[name=name]", "first")
    zoe.click("#new-bot >> button:has-text('Create bot')")
    zoe.wait_for_selector("h1:has-text('zoe/first')")
    zoe.set_input_files("input[type=file]", str(downloads["starter"]))
    zoe.click("button:has-text('Upload')")
    zoe.wait_for_selector("#versions td.status:has-text('accepted (active)')")
    assert "endgame_starter.py" in zoe.inner_text("#versions")

    # The student who had an account: the invitation waits in their inbox and their mail; they accept it.
    mail = smtp_server.wait_for("max@uni.example", "Algorithms 2027: you are invited")
    max_page = new_page(chromium)
    max_page.goto(mail.link("/invitations/"))
    max_page.click("#invitation >> text=Sign in")
    max_page.fill("input[name=username]", "max")
    max_page.fill("input[name=password]", PASSWORD)
    max_page.click("button[type=submit]")
    max_page.click("button:has-text('Accept as max')")
    max_page.wait_for_selector("text=You are enrolled in Algorithms 2027 (student id 2027-8).")

    prof.reload()
    students = prof.inner_text("#students")
    assert "zoe" in students and "2027-7" in students and "max" in students and "2027-8" in students


@pytest.fixture
def course(site):
    return Course.objects.create(code="algo", name="Algorithms")


def test_signed_out_a_join_link_survives_registering_and_confirming(site, course, smtp_server, chromium):
    page = new_page(chromium)
    page.goto(f"{site}/join/{course.invite_code}/")
    page.click("#join >> text=register")
    page.fill("input[name=username]", "newbie")
    page.fill("input[name=email]", "newbie@uni.example")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("button:has-text('Create account')")
    page.wait_for_selector("text=We sent a link to newbie@uni.example")
    assert page.inner_text("h1") == "Join Algorithms"

    mail = smtp_server.wait_for("newbie@uni.example", "Confirm your e-mail address")
    page.goto(mail.link("/accounts/confirm/"))
    page.wait_for_selector("text=newbie@uni.example is confirmed.")
    page.click("button:has-text('Join as newbie')")
    page.wait_for_selector("text=You are enrolled in Algorithms.")
    assert page.url == f"{site}/courses/{course.pk}/"
