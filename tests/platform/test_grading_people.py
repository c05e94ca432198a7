"""Courses' people: the roster CSV, the invitation link, teams, and the role rules of accounts.access."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model

from arena.accounts import people as people_services
from arena.accounts.access import can_see_private, role_in, staffs, teaches
from arena.accounts.models import Course, Invitation, RosterEntry
from arena.bots.models import BotVersion
from arena.grading import services
from arena.grading.presentation import gradebook_csv
from grading_helpers import course_with_people, open_assignment
from platform_helpers import active_bot, with_confirmed_email
from tournament_helpers import accepted_bot

pytestmark = pytest.mark.django_db

ROSTER = (
    "student_id,email,name\n"
    "1001,dana@uni.example,Dana Scully\n"
    "1002,not-an-address,Fox Mulder\n"
    "1003,walt@uni.example,\n"
    "1001,other@uni.example,Someone Else\n"
    "1004,DANA@uni.example,Dana Again\n"
    "1005,eve@uni.example,Eve Moneypenny\n"
)


def test_a_roster_records_its_students_invites_everyone_else_and_is_idempotent(make_user, mailoutbox,
                                                                            django_capture_on_commit_callbacks):
    course, people = course_with_people(make_user)
    with_confirmed_email(people["ann"], "ann@uni.example")
    eve = with_confirmed_email(make_user("eve"), "eve@uni.example")  # has an account, not in the course

    with django_capture_on_commit_callbacks(execute=True):
        report = people_services.import_roster(people["instructor"], course, ROSTER + "1006,ann@uni.example,Ann\n")
    assert report.created == ["1006"] and report.invited == ["1001", "1005"]
    assert [(row["line"], row["reason"]) for row in report.failed] == [
        (3, "'not-an-address' is not an e-mail address"),
        (4, "name is empty"),
        (5, "the same student id as line 2"),
        (6, "the same e-mail as line 2"),
    ]
    assert RosterEntry.objects.get(course=course, student_id="1006").user == people["ann"]
    # Nobody is enrolled without saying yes: eve has an account, dana none; both are mailed an invitation.
    assert not course.students.filter(pk=eve.pk).exists()
    assert not get_user_model().objects.filter(email="dana@uni.example").exists()
    assert sorted(mail.to[0] for mail in mailoutbox) == ["dana@uni.example", "eve@uni.example"]
    assert eve.notifications.get().url == f"/invitations/{Invitation.objects.get(student_id='1005').token}/"

    with django_capture_on_commit_callbacks(execute=True):
        again = people_services.import_roster(people["instructor"], course, ROSTER + "1006,ann@uni.example,Ann\n")
    assert again.created == again.invited == [] and again.unchanged == ["1001", "1005", "1006"]
    assert len(again.failed) == 4 and len(mailoutbox) == 2
    with django_capture_on_commit_callbacks(execute=True):
        corrected = people_services.import_roster(people["instructor"], course,
                                                  "student_id,email,name\n1001,dana@mail.example,Dana K. Scully\n")
    assert corrected.updated == ["1001"] and mailoutbox[-1].to == ["dana@mail.example"]

    assert people_services.accept_invitation(eve, Invitation.objects.get(student_id="1005").token) == course
    assert RosterEntry.objects.get(course=course, user=eve).student_id == "1005"
    dana = people_services.accept_as_new_account(Invitation.objects.get(student_id="1001").token, "dana",
                                                 "a-long-passphrase-77")
    assert dana.check_password("a-long-passphrase-77") and course.students.filter(pk=dana.pk).exists()
    assert dana.profile.email_confirmed  # the invitation was mailed there
    assert not Invitation.objects.pending().exists()
    with pytest.raises(people_services.PeopleError, match="not valid any more"):
        people_services.accept_invitation(make_user("late"), Invitation.objects.get(student_id="1001").token)


def test_rostering_another_courses_student_enrols_nobody_without_consent(make_user, api_client):
    """Issue 24: the instructor of course B names a student of course A in B's roster (the API, by e-mail)."""
    course_a, a = course_with_people(make_user, "algo")
    course_b, b = course_with_people(make_user, "other")
    ann = with_confirmed_email(a["ann"], "ann@uni.example")
    bot = active_bot(ann)
    api_client.force_authenticate(b["instructor"])
    answer = api_client.post(f"/api/courses/{course_b.pk}/roster/",
                             {"text": "student_id,email,name\n77,ann@uni.example,Ann\n"}, format="json")
    assert answer.status_code == 200 and answer.json()["invited"] == ["77"] and answer.json()["created"] == []
    assert role_in(ann, course_b) is None
    listed = api_client.get(f"/api/courses/{course_b.pk}/people/").json()
    assert [(row["student_id"], row["email"]) for row in listed["invitations"]] == [("77", "ann@uni.example")]
    assert "ann@uni.example" not in {row["email"] for row in listed["students"]}
    for staff in (b["instructor"], b["assistant"]):
        assert not can_see_private(staff, bot)
        api_client.force_authenticate(staff)
        assert api_client.get(f"/api/bots/{bot.pk}/versions/").status_code == 403
    # Refusing is ignoring; accepting is her own act, and only then does B's staff see her work.
    people_services.accept_invitation(ann, course_b.invitations.get().token)
    assert role_in(ann, course_b) == "student"


