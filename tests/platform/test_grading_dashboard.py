"""The grading pages and API: roles across courses and teams, the dashboard, the drill-down, adjustments
and the gradebook CSV."""

import csv
import io
from datetime import timedelta

import pytest

from arena.accounts import people as people_services
from arena.accounts.models import RosterEntry
from arena.bots.models import BotVersion
from arena.grading import runs, services
from arena.grading.models import GradingRun
from arena.matches.models import Match
from platform_helpers import play_now, with_confirmed_email
from sse_client import page_stream
from grading_helpers import course_with_people, open_assignment, pass_deadline, play_run, submitted_bots
from tournament_helpers import accepted_bot

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def trusted_bots(in_process_sandbox):
    """The tests' own bots run as plain processes here."""


@pytest.fixture
def graded(make_user):
    """A graded assignment of course `algo`: ann and ben rostered, cat not; a second course `other`."""
    course, people = course_with_people(make_user)
    for name in ("ann", "ben"):  # the roster finds these students of the course by their confirmed e-mail
        with_confirmed_email(people[name], f"{name}@uni.example")
    people_services.import_roster(people["instructor"], course,
                                  "student_id,email,name\n1001,ann@uni.example,Ann Smith\n1002,ben@uni.example,Ben Jones\n")
    assert RosterEntry.objects.get(student_id="1001").user == people["ann"]
    assignment = open_assignment(people["instructor"], course, late_cutoff_days=2, late_penalty_per_day=10)
    services.add_part(people["instructor"], assignment, "win_rate", 80, {"opponent": "greedy", "games": 2})
    services.add_part(people["instructor"], assignment, "reliability", 20, {"opponent": "greedy", "games": 2})
    bots = submitted_bots(assignment, people)
    run = play_run(runs.start_run(people["instructor"], assignment))
    _, strangers = course_with_people(make_user, "other")
    return {"assignment": assignment, "people": people, "bots": bots, "run": run, "strangers": strangers}


def test_a_student_of_another_course_sees_nothing_of_this_one(client, api_client, graded):
    assignment, outsider = graded["assignment"], graded["strangers"]["ann"]
    client.force_login(outsider)
    api_client.force_authenticate(outsider)
    course = assignment.course.pk
    for url in (f"/courses/{course}/people/", f"/courses/{course}/assignments/", f"/assignments/{assignment.pk}/",
                f"/assignments/{assignment.pk}/grades.csv"):
        assert client.get(url).status_code == 404, url
    for url in (f"/api/courses/{course}/people/", f"/api/assignments/{assignment.pk}/",
                f"/api/assignments/{assignment.pk}/grades/", f"/api/grading-runs/{graded['run'].pk}/"):
        assert api_client.get(url).status_code == 404, url
    assert api_client.get("/api/assignments/").json()["count"] == 0
    # Nor can the other course's instructor.
    api_client.force_authenticate(graded["strangers"]["instructor"])
    assert api_client.get(f"/api/assignments/{assignment.pk}/grades/").status_code == 404


def test_a_ta_grades_and_annotates_but_cannot_change_rubric_deadline_roster_or_points(api_client, graded):
    assignment, people = graded["assignment"], graded["people"]
    api_client.force_authenticate(people["assistant"])
    assert api_client.get(f"/api/assignments/{assignment.pk}/grades/").status_code == 200
    assert api_client.post(f"/api/assignments/{assignment.pk}/runs/").status_code == 201
    refused = [
        api_client.post(f"/api/assignments/{assignment.pk}/rubric/", {"kind": "win_rate", "weight": 5}, format="json"),
        api_client.patch(f"/api/assignments/{assignment.pk}/", {"deadline": "2030-01-01T00:00:00Z"}, format="json"),
        api_client.post(f"/api/courses/{assignment.course.pk}/roster/", {"text": "student_id,email,name\n9,x@y.z,X\n"},
                        format="json"),
        api_client.post(f"/api/courses/{assignment.course.pk}/teams/", {"name": "t", "members": [people["ann"].pk]},
                        format="json"),
    ]
    assert [response.status_code for response in refused] == [403, 403, 403, 403]
    assert assignment.rubric.count() == 2
    submission = assignment.submissions.get(student=people["cat"])
    url = f"/api/submissions/{submission.pk}/adjustments/"
    changed = api_client.post(url, {"points": 5, "comment": "nice"}, format="json")
    assert changed.status_code == 403 and "only instructors change a grade" in changed.json()["detail"]
    assert api_client.post(url, {"points": 0, "comment": "crashes on empty boards"}, format="json").status_code == 201


