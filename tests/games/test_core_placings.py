"""Placings read the game's declared score order: points (higher is better) or a cost (lower is better)."""

from games.core import ScoreOrder, placings


def test_higher_scores_place_better_by_default_and_failed_seats_place_last():
    assert placings([3, 7, 7, 1], failed=[3]) == [3, 1, 1, 4]


def test_lower_scores_place_better_when_the_game_counts_a_cost():
    assert placings([3, 7, 7, 1], order=ScoreOrder.LOWER_IS_BETTER) == [2, 3, 3, 1]
    assert placings([5, 2, 9], failed=[1], order=ScoreOrder.LOWER_IS_BETTER) == [1, 3, 2]
