"""Elo for matches of any number of seats, by pairwise comparison of placings.

Every pair of seats is one virtual game: the better placing scores 1, equal placings 0.5 each, the worse
0. A seat's change is K / (n - 1) times the sum over its n - 1 opponents of (actual - expected), where
expected = 1 / (1 + 10 ** ((opponent - own) / 400)). With two seats this is plain Elo with factor K; the
scaling keeps a multiplayer match worth as much as one two-player game. The changes sum to zero.
"""


def expected_score(own: float, opponent: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((opponent - own) / 400.0))


def pair_score(own_placing: int, other_placing: int) -> float:
    if own_placing < other_placing:
        return 1.0
    return 0.5 if own_placing == other_placing else 0.0


def rating_changes(ratings: list[float], placings: list[int], k: float) -> list[float]:
    """The change of each seat's rating after a match with these placings (1 = first)."""
    seats = len(ratings)
    if seats < 2:
        return [0.0] * seats
    factor = k / (seats - 1)
    return [
        factor * sum(
            pair_score(placings[i], placings[j]) - expected_score(ratings[i], ratings[j])
            for j in range(seats) if j != i
        )
        for i in range(seats)
    ]


def outcome(placing: int, placings: list[int]) -> str:
    """win (sole first place), draw (shared first place) or loss, for the ladder's record."""
    if placing != 1:
        return "loss"
    return "draw" if placings.count(1) > 1 else "win"