def test_a_course_that_wants_student_ids_asks_at_join_and_exports_them(make_user):
    course, people = course_with_people(make_user)
    course.asks_student_id = True
    course.save()
    newbie = make_user("newbie", email="newbie@uni.example")
    with pytest.raises(people_services.PeopleError, match="asks for your student id"):
        people_services.join(newbie, course.invite_code)
    people_services.join(newbie, course.invite_code, student_id="  2027-42 ")
    entry = RosterEntry.objects.get(course=course, user=newbie)
    assert (entry.student_id, entry.email, entry.name) == ("2027-42", "newbie@uni.example", "newbie")
    with pytest.raises(people_services.PeopleError, match="student id 2027-42 is already enrolled"):
        people_services.join(make_user("copycat"), course.invite_code, student_id="2027-42")
    # The gradebook names them as the institution does (it was ",,newbie,..." for link joiners).
    gradebook = gradebook_csv(open_assignment(people["instructor"], course)).splitlines()
    assert any(line.startswith("2027-42,newbie@uni.example,newbie,") for line in gradebook), gradebook


def test_roster_values_longer_than_their_columns_are_refused_rows(make_user):
    course, people = course_with_people(make_user)
    report = people_services.import_roster(people["instructor"], course,
                                           f"student_id,email,name\n{'9' * 65},long@uni.example,Long Id\n"
                                           f"1,n@uni.example,{'N' * 201}\n")
    assert [row["reason"] for row in report.failed] == ["student_id is longer than 64 characters",
                                                         "name is longer than 200 characters"]
    assert not course.invitations.exists()


def test_only_instructors_upload_rosters_and_a_header_is_required(make_user):
    course, people = course_with_people(make_user)
    with pytest.raises(people_services.PeopleError, match="instructors"):
        people_services.import_roster(people["assistant"], course, ROSTER)
    with pytest.raises(people_services.PeopleError, match="missing: email"):
        people_services.import_roster(people["instructor"], course, "student_id,name\n1,x\n")


def test_the_invitation_link_enrols_and_a_reset_code_stops_the_old_one(make_user):
    course, people = course_with_people(make_user)
    newcomer = make_user("newcomer")
    old = course.invite_code
    assert people_services.join(newcomer, old) == course
    assert role_in(newcomer, course) == "student"
    people_services.reset_invite(people["instructor"], course)
    with pytest.raises(people_services.PeopleError, match="not valid"):
        people_services.join(make_user("late"), old)


def test_roles_across_courses_and_teams(make_user):
    course, people = course_with_people(make_user, "algo")
    other, strangers = course_with_people(make_user, "other")
    team = people_services.create_team(people["instructor"], course, "pair", [people["ann"], people["ben"]])
    assert team.members.count() == 2
    # A TA staffs the course but does not teach it; nobody has a role in a course they are not in.
    assert staffs(people["assistant"], course) and not teaches(people["assistant"], course)
    assert role_in(people["ann"], other) is None and role_in(strangers["assistant"], course) is None


