"""Elo by pairwise comparison of placings, with K scaled by 1/(n-1).

The exact figures below were worked by hand (a calculator for the powers of ten), never by calling the
code under test: E(own, opp) = 1 / (1 + 10 ** ((opp - own) / 400)); change = K/(n-1) * sum(S - E).
"""

import io
from datetime import datetime, timedelta, timezone

import pytest
from django.core.management import CommandError, call_command

from arena.ratings.elo import outcome, rating_changes

K = 32
# 1600 against 1400: 10 ** (-200/400) = 10 ** -0.5 = 0.316227766, so E(1600, 1400) = 1 / 1.316227766
# = 0.759746927 and E(1400, 1600) = 0.240253073.
FAVOURITE_WINS = 32 * (1 - 0.759746927)     # = 7.688098
FAVOURITE_DRAWS = 32 * (0.5 - 0.759746927)   # = -8.311902
FAVOURITE_LOSES = 32 * (0 - 0.759746927)     # = -24.311902


def test_two_player_elo_between_equals_moves_half_of_k():
    assert rating_changes([1500, 1500], [1, 2], K) == pytest.approx([K / 2, -K / 2])


@pytest.mark.parametrize("placings, favourite_change", [
    ([1, 2], FAVOURITE_WINS),    # the expected win moves little
    ([1, 1], FAVOURITE_DRAWS),   # a draw costs the favourite: it scored 0.5 where 0.76 was expected
    ([2, 1], FAVOURITE_LOSES),   # the upset moves three times as much
])
def test_unequal_ratings_by_hand(placings, favourite_change):
    assert rating_changes([1600, 1400], placings, K) == pytest.approx([favourite_change, -favourite_change],
                                                                       abs=1e-5)


def test_three_seats_pairwise_by_hand():
    # Ratings 1500, 1600, 1700 placed 2nd, 1st, 3rd; each pair is a game worth K/(3-1) = 16.
    # E(1500,1600) = 1/(1+10**0.25) = 1/2.778279410 = 0.359935; E(1500,1700) = 1/(1+10**0.5) = 0.240253;
    # E(1600,1700) = 0.359935 (the same 100 apart).
    # 1500: 16 * ((0 - 0.359935) + (1 - 0.240253)) = 16 * 0.399812 = 6.396990
    # 1600: 16 * ((1 - 0.640065) + (1 - 0.359935)) = 16 * 1.0 = 16.0
    # 1700: 16 * ((0 - 0.759747) + (0 - 0.640065)) = 16 * -1.399812 = -22.396990
    assert rating_changes([1500, 1600, 1700], [2, 1, 3], K) == pytest.approx([6.396990, 16.0, -22.396990],
                                                                             abs=1e-5)


def test_shared_placing_scores_half_against_each_other():
    # Equals, two share first: each sharer scores 0.5 - 0.5 against the other and 1 - 0.5 against the
    # last: 16 * 0.5 = 8; the last scores 0 - 0.5 twice: 16 * -1 = -16.
    assert rating_changes([1500, 1500, 1500], [1, 1, 3], K) == pytest.approx([8, 8, -16])


def test_one_seat_or_none_changes_nothing():
    assert rating_changes([1500], [1], K) == [0.0]
    assert rating_changes([], [], K) == []


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_changes_sum_to_zero_and_follow_the_placings(seats):
    changes = rating_changes([1500 + 37 * s for s in range(seats)], list(range(1, seats + 1)), K)
    assert sum(changes) == pytest.approx(0)
    assert changes == sorted(changes, reverse=True)


def test_winning_a_multiplayer_match_is_worth_at_most_k():
    assert rating_changes([1500] * 6, [1, 2, 3, 4, 5, 6], K)[0] == pytest.approx(K / 2)


def test_outcomes_for_the_record():
    assert [outcome(p, [1, 2, 2]) for p in (1, 2)] == ["win", "loss"]
    assert outcome(1, [1, 1, 3]) == "draw"
    assert outcome(3, [1, 1, 3]) == "loss"


# --- recompute_ratings against the same arithmetic ------------------------------------------------------
# Three bots start at 1500 (ARENA_ELO_INITIAL) and play, in this order:
# 1. X beats Y:            X 1500 + 16 = 1516, Y 1500 - 16 = 1484.
# 2. Y draws with Z:       E(1484, 1500) = 1/(1+10**(16/400)) = 1/(1+1.096478196) = 0.476990413;
#                          Y += 32 * (0.5 - 0.476990413) = +0.736306794 -> 1484.736306794; Z -> 1499.263693206.
# 3. X first, Y and Z share second (K/2 = 16 a pair):
#    E(X,Y) = 1/(1+10**(-31.263693206/400)) = 0.544871027; E(X,Z) = 1/(1+10**(-16.736306794/400)) = 0.524066869;
#    E(Y,Z) = 1/(1+10**(14.527386412/400)) = 0.479105586.
#    X: 16 * ((1 - 0.544871027) + (1 - 0.524066869)) = +14.896993654 -> 1530.896993654 (2 played: 2 wins)
#    Y: 16 * ((0 - 0.455128973) + (0.5 - 0.479105586)) = -6.947752934 -> 1477.788553860 (3: 1 draw, 2 losses)
#    Z: 16 * ((0 - 0.475933131) + (0.5 - 0.520894414)) = -7.949240720 -> 1491.314452487 (2: 1 draw, 1 loss)
# Each match as (bot, placing, rating before, rating after) per seat, as the platform stores it.
HISTORY = [
    [("X", 1, 1500.0, 1516.0), ("Y", 2, 1500.0, 1484.0)],
    [("Y", 1, 1484.0, 1484.736306794), ("Z", 1, 1500.0, 1499.263693206)],
    [("X", 1, 1516.0, 1530.896993654), ("Y", 2, 1484.736306794, 1477.788553860),
     ("Z", 2, 1499.263693206, 1491.314452487)],
]
EXPECTED = {"X": (1530.896993654, 2, 2, 0, 0), "Y": (1477.788553860, 3, 0, 1, 2), "Z": (1491.314452487, 2, 0, 1, 1)}


