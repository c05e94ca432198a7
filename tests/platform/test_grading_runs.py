"""Grading runs played in this process: the rubric parts, the cache, reproducibility and the evidence."""

import pytest

from arena.grading import runs, services
from arena.grading.models import Grade, GradingGame, GradingRun
from grading_helpers import course_with_people, open_assignment, play_run, submitted_bots
from arena.matches.models import Match

pytestmark = pytest.mark.django_db
# Fixed boards, so that comparisons between the bots' play are the same on every run of the tests: the boards
# derive from the assignment's seed and the server's secret (a fresh clone makes its own), so both are pinned.
BOARDS_SEED = 2026
BOARDS_SECRET = "the tests' fixed grading boards"


@pytest.fixture(autouse=True)
def trusted_bots(in_process_sandbox):
    """The tests' own bots run as plain processes here; the sandboxed run is in the browser test."""


@pytest.fixture
def graded(make_user, settings):
    settings.ARENA_GRADING_SEED_SECRET = BOARDS_SECRET
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course)
    assignment.seed = BOARDS_SEED
    assignment.save()
    services.add_part(people["instructor"], assignment, "win_rate", 60, {"opponent": "greedy", "games": 4})
    services.add_part(people["instructor"], assignment, "reliability", 20, {"opponent": "greedy", "games": 4})
    services.add_part(people["instructor"], assignment, "solver_loss", 20, {"opponent": "greedy", "games": 4})
    bots = submitted_bots(assignment, people)
    return assignment, people, bots


def grades_by_student(run):
    return {grade.submission.student.username.split("-")[1]: grade for grade in run.grades.select_related("submission__student")}


def test_a_run_plays_seeded_games_with_seats_alternated_and_grades_every_part(graded):
    assignment, people, bots = graded
    run = play_run(runs.start_run(people["assistant"], assignment))

    assert run.status == GradingRun.Status.FINISHED
    # 3 bots x 4 games vs greedy; the three parts share the same 4 boards and seats, so 12 matches in all.
    assert run.games.count() == 12
    matches = Match.objects.filter(grading_game__runs=run)
    assert set(matches.values_list("purpose", flat=True)) == {Match.Purpose.GRADING}
    for version in {game.version for game in run.games.all()}:
        games = run.games.filter(version=version)
        assert sorted(games.values_list("seat", flat=True)) == [0, 0, 1, 1]
        assert len(set(games.values_list("seed", flat=True))) == 2  # each board played from both seats
    grades = grades_by_student(run)
    cat = grades["cat"].parts
    assert cat[1]["fraction"] == 0 and "illegal" in cat[1]["detail"]  # every game an illegal move
    assert grades["ann"].parts[1]["fraction"] == 1.0
    # The solver part marks what the analysis measured: fewer points lost per move, more marks (linear to
    # zero_at). Which of two bots loses fewer on four games depends on the boards, so the rule is checked.
    solver_parts = [grade.parts[2] for grade in grades.values()]
    for part in solver_parts:
        assert part["fraction"] == pytest.approx(max(0.0, 1 - part["facts"]["average_points_lost"] / 3.0), abs=1e-4)
    by_loss = sorted(solver_parts, key=lambda part: part["facts"]["average_points_lost"])
    assert [part["fraction"] for part in by_loss] == sorted((part["fraction"] for part in by_loss), reverse=True)
    for grade in grades.values():
        assert grade.total == grade.measured == pytest.approx(sum(part["points"] for part in grade.parts))  # on time
        for part in grade.parts:  # the evidence: the very matches, the version and the seeds
            assert part["points"] == pytest.approx(part["weight"] * part["fraction"], abs=1e-4)
            assert len(part["matches"]) == 4 and part["version"] == grade.version.pk
            assert set(Match.objects.filter(pk__in=part["matches"]).values_list("seed", flat=True)) == set(part["seeds"])


