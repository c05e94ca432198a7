"""Instructors on the site: an operator lets a user create courses; the instructor makes one, names a
co-instructor, and reaches the course's people, assignments, tournaments and variants from its navigation."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from arena.accounts.access import role_in, teaches
from arena.accounts.models import Course

pytestmark = pytest.mark.django_db


def test_only_a_user_an_operator_granted_creates_a_course_and_teaches_it(client, make_user):
    prof = make_user("prof")
    client.force_login(prof)
    assert client.get("/courses/new/").status_code == 403
    assert "New course" not in client.get("/").content.decode()

    call_command("grant_instructor", "prof")
    home = client.get("/").content.decode()
    assert 'href="/courses/new/"' in home
    response = client.post("/courses/new/", {"name": "Algorithms 2027", "code": "algo-2027",
                                             "time_zone": "Europe/Paris", "asks_student_id": "on"}, follow=True)
    course = Course.objects.get(code="algo-2027")
    assert response.redirect_chain[-1][0] == f"/courses/{course.pk}/"
    assert course.asks_student_id and course.time_zone == "Europe/Paris" and role_in(prof, course) == "instructor"
    page = response.content.decode()
    nav = page.split('aria-label="course"')[1].split("</nav>")[0]
    for url in (f"/courses/{course.pk}/assignments/", f"/courses/{course.pk}/tournaments/",
                f"/courses/{course.pk}/people/", f"/courses/{course.pk}/#variants"):
        assert f'href="{url}"' in nav, url
    # Each of those pages carries the same navigation, with itself marked.
    for url in (f"/courses/{course.pk}/assignments/", f"/courses/{course.pk}/tournaments/",
                f"/courses/{course.pk}/people/"):
        shown = client.get(url).content.decode()
        assert f'href="{url}" aria-current="page"' in shown, url

    again = client.post("/courses/new/", {"name": "Again", "code": "algo-2027", "time_zone": "UTC"})
    assert again.status_code == 400 and "already exists" in again.content.decode()
    bad_zone = client.post("/courses/new/", {"name": "Mars", "code": "mars", "time_zone": "Mars/Olympus"})
    assert bad_zone.status_code == 400 and "is not a time zone name" in bad_zone.content.decode()

    call_command("grant_instructor", "prof", "--revoke")
    assert client.get("/courses/new/").status_code == 403
    assert teaches(prof, course)  # the course they made stays theirs
    with pytest.raises(CommandError, match="no user named"):
        call_command("grant_instructor", "nobody")


def test_an_instructor_names_a_co_instructor_and_a_teaching_assistant(client, api_client, make_user):
    prof, colleague, helper, student = (make_user(name) for name in ("prof", "colleague", "helper", "stu"))
    course = Course.objects.create(code="algo", name="Algorithms")
    course.instructors.add(prof)
    course.students.add(student)
    client.force_login(prof)
    client.post(f"/courses/{course.pk}/people/assistants/", {"username": "helper"})
    client.post(f"/courses/{course.pk}/people/instructors/", {"username": "colleague"})
    assert role_in(helper, course) == "assistant" and role_in(colleague, course) == "instructor"
    refused = client.post(f"/courses/{course.pk}/people/instructors/", {"username": "stu"}, follow=True)
    assert "stu is a student of Algorithms" in refused.content.decode()
    assert role_in(student, course) == "student"

    # The API does the same; an assistant promoted to co-instructor holds one role.
    api_client.force_authenticate(colleague)
    answer = api_client.post(f"/api/courses/{course.pk}/instructors/", {"username": "helper"}, format="json")
    assert answer.status_code == 201 and answer.json()["username"] == "helper"
    assert not course.teaching_assistants.filter(pk=helper.pk).exists() and teaches(helper, course)
    api_client.force_authenticate(student)
    assert api_client.post(f"/api/courses/{course.pk}/instructors/", {"username": "stu"},
                           format="json").status_code == 403


def test_an_instructor_decides_whether_joining_asks_for_a_student_id(client, make_user):
    prof, student = make_user("prof"), make_user("stu")
    course = Course.objects.create(code="algo", name="Algorithms")
    course.instructors.add(prof)
    course.students.add(student)
    client.force_login(prof)
    client.post(f"/courses/{course.pk}/people/student-ids/", {"asks_student_id": "on"})
    course.refresh_from_db()
    assert course.asks_student_id
    client.force_login(make_user("newcomer"))
    assert 'name="student_id"' in client.get(f"/join/{course.invite_code}/").content.decode()
    client.force_login(student)
    assert client.post(f"/courses/{course.pk}/people/student-ids/", {}).status_code == 403
