"""fill_scale_data: bulk data that the site shows as if it had been played (ladder, replays, courses)."""

import pytest
from django.core.management import CommandError, call_command
from games import replay as replays

from arena.accounts.models import Course
from arena.matches.models import Match
from arena.ratings.models import Rating

pytestmark = pytest.mark.django_db


def test_fills_bots_courses_and_finished_rated_matches_with_a_consistent_ladder():
    call_command("fill_scale_data", bots=12, courses=3, matches=40, replays=3, stdout=open("/dev/null", "w"))
    assert Course.objects.filter(code__startswith="scale-").count() == 3
    assert all(course.students.count() == 4 for course in Course.objects.filter(code__startswith="scale-"))
    matches = Match.objects.filter(status=Match.Status.FINISHED, rated=True)
    assert matches.count() == 40
    ratings = Rating.objects.all()
    assert ratings.count() == 12
    assert sum(r.played for r in ratings) == 80  # two seats a match
    assert sum(r.wins + r.draws + r.losses for r in ratings) == 80
    assert set(matches.values_list("purpose", flat=True)) == {Match.Purpose.LADDER}
    call_command("recompute_ratings", stdout=open("/dev/null", "w"))  # the stored ratings replay from the matches


def test_each_replay_replays_to_the_recorded_winners_and_names_the_seated_bots():
    call_command("fill_scale_data", bots=4, courses=1, matches=10, replays=2, stdout=open("/dev/null", "w"))
    for match in Match.objects.prefetch_related("seats__bot__owner"):
        final = replays.final_state(match.replay)
        assert final.is_terminal()
        assert final.winners() == match.winners
        assert match.replay["seed"] == match.seed
        assert match.replay["players"] == [seat.bot.label for seat in match.seats.all()]


def test_refuses_to_fill_twice_with_the_same_prefix():
    call_command("fill_scale_data", bots=2, courses=1, matches=1, replays=1, stdout=open("/dev/null", "w"))
    with pytest.raises(CommandError, match="already there"):
        call_command("fill_scale_data", bots=2, courses=1, matches=1, replays=1)