def test_a_student_never_sees_another_teams_code_grade_or_the_dashboard(client, api_client, graded):
    assignment, people, bots = graded["assignment"], graded["people"], graded["bots"]
    ben_version = bots["ben"].versions.get()
    client.force_login(people["ann"])
    assert client.get(f"/bots/{bots['ben'].pk}/versions/1/code/").status_code == 404
    ben_submission = assignment.submissions.get(student=people["ben"])
    assert client.get(f"/assignments/{assignment.pk}/grades/{ben_submission.pk}/").status_code == 403
    assert client.get(f"/assignments/{assignment.pk}/grades.csv").status_code == 403
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert 'id="grades"' not in page and "Your submission" in page
    api_client.force_authenticate(people["ann"])
    grades = api_client.get(f"/api/assignments/{assignment.pk}/grades/").json()
    assert [g["submission"]["student"] for g in grades] == [people["ann"].username]
    assert api_client.get(f"/api/versions/{ben_version.pk}/code/").status_code in (403, 404)
    # Forming a team shows nothing; ben submitting his bot for the team shows it to his team mate.
    people_services.create_team(people["instructor"], assignment.course, "pair", [people["ann"], people["ben"]])
    assert client.get(f"/bots/{bots['ben'].pk}/versions/1/code/").status_code == 404
    services.submit(people["ben"], open_assignment(people["instructor"], assignment.course, team_size=2), bots["ben"])
    assert client.get(f"/bots/{bots['ben'].pk}/versions/1/code/").status_code == 200
    assert client.get(f"/bots/{bots['cat'].pk}/versions/1/code/").status_code == 404


def test_the_dashboard_shows_the_class_and_the_drill_down_leads_to_the_replays(client, graded, make_user):
    assignment, people, run = graded["assignment"], graded["people"], graded["run"]
    newcomer = make_user("algo-dan")
    assignment.course.students.add(newcomer)
    rejected = graded["bots"]["ben"].versions.get()
    rejected.pk, rejected.number, rejected.status = None, 2, BotVersion.Status.REJECTED
    rejected.save()  # ben's newest upload failed validation, after the deadline
    client.force_login(people["assistant"])
    page = client.get(f"/assignments/{assignment.pk}/?sort=-total").content.decode()
    assert 'id="histogram"' in page and 'id="timeline"' in page
    assert "algo-dan" in page.split('id="missing"')[1].split("</p>")[0]
    failing = page.split('id="failing"')[1].split("</p>")[0]
    assert failing.startswith(">Nobody:")  # ben's graded version passed; the failed upload came after it
    rows = page.split('<tbody>')[-1]
    # Sorted by total, best first: cat's illegal bot is last of those graded; dan (no submission) after.
    assert rows.index("algo-cat") < rows.index("algo-dan") and rows.index("algo-ann") < rows.index("algo-cat")
    reliability = assignment.rubric.get(kind="reliability").pk
    by_part = client.get(f"/assignments/{assignment.pk}/?sort=part-{reliability}").content.decode().split("<tbody>")[-1]
    assert by_part.index("algo-cat") < by_part.index("algo-ann")  # ascending: cat's 0 first

    cat = assignment.submissions.get(student=people["cat"])
    drill = client.get(f"/assignments/{assignment.pk}/grades/{cat.pk}/").content.decode()
    grade = run.grades.get(submission=cat)
    for part in grade.parts:
        for match in part["matches"]:
            assert f"/matches/{match}/replay/" in drill
    assert "0 of 2 games without failure (2 illegal)" in drill
    assert drill.count("<td>illegal</td><td>lost</td>") == 4  # 2 games, shown under both parts


def test_adjustments_need_a_comment_and_keep_a_history(client, graded):
    assignment, people = graded["assignment"], graded["people"]
    ann = assignment.submissions.get(student=people["ann"])
    with pytest.raises(services.GradingError, match="comment"):
        services.adjust(people["instructor"], ann, 3, "  ")
    services.adjust(people["instructor"], ann, 3.25, "good write-up")
    services.adjust(people["instructor"], ann, -1, "late README")
    assert list(ann.adjustments.values_list("points", "comment")) == [(3.25, "good write-up"), (-1, "late README")]
    client.force_login(people["instructor"])
    drill = client.get(f"/assignments/{assignment.pk}/grades/{ann.pk}/").content.decode()
    grade = graded["run"].grades.get(submission=ann)
    assert f"total {grade.total + 2.25:g}" in drill and "late README" in drill  # fractions kept