def test_a_rerun_after_a_rubric_change_replays_nothing_and_regrades(graded):
    assignment, people, _ = graded
    first = play_run(runs.start_run(people["instructor"], assignment))
    matches_before = Match.objects.count()
    part = assignment.rubric.get(kind="win_rate")
    part.weight = 30
    part.save()

    second = runs.start_run(people["instructor"], assignment)
    assert second.status == GradingRun.Status.FINISHED  # every game was cached: graded at once
    assert Match.objects.count() == matches_before
    for name, grade in grades_by_student(second).items():
        old = grades_by_student(first)[name]
        assert grade.parts[0]["fraction"] == old.parts[0]["fraction"]
        assert grade.parts[0]["points"] == pytest.approx(old.parts[0]["points"] / 2)


def test_grades_are_reproducible_when_every_game_is_played_again(graded):
    assignment, people, _ = graded
    first = play_run(runs.start_run(people["instructor"], assignment))
    before = {name: (g.total, [p["fraction"] for p in g.parts]) for name, g in grades_by_student(first).items()}
    seeds = set(GradingGame.objects.values_list("seed", "seat"))
    # Throw the cache and its matches away: a new run must play everything again, and agree.
    GradingRun.objects.all().delete()
    match_ids = list(GradingGame.objects.values_list("match_id", flat=True))
    GradingGame.objects.all().delete()
    Match.objects.filter(pk__in=match_ids).delete()

    second = play_run(runs.start_run(people["instructor"], assignment))
    assert set(GradingGame.objects.values_list("seed", "seat")) == seeds
    after = {name: (g.total, [p["fraction"] for p in g.parts]) for name, g in grades_by_student(second).items()}
    assert after == before


def test_the_match_finished_hook_publishes_the_run_advance(graded, monkeypatch):
    assignment, people, _ = graded
    published = []
    monkeypatch.setattr(runs, "publish_on_commit", lambda task, *args, **options: published.append((task, args)))
    run = runs.start_run(people["instructor"], assignment)
    from platform_helpers import play_now

    play_now(run.games.first().match)
    assert published == [("grading.tasks.advance_grading_run", (run.pk,))]


def test_a_student_cannot_start_a_run_and_an_empty_rubric_is_refused(graded, make_user):
    assignment, people, _ = graded
    with pytest.raises(services.GradingError, match="instructors and teaching assistants"):
        runs.start_run(people["ann"], assignment)
    assignment.rubric.all().delete()
    with pytest.raises(services.GradingError, match="rubric is empty"):
        runs.start_run(people["instructor"], assignment)
    assert not Grade.objects.exists()


def test_the_periodic_task_finishes_a_run_whose_advance_message_was_lost(graded):
    from arena.grading import tasks
    from platform_helpers import play_now

    assignment, people, _ = graded
    run = runs.start_run(people["instructor"], assignment)
    for game in run.games.select_related("match"):
        play_now(game.match)  # in a test transaction the hook's on-commit publish never happens: "lost"
    run.refresh_from_db()
    assert run.status == GradingRun.Status.RUNNING
    assert tasks.resume_grading_runs() == 1
    run.refresh_from_db()
    assert run.status == GradingRun.Status.FINISHED and run.grades.count() == 3


