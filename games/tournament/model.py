"""The values every tournament format speaks in: series to play, their outcomes, and standings.

Entrant ids are seed order: entrant 0 is the top seed. The caller sorts (by rating, or keeps the order
given) before it builds a tournament.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FORMATS = ("round-robin", "single-elimination", "double-elimination", "swiss", "heats")


@dataclass(frozen=True)
class Series:
    """One pairing (2 entrants) or pod (heats) to be played as a series of games."""

    # Unique and stable for the same (format, n, options, outcomes so far): "R1-2", "W2-1", "GF1", "H2-P3".
    key: str
    round: int  # 1-based, within its bracket
    bracket: str | None  # "winners", "losers", "final", or None
    entrants: tuple[int | None, ...]  # None: a bracket slot whose entrant is not known yet
    bye: bool = False  # one entrant (or a heats pod no bigger than `advance`), decided without play
    advance: int | None = None  # heats: how many of this pod go on (None elsewhere and for the final)
    winner_to: str | None = None  # bracket drawing: the series the winner goes to
    loser_to: str | None = None  # double elimination: the series the loser goes to
    # Round robin and Swiss series may end level (a draw); elimination and heats series never do.
    drawable: bool = False


@dataclass(frozen=True)
class Outcome:
    """The decided result of one series."""

    placings: dict[int, int]  # entrant -> 1-based place in the series; ties share a place
    points: dict[int, float]  # entrant -> points the series gives it in the standings


@dataclass(frozen=True)
class Standing:
    entrant: int
    place: int  # 1-based; equal standings share a place
    points: float
    tiebreaks: dict[str, float] = field(default_factory=dict)


def series_winner(outcome: Outcome) -> int | None:
    """The entrant placed first alone, or None for a drawn series."""
    first = [entrant for entrant, place in outcome.placings.items() if place == 1]
    return first[0] if len(first) == 1 else None


def pair_outcome(winner: int, loser: int, draw: bool = False) -> Outcome:
    """A two-entrant series result: win 1 point, loss 0, draw half a point each."""
    if draw:
        return Outcome({winner: 1, loser: 1}, {winner: 0.5, loser: 0.5})
    return Outcome({winner: 1, loser: 2}, {winner: 1.0, loser: 0.0})


def places_from_keys(keys: dict[int, tuple]) -> dict[int, int]:
    """1-based places from sort keys (smaller is better): equal keys share a place."""
    return {entrant: 1 + sum(1 for other in keys.values() if other < key) for entrant, key in keys.items()}


def rank(keys: dict[int, tuple], points: dict[int, float], tiebreaks: dict[int, dict[str, float]]) -> list[Standing]:
    """Standings sorted by place, then entrant id, from sort keys (smaller is better)."""
    places = places_from_keys(keys)
    return [
        Standing(entrant, places[entrant], points[entrant], tiebreaks.get(entrant, {}))
        for entrant in sorted(keys, key=lambda e: (places[e], e))
    ]
