"""Arrivals that stick, with the mail delivered by a real SMTP server and its links followed: a join link
survives signing in and registering; registration confirms the address by a mailed link; a roster invitation
lets a new student choose a password and lands them enrolled; the password reset works (also for accounts
rostered before invitations, which had no password) and is the site's page; the profile page."""

from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from arena.accounts.models import Course, Profile, RosterEntry, profile_of

pytestmark = pytest.mark.django_db(transaction=True)
SITE = "http://testserver"


@pytest.fixture
def course(make_user, settings):
    settings.ARENA_SITE_URL = SITE
    course = Course.objects.create(code="algo", name="Algorithms", asks_student_id=True)
    course.instructors.add(make_user("prof", email="prof@uni.example"))
    return course


def path_of(link: str) -> str:
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}" == SITE, link
    return parts.path + (f"?{parts.query}" if parts.query else "")



def test_registering_through_the_api_asks_for_an_address_and_mails_the_link_that_confirms_it(smtp_server, settings):
    from rest_framework.test import APIClient

    settings.ARENA_SITE_URL = SITE
    api = APIClient()
    refused = api.post("/api/auth/register/", {"username": "scripted", "password": "a-long-passphrase-77"})
    assert refused.status_code == 400 and "email" in refused.json()
    assert api.post("/api/auth/register/", {"username": "scripted", "email": "not an address",
                                            "password": "a-long-passphrase-77"}).status_code == 400
    registered = api.post("/api/auth/register/", {"username": "scripted", "email": "scripted@uni.example",
                                                  "password": "a-long-passphrase-77"}, format="json")
    assert registered.status_code == 201 and registered.json()["email"] == "scripted@uni.example"
    scripted = get_user_model().objects.get(username="scripted")
    assert scripted.email == "scripted@uni.example" and not profile_of(scripted).email_confirmed

    mail = smtp_server.wait_for("scripted@uni.example", "Confirm your e-mail address")
    confirmed = Client().get(path_of(mail.link("/accounts/confirm/")), follow=True)
    assert "scripted@uni.example is confirmed." in confirmed.content.decode()
    assert Profile.objects.get(user=scripted).email_confirmed

def test_signed_out_a_join_link_leads_through_registration_and_confirmation_to_enrolment(client, course,
                                                                                        smtp_server):
    join = f"/join/{course.invite_code}/"
    page = client.get(join).content.decode()
    assert "Join Algorithms" in page and f'href="/register/?next=/join/{course.invite_code}/"' in page
    sign_in = client.get(f"/accounts/login/?next={join}").content.decode()
    assert f'href="/register/?next=/join/{course.invite_code}/"' in sign_in  # Register keeps the way

    registered = client.post("/register/", {"username": "newbie", "email": "newbie@uni.example", "next": join,
                                            "password1": "a-long-passphrase-77", "password2": "a-long-passphrase-77"})
    assert registered.status_code == 302 and registered["Location"] == join
    newbie = get_user_model().objects.get(username="newbie")
    assert not profile_of(newbie).email_confirmed

    mail = smtp_server.wait_for("newbie@uni.example", "Confirm your e-mail address")
    confirmed = client.get(path_of(mail.link("/accounts/confirm/")))
    assert confirmed.status_code == 302 and confirmed["Location"] == join
    assert Profile.objects.get(user=newbie).email_confirmed
    assert "Join as newbie" in client.get(join).content.decode()
    joined = client.post(join, {"student_id": "2027-42"}, follow=True)
    assert joined.redirect_chain[-1][0] == f"/courses/{course.pk}/"
    assert "You are enrolled in Algorithms." in joined.content.decode()
    entry = RosterEntry.objects.get(course=course, user=newbie)
    assert (entry.student_id, entry.email) == ("2027-42", "newbie@uni.example")

    # A forged or foreign next never leaves the site.
    client.logout()
    elsewhere = client.post("/register/", {"username": "other", "email": "o@uni.example", "next": "https://evil.example/",
                                           "password1": "a-long-passphrase-77", "password2": "a-long-passphrase-77"})
    assert elsewhere["Location"] == "/"


def test_signing_in_from_a_join_link_comes_back_to_it(client, course, make_user):
    make_user("ann")
    join = f"/join/{course.invite_code}/"
    assert client.post(join)["Location"] == f"/accounts/login/?next=/join/{course.invite_code}/"
    signed_in = client.post("/accounts/login/", {"username": "ann", "password": "ann-pass-1234", "next": join})
    assert signed_in["Location"] == join