def recorded_history():
    """The three matches above, finished and rated with their seats' ratings, but no Rating rows yet."""
    from arena.bots.models import Bot
    from arena.matches.models import Match, MatchSeat

    bots = {label: Bot.objects.builtin("sortinggame", name) for label, name in
            zip("XYZ", ("random", "honest", "shrewd"))}
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    played = dict.fromkeys(bots, 0)
    for number, seats in enumerate(HISTORY):
        match = Match.objects.create(game="sortinggame", seed=number, rated=True, status=Match.Status.FINISHED,
                                     finished_at=start + timedelta(hours=number), replay={})
        for seat, (label, placing, before, after) in enumerate(seats):
            played[label] += 1  # the bot's first, second... rated match
            MatchSeat.objects.create(match=match, seat=seat, bot=bots[label], placing=placing,
                                     rating_before=before, rating_after=after, rated_number=played[label])
    return bots


@pytest.mark.django_db
def test_recompute_ratings_agrees_with_the_hand_worked_history():
    from arena.ratings.models import Rating

    bots = recorded_history()
    with pytest.raises(CommandError, match="3 disagreements"):  # the seats agree; the three Rating rows are missing
        call_command("recompute_ratings")
    call_command("recompute_ratings", fix=True)
    for label, (value, played, wins, draws, losses) in EXPECTED.items():
        rating = Rating.objects.get(bot=bots[label])
        assert rating.value == pytest.approx(value, abs=1e-6), label
        assert (rating.played, rating.wins, rating.draws, rating.losses) == (played, wins, draws, losses), label
    call_command("recompute_ratings")


@pytest.mark.django_db
def test_recompute_ratings_names_a_seat_whose_stored_change_is_wrong():
    from arena.matches.models import MatchSeat

    recorded_history()
    call_command("recompute_ratings", fix=True)
    MatchSeat.objects.filter(match__seed=1, seat=0).update(rating_after=1484.74)  # off by 0.0037
    with pytest.raises(CommandError, match="1 disagreements"):
        call_command("recompute_ratings")

    # --fix puts the hand-worked value back on the seat (the bot's history chart reads it), then all agree.
    call_command("recompute_ratings", fix=True)
    assert MatchSeat.objects.get(match__seed=1, seat=0).rating_after == pytest.approx(1484.736306794, abs=1e-6)
    call_command("recompute_ratings")


@pytest.mark.django_db
def test_recompute_ratings_fix_resets_a_rating_left_without_any_rated_match():
    from arena.bots.models import Bot
    from arena.ratings.models import Rating

    bots = recorded_history()
    call_command("recompute_ratings", fix=True)
    stray = Rating.objects.create(bot=Bot.objects.builtin("endgame", "greedy"), value=1650, played=3, wins=3)
    report = io.StringIO()
    with pytest.raises(CommandError, match="1 disagreements"):
        call_command("recompute_ratings", stdout=report)
    assert "greedy: stored 1650.00 (3 played, 3-0-0) but it played no rated match" in report.getvalue()
    call_command("recompute_ratings", fix=True)
    assert not Rating.objects.filter(pk=stray.pk).exists()
    assert Rating.objects.get(bot=bots["X"]).value == pytest.approx(EXPECTED["X"][0], abs=1e-6)
    call_command("recompute_ratings")


def _rated_out_of_order() -> dict:
    """Two rated matches sharing builtin:optimal, finished the other way round from how they were made:
    {(match id, bot id): the rated_number each seat should have}."""
    from arena.bots.models import Bot
    from arena.matches import services
    from platform_helpers import play_now

    optimal, random_bot, greedy = (Bot.objects.builtin("endgame", name) for name in ("optimal", "random", "greedy"))
    first = services.create_match("endgame", [optimal, random_bot], purpose="challenge", rated=True)
    second = services.create_match("endgame", [optimal, greedy], purpose="challenge", rated=True)
    for match in (second, first):
        play_now(match)
    return {(second.pk, optimal.pk): 1, (second.pk, greedy.pk): 1, (first.pk, optimal.pk): 2, (first.pk, random_bot.pk): 1}


def _rated_numbers() -> dict:
    from arena.matches.models import MatchSeat

    return {(seat.match_id, seat.bot_id): seat.rated_number for seat in MatchSeat.objects.all()}


@pytest.mark.django_db
def test_each_rated_seat_numbers_its_bots_rated_matches_in_the_order_they_were_applied():
    expected = _rated_out_of_order()
    assert _rated_numbers() == expected


@pytest.mark.django_db
def test_the_migration_numbers_the_rated_seats_recorded_before_it_as_the_ratings_did():
    import importlib

    from django.db import connection

    from arena.matches.models import MatchSeat

    expected = _rated_out_of_order()
    MatchSeat.objects.update(rated_number=None)
    migration = importlib.import_module("arena.matches.migrations.0006_seat_rated_number")
    with connection.cursor() as cursor:
        cursor.execute(migration.NUMBER_RATED_SEATS)
    assert _rated_numbers() == expected
