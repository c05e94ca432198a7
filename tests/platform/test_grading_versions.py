"""Grades belong to versions: a grade records the bot and the version it graded, and every way a submission
changes after a run (another bot, a new upload before or after the deadline, a late one, a team change, a
withdrawal) shows "not graded yet" beside the last grade of what was graded, on every page, never an error.
And the student's side of a deadline: its state, which version counts, the late days and penalty now."""

import hashlib
from datetime import timedelta

import pytest
from django.utils import timezone

from arena.accounts import people as people_services
from arena.bots.models import BotVersion
from arena.grading import runs, services
from grading_helpers import course_with_people, open_assignment, play_run, submitted_bots
from tournament_helpers import accepted_bot

pytestmark = pytest.mark.django_db
LEFT_BOT = "def act(o):\n    return 'left'\n"


@pytest.fixture(autouse=True)
def trusted_bots(in_process_sandbox):
    """The tests' own bots run as plain processes here."""


@pytest.fixture
def graded(make_user):
    """ann's bot graded (2 games against greedy, 10 points); late work accepted for 2 days at 10% a day."""
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, late_cutoff_days=2, late_penalty_per_day=10)
    services.add_part(people["instructor"], assignment, "reliability", 10, {"opponent": "greedy", "games": 2})
    bots = submitted_bots(assignment, people, codes={"ann": LEFT_BOT})
    run = play_run(runs.start_run(people["instructor"], assignment))
    return {"assignment": assignment, "people": people, "bot": bots["ann"], "run": run,
            "submission": assignment.submissions.get()}


def upload(bot, uploaded_at, status=BotVersion.Status.ACCEPTED, code=LEFT_BOT) -> BotVersion:
    number = bot.versions.count() + 1
    data = f"{code}# v{number}\n".encode()
    version = BotVersion.objects.create(bot=bot, number=number, filename="bot.py", code=data.decode(), size=len(data),
                                        sha256=hashlib.sha256(data).hexdigest(), status=status)
    BotVersion.objects.filter(pk=version.pk).update(uploaded_at=uploaded_at)
    return version


def pages(client, graded, viewer="ann"):
    """The student's assignment page, the grade page and the instructor's drill-down: all must answer."""
    assignment, submission = graded["assignment"], graded["submission"]
    client.force_login(graded["people"][viewer])
    own = client.get(f"/assignments/{assignment.pk}/")
    grade = client.get(f"/assignments/{assignment.pk}/grades/{submission.pk}/")
    client.force_login(graded["people"]["instructor"])
    drill = client.get(f"/assignments/{assignment.pk}/grades/{submission.pk}/")
    dashboard = client.get(f"/assignments/{assignment.pk}/")
    assert [own.status_code, grade.status_code, drill.status_code, dashboard.status_code] == [200] * 4
    return own.content.decode(), grade.content.decode(), drill.content.decode(), dashboard.content.decode()


def grades_row(dashboard: str, student: str) -> str:
    return next(row for row in dashboard.split('id="grades"')[1].split("<tr>") if student in row)


def test_a_grade_records_the_bot_and_version_it_graded(graded):
    grade = graded["run"].grades.get()
    assert grade.bot == graded["bot"] and grade.version == graded["bot"].versions.get()