def test_a_new_student_follows_the_mailed_invitation_sets_a_password_and_is_enrolled(client, course, smtp_server):
    client.force_login(course.instructors.get())
    roster = SimpleUploadedFile("roster.csv", b"student_id,email,name\n2027-7,zoe@uni.example,Zoe Quinn\n")
    uploaded = client.post(f"/courses/{course.pk}/people/roster/", {"file": roster}, follow=True).content.decode()
    assert "0 enrolled, 1 invited" in uploaded and "zoe@uni.example" in uploaded.split('id="invitations"')[1]
    assert not get_user_model().objects.filter(email="zoe@uni.example").exists()

    mail = smtp_server.wait_for("zoe@uni.example", "Algorithms: you are invited")
    assert "Zoe Quinn" in mail.body and "2027-7" in mail.body
    link = path_of(mail.link("/invitations/"))
    zoe = Client()
    page = zoe.get(link).content.decode()
    assert "Create my account and join" in page and 'value="zoe"' in page  # a username suggested
    assert not course.students.exists()  # opening the link enrols no one
    joined = zoe.post(link, {"username": "zoe", "password1": "a-long-passphrase-77",
                             "password2": "a-long-passphrase-77"}, follow=True)
    assert joined.redirect_chain[-1][0] == f"/courses/{course.pk}/"
    assert "You are enrolled in Algorithms (student id 2027-7)." in joined.content.decode()
    student = course.students.get()
    assert (student.username, student.email) == ("zoe", "zoe@uni.example") and profile_of(student).email_confirmed
    assert RosterEntry.objects.get(course=course).user == student
    assert Client().login(username="zoe", password="a-long-passphrase-77")
    assert "not valid any more" in zoe.get(link, follow=True).content.decode()  # used once


def test_the_password_reset_is_the_sites_page_and_works_for_accounts_without_a_password(client, smtp_server):
    rostered = get_user_model().objects.create_user("dana", email="dana@uni.example")
    rostered.set_unusable_password()  # as the roster made accounts before invitations
    rostered.save()
    page = client.get("/accounts/password_reset/").content.decode()
    assert 'class="site-header"' in page and "Django administration" not in page

    sent = client.post("/accounts/password_reset/", {"email": "DANA@uni.example"})
    assert sent["Location"] == "/accounts/password_reset/done/"
    mail = smtp_server.wait_for("dana@uni.example", "Set your password")
    form = client.get(urlsplit(mail.link("/accounts/reset/")).path, follow=True)
    assert "Set a new password" in form.content.decode()
    done = client.post(form.redirect_chain[-1][0], {"new_password1": "a-long-passphrase-77",
                                                    "new_password2": "a-long-passphrase-77"}, follow=True)
    assert "Your new password is set" in done.content.decode()
    assert Client().login(username="dana", password="a-long-passphrase-77")


def test_the_profile_changes_name_address_and_time_zone(client, make_user, smtp_server, settings):
    settings.ARENA_SITE_URL = SITE
    ada = make_user("ada", email="ada@uni.example")
    client.force_login(ada)
    page = client.get("/accounts/profile/").content.decode()
    assert 'href="/accounts/password_change/"' in page and 'id="api-token"' in page
    assert client.post("/accounts/profile/", {"display_name": "Ada L.", "email": "ada@uni.example",
                                              "time_zone": "Mars/Olympus"}).status_code == 400
    client.post("/accounts/profile/", {"display_name": "Ada L.", "email": "ada@new.example",
                                       "time_zone": "Asia/Tokyo"})
    profile = profile_of(get_user_model().objects.get(pk=ada.pk))
    assert (profile.display_name, profile.time_zone, profile.user.email) == ("Ada L.", "Asia/Tokyo", "ada@new.example")
    assert not profile.email_confirmed
    mail = smtp_server.wait_for("ada@new.example", "Confirm your e-mail address")
    assert client.get(path_of(mail.link("/accounts/confirm/")))["Location"] == "/accounts/profile/"
    assert "ada@new.example is confirmed." in client.get("/accounts/profile/").content.decode()
    changed = client.post("/accounts/password_change/", {"old_password": "ada-pass-1234", "new_password1": "another-passphrase-8",
                                                         "new_password2": "another-passphrase-8"}, follow=True)
    assert "Your password is changed" in changed.content.decode()
