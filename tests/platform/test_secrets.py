"""Secrets that stay secret: grading seeds, grading games, and the games of tournaments whose results are
released at the end (issue 24, findings 2 and 3)."""

import hashlib
from datetime import timedelta

import pytest
from django.test import override_settings

from arena.accounts.models import Course
from arena.grading import runs as grading_runs
from arena.grading import services as grading_services
from arena.grading.models import Assignment
from arena.grading.parts import derived_seed
from grading_helpers import course_with_people, open_assignment, play_run, submitted_bots
from arena.matches.models import Match
from tournament_helpers import course_with_bots, entered, play_out
from arena.tournaments import services as tournament_services

pytestmark = pytest.mark.django_db


def answers(api_client, client, user, match) -> dict:
    """What `user` gets for `match`: the API's detail, replay and its bot's list, the page and the replay page."""
    api_client.force_authenticate(user)
    client.force_login(user)
    bot = match.seats.exclude(bot__owner=None).first().bot_id
    listed = [row["id"] for row in api_client.get(f"/api/matches/?bot={bot}").json()["results"]]
    return {"api": api_client.get(f"/api/matches/{match.pk}/").status_code,
            "api replay": api_client.get(f"/api/matches/{match.pk}/replay/").status_code,
            "listed": match.pk in listed,
            "page": client.get(f"/matches/{match.pk}/").status_code,
            "replay page": client.get(f"/matches/{match.pk}/replay/").status_code}


SEEN = {"api": 200, "api replay": 200, "listed": True, "page": 200, "replay page": 200}
UNSEEN = {"api": 404, "api replay": 404, "listed": False, "page": 404, "replay page": 404}
OPENED = {**SEEN, "listed": False}  # a student reaches their grading games from their grade, not from lists


def test_students_never_see_the_assignment_seed_and_it_alone_does_not_give_the_boards(api_client, make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course)
    api_client.force_authenticate(people["ann"])
    assert api_client.get(f"/api/assignments/{assignment.pk}/").json()["seed"] is None
    assert all(row["seed"] is None for row in api_client.get("/api/assignments/").json()["results"])
    api_client.force_authenticate(people["assistant"])
    assert api_client.get(f"/api/assignments/{assignment.pk}/").json()["seed"] == assignment.seed

    # Whoever learns the seed still cannot compute a board: the grading seeds are keyed by the server's secret.
    public_formula = int.from_bytes(hashlib.sha256(f"{assignment.seed}:0".encode()).digest()[:6], "big")
    assert derived_seed(assignment.seed, 0) != public_formula


def test_grading_games_are_the_staffs_and_the_owners_once_the_results_are_published(api_client, client, make_user,
                                                                                    in_process_sandbox):
    course, people = course_with_people(make_user)
    outsider = make_user("outsider")
    Course.objects.create(code="other", name="Other").students.add(outsider)
    assignment = open_assignment(people["instructor"], course)
    grading_services.add_part(people["instructor"], assignment, "win_rate", 100, {"opponent": "greedy", "games": 2})
    submitted_bots(assignment, people, {"ann": "def act(o):\n    return o['legal_actions'][0]\n"})
    Assignment.objects.filter(pk=assignment.pk).update(late_cutoff_days=2)  # late work still accepted: unpublished
    play_run(grading_runs.start_run(people["instructor"], assignment))
    match = Match.objects.filter(purpose=Match.Purpose.GRADING).first()

    assert answers(api_client, client, people["instructor"], match) == SEEN
    assert answers(api_client, client, people["assistant"], match) == SEEN
    for viewer in (people["ann"], people["ben"], outsider):
        assert answers(api_client, client, viewer, match) == UNSEEN, viewer.username
    # Nor their seeds behind the grade: neither the grades API nor the grade page before publication.
    api_client.force_authenticate(people["ann"])
    parts = api_client.get(f"/api/assignments/{assignment.pk}/grades/").json()[0]["parts"]
    assert parts and all("seeds" not in part and "matches" not in part for part in parts)
    client.force_login(people["ann"])
    submission = grading_services.submission_of(people["ann"], assignment)
    grade_page = client.get(f"/assignments/{assignment.pk}/grades/{submission.pk}/").content.decode()
    assert str(match.seed) not in grade_page and 'id="games-hidden"' in grade_page

    Assignment.objects.filter(pk=assignment.pk).update(late_cutoff_days=0)  # submissions closed: published
    assert answers(api_client, client, people["ann"], match) == OPENED
    for viewer in (people["ben"], outsider):
        assert answers(api_client, client, viewer, match) == UNSEEN, viewer.username
    api_client.force_authenticate(people["ann"])
    assert "seeds" in api_client.get(f"/api/assignments/{assignment.pk}/grades/").json()[0]["parts"][0]


def test_games_of_a_tournament_released_at_the_end_are_hidden_everywhere_until_then(api_client, client, make_user,
                                                                                     in_process_sandbox):
    course, instructor, bots = course_with_bots(make_user, "endgame", 4)
    outsider = make_user("outsider")
    tournament = entered(instructor, course, bots, game="endgame", format="single-elimination",
                         visibility="at-end")
    tournament_services.start(instructor, tournament)
    first = Match.objects.filter(series_game__series__tournament=tournament).order_by("id").first()
    from platform_helpers import play_now

    play_now(first)
    tournament_services.advance(tournament.pk)
    first.refresh_from_db()
    assert first.status == Match.Status.FINISHED
    player = first.seats.first().bot.owner

    assert answers(api_client, client, instructor, first) == SEEN
    for viewer in (player, bots[3].owner, outsider):
        assert answers(api_client, client, viewer, first) == UNSEEN, viewer.username
    client.force_login(player)
    assert f"/matches/{first.pk}/" not in client.get(f"/bots/{first.seats.first().bot_id}/").content.decode()
    assert f"/matches/{first.pk}/" not in client.get("/").content.decode()

    play_out(tournament)
    for viewer in (player, outsider):
        assert answers(api_client, client, viewer, first) == SEEN, viewer.username


def test_a_grading_seed_changes_with_the_secret():
    with override_settings(ARENA_GRADING_SEED_SECRET="one"):
        one = [derived_seed(12345, board) for board in range(4)]
    with override_settings(ARENA_GRADING_SEED_SECRET="two"):
        two = [derived_seed(12345, board) for board in range(4)]
    assert len(set(one)) == 4 and not set(one) & set(two)


def test_results_are_published_when_submissions_close(make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, late_cutoff_days=1)
    assert not assignment.results_published
    assignment.deadline -= timedelta(days=1, hours=2)
    assert assignment.results_published


def test_a_versions_hash_is_its_owners(api_client, make_user):
    """A public hash lets anyone confirm a guess of another student's code (a classmate's copy, say)."""
    from platform_helpers import active_bot

    owner, other = make_user("ada"), make_user("bob")
    bot = active_bot(owner)
    api_client.force_authenticate(other)
    assert api_client.get(f"/api/bots/{bot.pk}/").json()["active_version"]["sha256"] is None
    assert all(row["active_version"]["sha256"] is None for row in api_client.get("/api/bots/").json()["results"]
               if row["active_version"])
    api_client.force_authenticate(owner)
    assert api_client.get(f"/api/bots/{bot.pk}/").json()["active_version"]["sha256"] == bot.active_version.sha256