def test_another_bot_shows_not_graded_yet_beside_the_old_grade_and_the_student_can_switch_back(client, graded):
    people, assignment, old_bot = graded["people"], graded["assignment"], graded["bot"]
    new_bot = accepted_bot(people["ann"], "endgame", "second", LEFT_BOT)
    BotVersion.objects.filter(bot=new_bot).update(uploaded_at=assignment.deadline - timedelta(hours=2))
    services.submit(people["ann"], assignment, new_bot)

    own, grade, drill, dashboard = pages(client, graded)
    for page in (own, grade, drill):
        assert "not graded yet for this bot" in page
        assert "algo-ann/ann-bot v1" in page  # the last grade, named by what it graded
    assert "10 / 10" in own  # the old grade, out of the maximum
    row = grades_row(dashboard, "algo-ann")
    assert "algo-ann/second" in row and "not graded yet for this bot" in row and "last grade, of algo-ann/ann-bot v1" in row
    assert "algo-ann/second v1" not in row  # the old grade is not shown under the new bot's name
    client.force_login(people["ann"])
    api = client.get(f"/api/assignments/{assignment.pk}/grades/").json()[0]
    assert api["bot"] == old_bot.pk and api["pending"] == "not graded yet for this bot"

    # ann switches back, from the page that used to fail: her grade is hers again.
    assert client.post(f"/assignments/{assignment.pk}/submit/", {"bot": old_bot.pk}).status_code == 302
    own, grade, drill, dashboard = pages(client, graded)
    assert "not graded yet" not in own and "Your grade" in own
    assert "not graded yet" not in grades_row(dashboard, "algo-ann")

    # Once graded again, the new bot's grade is its own.
    services.submit(people["ann"], assignment, new_bot)
    play_run(runs.start_run(people["instructor"], assignment))
    own, grade, drill, dashboard = pages(client, graded)
    assert "not graded yet" not in own and "Your grade" in own
    assert "algo-ann/second v1" in grades_row(dashboard, "algo-ann")


def test_a_new_upload_before_the_deadline_is_not_graded_yet(client, graded):
    upload(graded["bot"], graded["assignment"].deadline - timedelta(minutes=30))
    own, grade, drill, dashboard = pages(client, graded)
    for page in (own, grade, drill, grades_row(dashboard, "algo-ann")):
        assert "not graded yet for v2, the version that counts now" in page
    assert 'id="counting">v2 (on time)' in own


def test_a_new_upload_after_the_deadline_changes_nothing(client, graded):
    upload(graded["bot"], timezone.now())
    own, grade, drill, dashboard = pages(client, graded)
    assert "not graded yet" not in own + grade + drill + grades_row(dashboard, "algo-ann")
    assert 'id="counting">v1 (on time)' in own and "Your grade" in own


def test_a_bot_whose_only_version_is_late_is_warned_about_before_it_is_designated(client, graded):
    people, assignment = graded["people"], graded["assignment"]
    late_bot = accepted_bot(people["ann"], "endgame", "late", LEFT_BOT)
    BotVersion.objects.filter(bot=late_bot).update(uploaded_at=assignment.deadline + timedelta(hours=3))
    client.force_login(people["ann"])
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert "algo-ann/late: v1, 1 day late: −10%" in page.split('id="late-warnings"')[1]

    refused = client.post(f"/assignments/{assignment.pk}/submit/", {"bot": late_bot.pk}, follow=True).content.decode()
    assert "Not submitted: algo-ann/late: v1, 1 day late: −10%" in refused
    assert assignment.submissions.get().bot == graded["bot"]
    client.post(f"/assignments/{assignment.pk}/submit/", {"bot": late_bot.pk, "confirm_late": "1"})
    assert assignment.submissions.get().bot == late_bot
    own, *_ = pages(client, graded)
    assert 'id="counting">v1, 1 day late: −10%' in own and "not graded yet for this bot" in own
    grade = play_run(runs.start_run(people["instructor"], assignment)).grades.get()
    assert (grade.bot, grade.late_days, grade.total) == (late_bot, 1, pytest.approx(9.0))
    own, *_ = pages(client, graded)
    assert "9 / 10" in own and "(1 day late)" in own