def test_a_set_aside_game_leaves_one_students_parts_incomplete_and_the_replay_completes_the_grade(
        graded, monkeypatch, client, api_client, settings):
    from django.urls import reverse

    from arena.notifications.models import Notification
    from platform_helpers import failing_on_the_platform, play_now

    assignment, people, bots = graded
    run = runs.start_run(people["instructor"], assignment)
    broken = run.games.filter(version__bot=bots["ann"]).order_by("match_id").first().match
    with monkeypatch.context() as patched:
        failing_on_the_platform(patched, broken)
        run = play_run(run)

    # The run finished for the whole class: ben and cat are graded in full...
    assert run.status == GradingRun.Status.FINISHED, run.note
    broken.refresh_from_db()
    assert (broken.status, broken.attempts) == (Match.Status.SET_ASIDE, settings.ARENA_MATCH_MAX_ATTEMPTS)
    assert "RuntimeError: the sandbox engine fell over" in broken.error and broken.fault.startswith("Traceback")
    grades = grades_by_student(run)
    assert not grades["ben"].incomplete and not grades["cat"].incomplete
    assert grades["cat"].parts[1]["fraction"] == 0 and "illegal" in grades["cat"].parts[1]["detail"]
    # ...and ann's parts that needed the set-aside game say so, with no points yet.
    assert grades["ann"].incomplete and grades["ann"].total == 0
    assert {part["detail"] for part in grades["ann"].parts} == {"incomplete: platform error"}
    assert all(part["set_aside"] == [broken.pk] for part in grades["ann"].parts)
    assert "1 grade incomplete: platform error" in run.note
    # The staff were told, and see it on the dashboard with the buttons to play it again.
    told = Notification.objects.filter(kind=Notification.Kind.SET_ASIDE)
    assert {n.user for n in told} == {people["instructor"], people["assistant"]}
    assert f"Match #{broken.pk} (grading of {assignment.title}) was set aside" in told.first().text
    client.force_login(people["assistant"])
    page = client.get(reverse("grading:assignment", args=[assignment.pk])).content.decode()
    assert "incomplete: platform error" in page and "Play the set-aside games again" in page and "Re-grade" in page
    api_client.force_authenticate(people["ann"])  # a student cannot replay anything
    assert api_client.post(f"/api/grading-runs/{run.pk}/replay/").status_code in (403, 404)

    # Fixed: the assistant re-grades ann (her set-aside game is played again), and her grade is completed.
    ann = assignment.submissions.get(student=people["ann"])
    response = client.post(reverse("grading:replay_set_aside", args=[assignment.pk, run.pk]), {"submission": ann.pk})
    assert response.status_code == 302
    broken.refresh_from_db()
    assert (broken.status, broken.attempts) == (Match.Status.QUEUED, 0)
    play_now(broken)
    from arena.grading import tasks

    assert tasks.resume_grading_runs() == 1  # the periodic task (or the match's hook) completes the grade
    run.refresh_from_db()
    grades = grades_by_student(run)
    assert not grades["ann"].incomplete and run.note == ""
    assert grades["ann"].parts[1]["fraction"] == 1.0 and grades["ann"].total > 0
    assert set(Match.objects.filter(grading_game__runs=run).values_list("status", flat=True)) == {Match.Status.FINISHED}
    api_client.force_authenticate(people["assistant"])
    nothing = api_client.post(f"/api/grading-runs/{run.pk}/replay/")
    assert nothing.status_code == 409 and "nothing to play again" in nothing.json()["detail"]
    assert tasks.resume_grading_runs() == 0


def test_a_new_run_plays_again_a_cached_game_set_aside_before_and_completes_both_runs(graded, monkeypatch):
    from arena.grading import tasks
    from platform_helpers import failing_on_the_platform

    assignment, people, bots = graded
    first = runs.start_run(people["instructor"], assignment)
    broken = first.games.filter(version__bot=bots["cat"]).order_by("match_id").first().match
    with monkeypatch.context() as patched:
        failing_on_the_platform(patched, broken)
        first = play_run(first)
    assert grades_by_student(first)["cat"].incomplete

    second = runs.start_run(people["instructor"], assignment)  # the same cached games, the set-aside one again
    assert Match.objects.get(pk=broken.pk).status == Match.Status.QUEUED
    second = play_run(second)
    assert not any(grade.incomplete for grade in second.grades.all())
    assert tasks.resume_grading_runs() == 1  # the first run, whose grade lacked that game
    assert not grades_by_student(first)["cat"].incomplete
    assert grades_by_student(first)["cat"].total == grades_by_student(second)["cat"].total


def test_late_work_is_graded_with_its_penalty(make_user):
    from datetime import timedelta

    from arena.bots.models import BotVersion

    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, late_cutoff_days=3, late_penalty_per_day=25)
    services.add_part(people["instructor"], assignment, "reliability", 10, {"opponent": "greedy", "games": 2})
    bots = submitted_bots(assignment, people, codes={"ann": "def act(o):\n    return 'left'\n"})
    BotVersion.objects.filter(bot=bots["ann"]).update(uploaded_at=assignment.deadline + timedelta(days=1, seconds=1))
    grade = play_run(runs.start_run(people["instructor"], assignment)).grades.get()
    assert grade.late_days == 2 and grade.note == "late"
    assert grade.measured == 10 and grade.total == pytest.approx(5.0)


