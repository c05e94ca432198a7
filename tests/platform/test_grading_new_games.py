"""Rubric parts for the games that grew after grading: the Sorted! team score and the Sprouts winning-move
rate, measured from the solvers' analysis of real games."""

from pathlib import Path

import pytest

from arena.grading import runs, services
from grading_helpers import course_with_people, open_assignment, play_run, submitted_bots

pytestmark = pytest.mark.django_db
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "bots" / "examples"
# Gives up at once: the team loses every deal.
DECLARER = "def act(observation):\n    return {'action': 'declare'}\n"
FIRST_MOVE = "def act(observation):\n    return observation['legal_actions'][0]\n"


@pytest.fixture(autouse=True)
def trusted_bots(in_process_sandbox):
    """The tests' own bots run as plain processes here."""


def grade(make_user, game, kind, params, codes, config=None):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, game=game, config=config or {})
    services.add_part(people["instructor"], assignment, kind, 100, params)
    submitted_bots(assignment, people, codes)
    run = play_run(runs.start_run(people["instructor"], assignment))
    return run, {g.submission.student.username.split("-")[1]: g.parts[0] for g in run.grades.select_related(
        "submission__student")}


def test_the_sorted_team_score_part_grades_a_bot_playing_the_whole_team(make_user):
    run, parts = grade(make_user, "sorted", "team_score", {"games": 3, "full_at": 0, "zero_at": 20},
                       {"ann": (EXAMPLES / "sorted_example.py").read_text(), "ben": DECLARER})
    assert run.games.count() == 6  # 3 deals each, each bot alone in all four seats
    for game in run.games.select_related("match"):
        assert {seat.bot_id for seat in game.match.seats.all()} == {game.version.bot_id}
        assert game.match.seats.count() == 4
    assert parts["ben"]["fraction"] == 0 and parts["ben"]["facts"]["won"] == 0
    assert parts["ann"]["facts"]["won"] == 3 and parts["ann"]["fraction"] > 0.5
    assert parts["ann"]["fraction"] == pytest.approx(1 - parts["ann"]["facts"]["average_score"] / 20)


def test_the_sprouts_winning_move_part_credits_moves_that_keep_a_won_position(make_user):
    optimal = (EXAMPLES / "sprouts_example.py").read_text()
    run, parts = grade(make_user, "sprouts", "winning_moves", {"opponent": "random", "games": 4},
                       {"ann": optimal, "ben": FIRST_MOVE}, config={"spots": 3})
    assert run.status == "finished"
    for name in ("ann", "ben"):
        rate = parts[name]["facts"]["winning_move_rate"]
        assert rate is None or 0 <= rate <= 1
    assert parts["ann"]["fraction"] >= parts["ben"]["fraction"]


def test_the_new_parts_refuse_other_games(make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course)
    with pytest.raises(services.GradingError, match="only for sorted"):
        services.add_part(people["instructor"], assignment, "team_score", 10, {})
    with pytest.raises(services.GradingError, match="only for sprouts"):
        services.add_part(people["instructor"], assignment, "winning_moves", 10, {})


def test_parts_that_play_against_a_built_in_refuse_a_cooperative_game(make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, game="sorted")
    with pytest.raises(services.GradingError, match="use team_score"):
        services.add_part(people["instructor"], assignment, "win_rate", 10, {})