def test_private_material_is_opened_by_submitting_never_by_membership(make_user):
    """Staff see a student's bot once it is submitted to their course's assignment or entered in its
    tournament; team mates once it is submitted for the team. Being in the same course or team opens nothing,
    so that whoever adds a student somewhere (a roster, a link, a team) learns nothing of their other work."""
    from arena.tournaments import services as tournament_services

    course, people = course_with_people(make_user, "algo")
    other, strangers = course_with_people(make_user, "other")
    people_services.create_team(people["instructor"], course, "pair", [people["ann"], people["ben"]])
    ann_bot = accepted_bot(people["ann"], "endgame", "ann", "def act(o):\n    return 'left'\n")
    cat_bot = accepted_bot(people["cat"], "endgame", "cat", "def act(o):\n    return 'left'\n")
    staff, mate = (people["instructor"], people["assistant"]), people["ben"]
    assert can_see_private(people["ann"], ann_bot)
    assert not any(can_see_private(viewer, ann_bot) for viewer in (*staff, mate, people["cat"]))

    # Enrolled in another course too, and in a team there: its staff and team mate still see nothing.
    other.students.add(people["ann"])
    people_services.create_team(strangers["instructor"], other, "pair", [people["ann"], strangers["ann"]])
    outsiders = (strangers["instructor"], strangers["assistant"], strangers["ann"])
    assert not any(can_see_private(viewer, ann_bot) for viewer in outsiders)

    # ann submits it for her team: her course's staff and her team mate see it; nobody of the other course.
    services.submit(people["ann"], open_assignment(people["instructor"], course, team_size=2), ann_bot)
    assert all(can_see_private(viewer, ann_bot) for viewer in (*staff, mate))
    assert not any(can_see_private(viewer, ann_bot) for viewer in (people["cat"], *outsiders))

    # cat's bot, entered in the course's tournament: once cat accepts, its staff see it, its students do not.
    entry = tournament_services.add_entrant(people["instructor"], tournament_services.create_tournament(
        people["instructor"], course, name="cup", game="endgame", format="round-robin"), cat_bot)
    assert not any(can_see_private(viewer, cat_bot) for viewer in staff)
    tournament_services.answer_entry(people["cat"], entry, accept=True)
    assert all(can_see_private(viewer, cat_bot) for viewer in staff)
    assert not any(can_see_private(viewer, cat_bot) for viewer in (mate, people["ann"], *outsiders))


def test_the_queryset_rule_agrees_with_can_see_private_for_every_pair(make_user):
    from django.contrib.auth.models import AnonymousUser

    from arena.accounts.access import bots_with_private_access, with_private_access
    from arena.bots.models import Bot

    course, people = course_with_people(make_user, "algo")
    _, strangers = course_with_people(make_user, "other")
    people_services.create_team(people["instructor"], course, "pair", [people["ann"], people["ben"]])
    everyone = [*people.values(), *strangers.values()]
    bots = {owner.username: accepted_bot(owner, "endgame", "mine", "def act(o):\n    return 'left'\n")
            for owner in everyone}
    services.submit(people["ann"], open_assignment(people["instructor"], course, team_size=2), bots["algo-ann"])
    services.submit(people["cat"], open_assignment(people["instructor"], course), bots["algo-cat"])
    builtin = Bot.objects.builtin("endgame", "greedy")
    owners_by_bot = {bot.pk: bot.owner_id for bot in bots.values()} | {builtin.pk: None}
    operator = make_user("operator", is_superuser=True)
    for viewer in [*everyone, operator, AnonymousUser()]:
        expected = {bot.pk for bot in bots.values() if can_see_private(viewer, bot)}
        visible = set(with_private_access(Bot.objects.exclude(owner=None), viewer, "").values_list("pk", flat=True))
        assert visible == expected, viewer.username
        # The match pages' rule for a whole page of seats at once (a built-in bot has no private material).
        assert bots_with_private_access(viewer, owners_by_bot) == expected, viewer.username
    assert {bot.owner.username for bot in bots.values() if can_see_private(people["instructor"], bot)} == {
        "algo-ann", "algo-cat", "algo-teacher"}


