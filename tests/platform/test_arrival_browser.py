"""In a real browser (Debian's chromium), with the mail received by a real SMTP server: an instructor an operator
made makes a course and invites by roster; the new student follows the mailed invitation, chooses a password,
lands enrolled and opens the course. And signed out: a join link, registering, confirming, enrolled."""

import pytest
from django.core.management import call_command

from arena.accounts.models import Course
from platform_helpers import BROWSER_TIMEOUT_MS

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "arrival-browser-pass"


@pytest.fixture
def site(live_server, smtp_server, settings, django_user_model):
    """The live site mailing through the SMTP server, with links to itself; the operator has made `prof` an
    instructor (before the browser starts: its event loop forbids database calls in this thread)."""
    settings.ARENA_SITE_URL = live_server.url
    django_user_model.objects.create_user("prof", password=PASSWORD, email="prof@uni.example")
    call_command("grant_instructor", "prof")
    return live_server.url


def new_page(browser):
    page = browser.new_context().new_page()
    page.set_default_timeout(BROWSER_TIMEOUT_MS)
    return page


def test_an_instructor_makes_a_course_and_a_new_student_arrives_by_the_mailed_invitation(site, smtp_server,
                                                                                         chromium, tmp_path):
    prof = new_page(chromium)
    prof.goto(f"{site}/accounts/login/")
    prof.fill("input[name=username]", "prof")
    prof.fill("input[name=password]", PASSWORD)
    prof.click("button[type=submit]")
    prof.click("text=New course")
    prof.fill("input[name=name]", "Algorithms 2027")
    prof.fill("input[name=code]", "algo-2027")
    prof.fill("input[name=time_zone]", "Europe/Paris")
    prof.click("button:has-text('Create course')")
    prof.wait_for_selector("text=Algorithms 2027 created")
    prof.click("nav[aria-label=course] >> text=People")
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,email,name\n2027-7,zoe@uni.example,Zoe Quinn\n")
    prof.set_input_files("input[name=file]", str(roster))
    prof.click("button:has-text('Upload roster')")
    prof.wait_for_selector("text=0 enrolled, 1 invited")
    assert "zoe@uni.example" in prof.inner_text("#invitations")

    mail = smtp_server.wait_for("zoe@uni.example", "Algorithms 2027: you are invited")
    zoe = new_page(chromium)
    zoe.goto(mail.link("/invitations/"))
    assert "Zoe Quinn" in zoe.inner_text("#invitation")
    assert zoe.input_value("input[name=username]") == "zoe"
    zoe.fill("input[name=password1]", PASSWORD)
    zoe.fill("input[name=password2]", PASSWORD)
    zoe.click("button:has-text('Create my account and join')")
    zoe.wait_for_selector("text=You are enrolled in Algorithms 2027 (student id 2027-7).")
    assert zoe.inner_text("h1").startswith("Algorithms 2027")
    zoe.click("nav[aria-label=course] >> text=Assignments")
    zoe.wait_for_selector("#assignments")
    assert zoe.inner_text("#profile-link") == "zoe"

    prof.reload()
    assert "zoe" in prof.inner_text("#students") and "2027-7" in prof.inner_text("#students")


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