def test_tournament_placement_and_elo_percentile_read_what_the_platform_recorded(graded):
    from arena.ratings.models import Rating
    from tournament_helpers import entered, play_out
    from arena.tournaments import services as tournament_services

    assignment, people, bots = graded
    tournament = entered(people["instructor"], assignment.course, list(bots.values()), game="endgame",
                         format="round-robin", games_per_series=2)
    tournament_services.start(people["instructor"], tournament)
    play_out(tournament)
    for name, mu in (("ann", 30), ("ben", 25), ("cat", 20)):
        Rating.objects.create(bot=bots[name], mu=mu, sigma=5, value=mu - 15)
    assignment.rubric.all().delete()
    services.add_part(people["instructor"], assignment, "tournament", 10, {"tournament": tournament.pk})
    services.add_part(people["instructor"], assignment, "elo_percentile", 10)

    run = runs.start_run(people["instructor"], assignment)
    assert run.status == GradingRun.Status.FINISHED and not run.games.exists()  # nothing to play
    grades = grades_by_student(run)
    assert grades["cat"].parts[0]["fraction"] == 0.0  # an illegal move every game: last place
    assert grades["cat"].parts[0]["facts"] == {"tournament": tournament.pk, "place": 3, "of": 3}
    assert [grades[name].parts[1]["fraction"] for name in ("ann", "ben", "cat")] == [1.0, 0.5, 0.0]


def test_a_part_refuses_options_it_cannot_use(graded, make_user):
    assignment, people, _ = graded
    teacher = people["instructor"]
    with pytest.raises(services.GradingError, match="unknown rubric part 'style'"):
        services.add_part(teacher, assignment, "style", 10)
    with pytest.raises(services.GradingError, match="games must be between 2 and 200"):
        services.add_part(teacher, assignment, "win_rate", 10, {"games": 1000})
    with pytest.raises(services.GradingError, match="tournament must be the id"):
        services.add_part(teacher, assignment, "tournament", 10, {"tournament": 999})
    crazy = open_assignment(teacher, assignment.course, game="crazyking")
    with pytest.raises(services.GradingError, match="only for endgame"):
        services.add_part(teacher, crazy, "solver_loss", 10)


def test_a_submission_with_no_version_in_time_gets_nothing_and_plays_nothing(make_user):
    from datetime import timedelta

    from arena.bots.models import BotVersion

    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course)
    services.add_part(people["instructor"], assignment, "win_rate", 10, {"opponent": "greedy", "games": 2})
    bots = submitted_bots(assignment, people, codes={"ann": "def act(o):\n    return 'left'\n"})
    BotVersion.objects.filter(bot=bots["ann"]).update(uploaded_at=assignment.deadline + timedelta(seconds=1))
    run = runs.start_run(people["instructor"], assignment)
    grade = run.grades.get()
    assert run.status == GradingRun.Status.FINISHED and not run.games.exists()
    assert (grade.version, grade.total, grade.note) == (None, 0, "no version that passed validation was uploaded by the deadline")


def test_the_replay_refuses_what_it_cannot_play_with_a_reason_never_a_server_error(graded, client, api_client):
    from django.urls import reverse

    assignment, people, _ = graded
    run = play_run(runs.start_run(people["instructor"], assignment))
    api_client.force_authenticate(people["assistant"])
    for submission in (10 ** 30, -1, "x", [1]):
        response = api_client.post(f"/api/grading-runs/{run.pk}/replay/", {"submission": submission}, format="json")
        assert response.status_code in (400, 404), (submission, response.status_code)
    response = api_client.post(f"/api/grading-runs/{run.pk}/replay/", {}, format="json")
    assert response.status_code == 409 and "nothing to play again" in response.json()["detail"]
    client.force_login(people["assistant"])
    url = reverse("grading:replay_set_aside", args=[assignment.pk, run.pk])
    assert client.post(url, {"submission": "9" * 30}).status_code == 404
    page = client.post(url, follow=True).content.decode()
    assert "nothing to play again" in page
    client.force_login(people["ann"])
    assert client.post(url).status_code == 403