def test_the_csv_export_has_a_line_per_student_ready_for_a_gradebook(client, graded):
    assignment, people, run = graded["assignment"], graded["people"], graded["run"]
    ann = assignment.submissions.get(student=people["ann"])
    services.adjust(people["instructor"], ann, 2.5, "bonus")
    client.force_login(people["instructor"])
    response = client.get(f"/assignments/{assignment.pk}/grades.csv")
    assert response["Content-Type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(response.content.decode())))
    labels = [part["label"] for part in run.rubric]
    assert lines[0] == ["student_id", "email", "name", "total", *labels, "late_days"]
    by_id = {line[0] or line[2]: line for line in lines[1:]}
    ann_grade = run.grades.get(submission=ann)
    assert by_id["1001"][:4] == ["1001", "ann@uni.example", "Ann Smith", f"{ann_grade.total + 2.5:g}"]
    assert by_id["1001"][4:] == [f"{p['points']:g}" for p in ann_grade.parts] + ["0"]
    assert by_id["algo-cat"][0] == "" and len(lines) == 4  # cat is not rostered: no student id


def test_csv_cells_that_would_start_a_formula_are_quoted(client, graded):
    """A name like `=HYPERLINK(...)` opened in a spreadsheet would run: every such text cell gets a leading quote
    (OWASP's advice); numbers are written as they are."""
    from arena.accounts.models import RosterEntry
    from arena.grading.models import GradingRun

    assignment, people, run = graded["assignment"], graded["people"], graded["run"]
    RosterEntry.objects.filter(course=assignment.course, student_id="1001").update(
        student_id="+1001", name='=HYPERLINK("http://evil.example","grade")')
    rubric = [{**part, "label": "@SUM(A1)"} for part in run.rubric]
    GradingRun.objects.filter(pk=run.pk).update(rubric=rubric)
    people["cat"].__class__.objects.filter(pk=people["cat"].pk).update(username="-cat", email="")
    client.force_login(people["instructor"])
    lines = list(csv.reader(io.StringIO(client.get(f"/assignments/{assignment.pk}/grades.csv").content.decode())))
    assert "'@SUM(A1)" in lines[0]
    by_id = {line[0] or line[2]: line for line in lines[1:]}
    assert by_id["'+1001"][2] == "'=HYPERLINK(\"http://evil.example\",\"grade\")"
    assert "'-cat" in by_id and float(by_id["'+1001"][3]) >= 0


def test_the_api_creates_an_assignment_with_a_rubric_and_students_submit(api_client, graded):
    people, bots = graded["people"], graded["bots"]
    course = graded["assignment"].course
    api_client.force_authenticate(people["instructor"])
    created = api_client.post("/api/assignments/", {
        "course": course.pk, "title": "Second", "game": "endgame", "opens_at": "2026-01-01T08:00:00Z",
        "deadline": "2099-01-08T08:00:00Z"}, format="json")
    assert created.status_code == 201, created.content
    pk = created.json()["id"]
    bad = api_client.post(f"/api/assignments/{pk}/rubric/", {"kind": "win_rate", "weight": 10,
                                                             "params": {"opponent": "nobody"}}, format="json")
    assert bad.status_code == 400 and "opponent must be a built-in" in bad.json()["detail"]
    assert api_client.post(f"/api/assignments/{pk}/rubric/", {"kind": "win_rate", "weight": 10}, format="json").status_code == 201
    api_client.force_authenticate(people["ben"])
    assert api_client.post(f"/api/assignments/{pk}/submission/", {"bot": bots["ann"].pk}, format="json").status_code == 403
    submitted = api_client.post(f"/api/assignments/{pk}/submission/", {"bot": bots["ben"].pk}, format="json")
    assert submitted.status_code == 200 and submitted.json()["bot"] == bots["ben"].pk
    people_view = api_client.get(f"/api/courses/{course.pk}/people/").json()
    assert people_view["role"] == "student" and people_view["students"] is None and people_view["invite_code"] is None
    assert api_client.post(f"/api/courses/{course.pk}/assistants/", {"username": "algo-ben"}).status_code == 403
    api_client.force_authenticate(people["instructor"])
    assert api_client.post(f"/api/courses/{course.pk}/assistants/", {"username": "algo-cat"}).status_code == 201
    staff_view = api_client.get(f"/api/courses/{course.pk}/people/").json()
    assert {p["username"] for p in staff_view["assistants"]} == {"algo-ta", "algo-cat"}
    assert {s["student_id"] for s in staff_view["students"]} == {"1001", "1002", None}


def test_a_team_submits_once_and_each_member_gets_the_teams_grade_in_the_csv(client, make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, team_size=2)
    services.add_part(people["instructor"], assignment, "reliability", 10, {"opponent": "greedy", "games": 2})
    people_services.create_team(people["instructor"], course, "pair", [people["ann"], people["ben"]])
    bot = accepted_bot(people["ann"], "endgame", "shared", "def act(o):\n    return 'left'\n")
    services.submit(people["ann"], assignment, bot)
    services.submit(people["ben"], assignment, bot)  # ben submits for the team too: still one submission
    assert assignment.submissions.count() == 1
    pass_deadline(assignment)
    BotVersion.objects.filter(bot=bot).update(uploaded_at=assignment.deadline - timedelta(hours=1))
    play_run(runs.start_run(people["instructor"], assignment))

    client.force_login(people["instructor"])
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert "algo-cat (no team)" in page.split('id="missing"')[1].split("</p>")[0]
    lines = list(csv.reader(io.StringIO(client.get(f"/assignments/{assignment.pk}/grades.csv").content.decode())))
    totals = {line[2]: line[3] for line in lines[1:]}
    assert totals == {"algo-ann": "10", "algo-ben": "10", "algo-cat": ""}


def test_the_people_pages_upload_a_roster_and_the_invitation_link_enrols(client, make_user):
    from django.core.files.uploadedfile import SimpleUploadedFile

    course, people = course_with_people(make_user)
    client.force_login(people["instructor"])
    roster = SimpleUploadedFile("roster.csv", b"student_id,email,name\n7,zoe@uni.example,Zoe\n8,bad,Bad Row\n")
    response = client.post(f"/courses/{course.pk}/people/roster/", {"file": roster}, follow=True)
    text = response.content.decode()
    assert "0 enrolled, 1 invited, 0 updated, 0 unchanged, 1 failed" in text and "line 3: &#x27;bad&#x27; is not an e-mail" in text
    assert "zoe@uni.example" in client.get(f"/courses/{course.pk}/people/").content.decode()
    bad_zone = client.post(f"/courses/{course.pk}/people/time-zone/", {"time_zone": "Mars/Olympus"}, follow=True)
    assert "&#x27;Mars/Olympus&#x27; is not a time zone name" in bad_zone.content.decode()
    client.post(f"/courses/{course.pk}/people/time-zone/", {"time_zone": "Asia/Tokyo"})
    course.refresh_from_db()
    assert course.time_zone == "Asia/Tokyo"

    client.force_login(people["assistant"])
    page = client.get(f"/courses/{course.pk}/people/").content.decode()
    assert course.invite_code in page and "Upload roster" not in page
    assert client.post(f"/courses/{course.pk}/people/roster/", {"file": roster}).status_code == 403

    # Opening the link (as a mail client's preview would) enrols no one; its button does.
    newcomer = make_user("newcomer")
    client.force_login(newcomer)
    invitation = client.get(f"/join/{course.invite_code}/").content.decode()
    assert f"Join {course.name}" in invitation and "Join as newcomer" in invitation
    assert not course.students.filter(pk=newcomer.pk).exists()
    joined = client.post(f"/join/{course.invite_code}/", follow=True).content.decode()
    assert f"You are enrolled in {course.name}." in joined and course.invite_code not in joined
    assert course.students.filter(pk=newcomer.pk).exists()
    assert "already a student" in client.get(f"/join/{course.invite_code}/").content.decode()

    # The course's TA is staff, never a student of it too.
    client.force_login(people["assistant"])
    assert "You teach this course" in client.get(f"/join/{course.invite_code}/").content.decode()
    refused = client.post(f"/join/{course.invite_code}/", follow=True).content.decode()
    assert "staff do not enrol as students" in refused
    assert not course.students.filter(pk=people["assistant"].pk).exists()


def test_deadlines_are_stored_in_utc_and_shown_in_the_courses_time_zone(client, make_user):
    from datetime import datetime, timezone

    course, people = course_with_people(make_user)  # Europe/Paris
    client.force_login(people["instructor"])
    response = client.post(f"/courses/{course.pk}/assignments/", {
        "title": "Winter", "game": "endgame", "opens_at": "2030-01-01T09:00", "deadline": "2030-01-15T23:59",
        "team_size": 1, "late_penalty_per_day": 0, "late_cutoff_days": 0}, follow=True)
    assignment = course.assignments.get()
    assert assignment.deadline == datetime(2030, 1, 15, 22, 59, tzinfo=timezone.utc)  # entered in Paris time
    assert "2030-01-15 23:59 CET" in response.content.decode()



def test_a_courses_pages_show_times_in_the_viewers_own_zone_else_the_courses_and_name_it(client, make_user):
    from datetime import datetime, timezone

    from arena.accounts.models import Course, profile_of

    course, people = course_with_people(make_user)  # Europe/Paris
    ann = people["ann"]
    # Her first course by code is in Tokyo: on the pages of `algo` its own zone still comes first.
    Course.objects.create(code="aaa", name="Early", time_zone="Asia/Tokyo").students.add(ann)
    assignment = open_assignment(people["instructor"], course,
                                 deadline=datetime(2099, 1, 15, 22, 59, tzinfo=timezone.utc))
    client.force_login(ann)
    for path in (f"/assignments/{assignment.pk}/", f"/courses/{course.pk}/assignments/"):
        page = client.get(path).content.decode()
        assert 'title="Europe/Paris">2099-01-15 23:59 CET</time>' in page, path
        assert "days" in page[page.index("2099-01-15 23:59 CET"):][:120], "how far the deadline is"

    profile = profile_of(ann)  # she chose her own zone on her profile page
    profile.time_zone = "America/Chicago"
    profile.save(update_fields=["time_zone"])
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert 'title="America/Chicago">2099-01-15 16:59 CST</time>' in page and "23:59 CET" not in page

    # An instructor with a zone of their own enters times in it, and the form says which.
    teacher = people["instructor"]
    profile = profile_of(teacher)
    profile.time_zone = "America/Chicago"
    profile.save(update_fields=["time_zone"])
    client.force_login(teacher)
    assert "In America/Chicago." in client.get(f"/courses/{course.pk}/assignments/").content.decode()
    client.post(f"/courses/{course.pk}/assignments/", {
        "title": "Winter", "game": "endgame", "opens_at": "2098-01-01T09:00", "deadline": "2098-01-15T16:59",
        "team_size": 1, "late_penalty_per_day": 0, "late_cutoff_days": 0})
    assert course.assignments.get(title="Winter").deadline == datetime(2098, 1, 15, 22, 59, tzinfo=timezone.utc)

def test_only_instructors_change_an_assignment_from_its_page(client, make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course)
    form = {"title": "Renamed", "game": "endgame", "opens_at": "2030-01-01T09:00", "deadline": "2030-02-01T12:00",
            "team_size": 1, "late_penalty_per_day": 5, "late_cutoff_days": 2}
    client.force_login(people["assistant"])
    assert 'id="edit"' not in client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert client.post(f"/assignments/{assignment.pk}/edit/", form).status_code == 403
    client.force_login(people["instructor"])
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert 'id="edit"' in page and 'value="Greedy and beyond"' in page
    client.post(f"/assignments/{assignment.pk}/edit/", form)
    assignment.refresh_from_db()
    assert (assignment.title, assignment.late_cutoff_days, assignment.deadline.isoformat()) == (
        "Renamed", 2, "2030-02-01T11:00:00+00:00")  # noon in Paris
    refused = client.post(f"/assignments/{assignment.pk}/edit/", {**form, "deadline": "2029-12-31T09:00"}, follow=True)
    assert "the deadline must come after the opening" in refused.content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_dashboards_run_stream_sends_only_what_changed_since_the_page_was_rendered(client, make_user,
                                                                                      live_server):
    """The dashboard renders the running run's progress; the stream it names then sends nothing until the run
    moves on. It used to send the part again as soon as it opened, replacing the "Play the set-aside games
    again" button right after the page loaded: a click landing in that moment was lost."""
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course)
    services.add_part(people["instructor"], assignment, "win_rate", 100, {"opponent": "greedy", "games": 2})
    submitted_bots(assignment, people)
    run = runs.start_run(people["instructor"], assignment)
    assert run.status == GradingRun.Status.RUNNING
    client.force_login(people["instructor"])
    page, stream = page_stream(live_server, client, f"/assignments/{assignment.pk}/", "run-part")
    with stream:
        total = runs.progress(run)["total"]
        assert f"0 of {total} games played" in page
        play_now(run.games.filter(match__status=Match.Status.QUEUED).order_by("match_id").first().match)
        runs.advance_run(run.pk)
        event = stream.next_event()

    assert f"1 of {total} games played" in event["data"]["payload"]["html"]
