"""Elo by pairwise comparison of placings, with K scaled by 1/(n-1)."""

import pytest

from ratings.elo import outcome, rating_changes

K = 32


def test_two_player_elo_between_equals_moves_half_of_k():
    assert rating_changes([1500, 1500], [1, 2], K) == pytest.approx([K / 2, -K / 2])


def test_a_draw_counts_half_and_moves_the_favourite_down():
    changes = rating_changes([1700, 1500], [1, 1], K)
    assert changes[0] < 0 < changes[1]
    assert rating_changes([1500, 1500], [1, 1], K) == pytest.approx([0, 0])


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