def test_a_team_change_keeps_every_page_answering(client, make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, team_size=2)
    services.add_part(people["instructor"], assignment, "reliability", 10, {"opponent": "greedy", "games": 2})
    pair = people_services.create_team(people["instructor"], course, "pair", [people["ann"], people["ben"]])
    bot = accepted_bot(people["ann"], "endgame", "shared", LEFT_BOT)
    services.submit(people["ann"], assignment, bot)  # for the pair: only a bot's owner submits it
    BotVersion.objects.filter(bot=bot).update(uploaded_at=assignment.deadline - timedelta(hours=1))
    play_run(runs.start_run(people["instructor"], assignment))

    # ann leaves for a team of her own with cat, which submits her bot: not graded yet.
    pair.members.remove(people["ann"])
    people_services.create_team(people["instructor"], course, "new", [people["ann"], people["cat"]])
    client.force_login(people["ann"])
    before = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert 'id="submission"' not in before  # the pair's submission is no longer hers
    services.submit(people["ann"], assignment, bot)
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert "(team new)" in page and "not graded yet" in page
    # ben's team keeps its grade of the bot ann took along, and every page answers.
    client.force_login(people["ben"])
    ben = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert "Your grade" in ben and "10 / 10" in ben
    client.force_login(people["instructor"])
    for submission in assignment.submissions.all():
        assert client.get(f"/assignments/{assignment.pk}/grades/{submission.pk}/").status_code == 200
    assert client.get(f"/assignments/{assignment.pk}/").status_code == 200


def test_a_withdrawn_submission_keeps_its_last_grade_and_is_graded_no_more(client, api_client, graded):
    people, assignment = graded["people"], graded["assignment"]
    client.force_login(people["ann"])
    assert client.post(f"/assignments/{assignment.pk}/withdraw/").status_code == 302
    own, grade, drill, dashboard = pages(client, graded)
    for page in (own, grade, drill):
        assert "withdrawn: nothing is graded until a bot is submitted again" in page
    assert "algo-ann" in dashboard.split('id="missing"')[1].split("</p>")[0]
    rerun = play_run(runs.start_run(people["instructor"], assignment))
    assert (rerun.grades.get().version, rerun.grades.get().note) == (None, services.WITHDRAWN)
    assert not rerun.games.exists()
    # Submitting again (here through the API) takes the withdrawal back.
    api_client.force_authenticate(people["ann"])
    assert api_client.post(f"/api/assignments/{assignment.pk}/submission/", {"bot": graded["bot"].pk}).status_code == 200
    assert assignment.submissions.get().withdrawn_at is None
    assert api_client.delete(f"/api/assignments/{assignment.pk}/submission/").json()["withdrawn_at"] is not None
    assert api_client.delete(f"/api/assignments/{assignment.pk}/submission/").status_code == 409  # nothing left to withdraw


def test_failing_validation_lists_only_submissions_with_no_version_that_counts(client, graded, make_user):
    people, assignment = graded["people"], graded["assignment"]
    upload(graded["bot"], timezone.now(), status=BotVersion.Status.REJECTED)  # a newer upload failed
    rejected_only = accepted_bot(people["ben"], "endgame", "broken", LEFT_BOT)
    BotVersion.objects.filter(bot=rejected_only).update(status=BotVersion.Status.REJECTED)
    services.submit(people["ben"], assignment, rejected_only)
    *_, dashboard = pages(client, graded)
    failing = dashboard.split('id="failing"')[1].split("</p>")[0]
    assert "algo-ben" in failing and "algo-ann" not in failing


def test_runs_are_numbered_within_their_assignment(client, graded):
    people = graded["people"]
    second = open_assignment(people["instructor"], graded["assignment"].course, title="Second")
    services.add_part(people["instructor"], second, "reliability", 10, {"opponent": "greedy", "games": 2})
    run = runs.start_run(people["instructor"], second)
    assert (graded["run"].number, run.number) == (1, 1)
    assert runs.start_run(people["instructor"], graded["assignment"]).number == 2
    client.force_login(people["instructor"])
    assert "Run 1:" in client.get(f"/assignments/{second.pk}/").content.decode()


def test_the_student_reads_the_deadline_state_and_the_penalty_that_would_apply_now(client, make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, late_cutoff_days=3, late_penalty_per_day=15)
    client.force_login(people["ann"])
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert "Open: the deadline has not passed" in page.split('id="deadline-state"')[1].split("</p>")[0]
    type(assignment).objects.filter(pk=assignment.pk).update(deadline=timezone.now() - timedelta(days=1, hours=2))
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert "an upload now would be 2 days late, −30% of the total" in page
    type(assignment).objects.filter(pk=assignment.pk).update(deadline=timezone.now() - timedelta(days=4))
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert "Closed: the deadline and the late period have passed" in page

