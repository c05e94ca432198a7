"""Elo by pairwise comparison of placings, with K scaled by 1/(n-1).

The exact figures below were worked by hand (a calculator for the powers of ten), never by calling the
code under test: E(own, opp) = 1 / (1 + 10 ** ((opp - own) / 400)); change = K/(n-1) * sum(S - E).
"""

import pytest

from arena.ratings.elo import rating_changes

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
