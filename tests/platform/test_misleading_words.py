"""Words that must say what is true: a week before the deadline nothing is "not uploaded in time"; the students
whose only bots were rejected are named under the bots with no version that passed validation (it said
"None"); a course with no students does not read "Everyone has submitted."; the home page is not "Arena · Arena"."""

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.accounts.models import Course
from arena.bots.models import BotVersion
from arena.grading import services
from grading_helpers import course_with_people, open_assignment
from tournament_helpers import accepted_bot

pytestmark = pytest.mark.django_db


def rejected_bot(owner, name):
    bot = accepted_bot(owner, "endgame", name, "def act(o):\n    return 'middle'\n")
    BotVersion.objects.filter(bot=bot).update(status=BotVersion.Status.REJECTED)
    return bot


def test_before_the_deadline_nothing_is_said_to_be_late(make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, deadline=timezone.now() + timedelta(days=7),
                                 late_cutoff_days=2, late_penalty_per_day=10)
    now = timezone.now()
    assert services.counting_version(assignment, [], now).note == "no version has passed validation yet"
    after = services.counting_version(assignment, [], assignment.deadline + timedelta(hours=1)).note
    assert "before the late cut-off counts" in after
    closed = services.counting_version(assignment, [], assignment.closes_at + timedelta(hours=1)).note
    assert closed == "no version that passed validation was uploaded by the deadline or the late cut-off"


def test_students_whose_only_bots_were_rejected_are_named(client, make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course)
    rejected_bot(people["ann"], "anns")  # never submitted: it could not pass
    services.submit(people["ben"], assignment, rejected_bot(people["ben"], "bens"))
    client.force_login(people["instructor"])
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    failing = page.split('id="failing"')[1].split("</p>")[0]
    assert "algo-ann" in failing and "algo-ben" in failing and "algo-cat" not in failing
    assert "None." not in failing and "every upload of this bot failed validation" in failing
    assert "no version has passed validation yet" in failing and "in time" not in failing


def test_a_course_with_no_students_does_not_say_everyone_has_submitted(client, make_user):
    teacher = make_user("teacher")
    course = Course.objects.create(code="empty", name="Empty")
    course.instructors.add(teacher)
    assignment = open_assignment(teacher, course)
    client.force_login(teacher)
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert "Everyone has submitted." not in page and "no students yet" in page


def test_the_home_page_has_a_title_of_its_own(client, make_user):
    assert "<title>Arena · Arena</title>" not in client.get("/").content.decode()
    client.force_login(make_user("ann"))
    assert "<title>Arena · Arena</title>" not in client.get("/").content.decode()