def test_a_student_is_in_one_team_per_course_and_teams_hold_only_its_students(make_user):
    course, people = course_with_people(make_user)
    _, strangers = course_with_people(make_user, "other")
    people_services.create_team(people["instructor"], course, "pair", [people["ann"], people["ben"]])
    with pytest.raises(people_services.PeopleError, match="already in a team of this course: algo-ben"):
        people_services.create_team(people["instructor"], course, "trio", [people["ben"], people["cat"]])
    with pytest.raises(people_services.PeopleError, match="not students of"):
        people_services.create_team(people["instructor"], course, "mixed", [people["cat"], strangers["ann"]])
    with pytest.raises(people_services.PeopleError, match="instructors"):
        people_services.create_team(people["assistant"], course, "ta-made", [people["cat"]])


def test_an_upload_one_second_late_is_not_graded_as_on_time(make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, late_cutoff_days=0)
    bot = accepted_bot(people["ann"], "endgame", "mine", "def act(o):\n    return 'left'\n")
    first = bot.versions.get()
    BotVersion.objects.filter(pk=first.pk).update(uploaded_at=assignment.deadline)  # exactly on time
    second = accepted_bot(people["ann"], "endgame", "tmp", "def act(o):\n    return 'right'\n").versions.get()
    second.bot, second.number = bot, 2
    second.save()
    BotVersion.objects.filter(pk=second.pk).update(uploaded_at=assignment.deadline + timedelta(seconds=1))

    graded = services.graded_version(assignment, bot)
    assert graded.version == first and graded.late_days == 0

    BotVersion.objects.filter(pk=first.pk).delete()
    assert services.graded_version(assignment, bot).version is None  # no late work accepted
    assignment.late_cutoff_days, assignment.late_penalty_per_day = 3, 10
    assignment.save()
    late = services.graded_version(assignment, bot)
    assert late.version == second and late.late_days == 1  # one second into the first day late
    assert services.late_factor(assignment, late.late_days) == pytest.approx(0.9)


def test_submissions_follow_the_roles_and_teams(make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, team_size=2)
    ann_bot = accepted_bot(people["ann"], "endgame", "ann", "def act(o):\n    return 'left'\n")
    with pytest.raises(services.GradingError, match="for teams"):
        services.submit(people["ann"], assignment, ann_bot)
    people_services.create_team(people["instructor"], course, "pair", [people["ann"], people["ben"]])
    # ann's bot is not offered to her team mate: submitting it would show him its code, her choice alone.
    assert ann_bot not in services.visible_bots(people["ben"], assignment)
    with pytest.raises(services.GradingError, match="each member submits their own"):
        services.submit(people["ben"], assignment, ann_bot)
    # ann submits it; it is the team's one submission, and ben sees it as his.
    submission = services.submit(people["ann"], assignment, ann_bot)
    assert services.submission_of(people["ben"], assignment) == submission
    with pytest.raises(services.GradingError, match="only the course's students"):
        services.submit(people["assistant"], assignment, ann_bot)
    people_services.create_team(people["instructor"], course, "solo", [people["cat"]])
    with pytest.raises(services.GradingError, match="your own bots"):
        services.submit(people["cat"], assignment, ann_bot)
    with pytest.raises(services.GradingError, match="instructors"):
        services.update_assignment(people["assistant"], assignment, deadline=assignment.deadline)
    with pytest.raises(services.GradingError, match="instructors"):
        services.add_part(people["assistant"], assignment, "win_rate", 10)
    assert Course.objects.for_user(people["assistant"]).get() == course


def test_submissions_open_at_the_opening_and_close_at_the_deadline_or_the_late_cut_off(make_user):
    from django.utils import timezone

    from arena.grading.models import Assignment

    course, people = course_with_people(make_user)
    now = timezone.now()
    assignment = open_assignment(people["instructor"], course, opens_at=now + timedelta(hours=1),
                                 deadline=now + timedelta(days=1))
    bot = accepted_bot(people["ann"], "endgame", "mine", "def act(o):\n    return 'left'\n")
    with pytest.raises(services.GradingError, match="not open yet"):
        services.submit(people["ann"], assignment, bot)
    Assignment.objects.filter(pk=assignment.pk).update(opens_at=now - timedelta(days=3), deadline=now - timedelta(days=1))
    assignment.refresh_from_db()
    with pytest.raises(services.GradingError, match="the deadline has passed"):
        services.submit(people["ann"], assignment, bot)
    assignment.late_cutoff_days = 2  # late work is still accepted for another day
    assignment.save()
    assert services.submit(people["ann"], assignment, bot).bot == bot
