"""What every format shares: the entrants, withdrawals, and series decided without play."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Mapping

from .model import Outcome, Series, Standing, pair_outcome

Outcomes = Mapping[str, Outcome]


class Format(ABC):
    """One tournament format. Subclasses list the series and rank the entrants from the outcomes so far."""

    # Points a bye gives in the standings (Swiss gives a full point, as chess does; elsewhere nothing).
    bye_points = 0.0

    def __init__(self, entrants: int, withdrawn: frozenset[int]):
        self.entrants = entrants
        self.withdrawn = withdrawn

    @property
    def active(self) -> list[int]:
        return [e for e in range(self.entrants) if e not in self.withdrawn]

    @abstractmethod
    def series(self, outcomes: Outcomes) -> list[Series]:
        """Every series known so far, in play order (future bracket slots and byes included)."""

    @abstractmethod
    def standings(self, outcomes: Outcomes) -> list[Standing]:
        """The entrants ranked on the outcomes so far (provisional until the tournament is finished)."""

    def finished(self, outcomes: Outcomes) -> bool:
        return all(self.decided(s, outcomes) is not None for s in self.series(outcomes))

    def champion(self, outcomes: Outcomes) -> int | None:
        """The entrant alone in first place once the tournament is finished (None for a shared first place)."""
        if not self.finished(outcomes):
            return None
        match [row.entrant for row in self.standings(outcomes) if row.place == 1]:
            case [alone]:
                return alone
        return None

    def table_sizes(self) -> set[int]:
        """How many seats the played series need (2 except in heats)."""
        return {2}

    @abstractmethod
    def series_bound(self) -> int:
        """The most series the whole tournament can play, byes and walkovers aside, whatever the results:
        what its progress is measured against."""

    def walkover(self, series: Series) -> Outcome | None:
        """The outcome of a series decided without play: a bye, or a withdrawn entrant, who loses it."""
        if None in series.entrants:
            return None
        if series.bye:
            return self.bye_outcome(series)
        withdrawn = [e for e in series.entrants if e in self.withdrawn]
        if not withdrawn:
            return None
        if len(series.entrants) != 2:
            raise AssertionError("withdrawn entrants never sit in a heats pod")
        first, second = series.entrants
        if first in self.withdrawn and second in self.withdrawn:  # the higher seed goes on, neither scores
            winner, loser = min(first, second), max(first, second)
            return Outcome({winner: 1, loser: 2}, {winner: 0.0, loser: 0.0})
        return pair_outcome(second, first) if first in self.withdrawn else pair_outcome(first, second)

    def bye_outcome(self, series: Series) -> Outcome:
        """A bye: the entrants place in seed order and score `bye_points` each."""
        return Outcome(
            {entrant: place for place, entrant in enumerate(series.entrants, 1)},
            {entrant: self.bye_points for entrant in series.entrants},
        )

    def decided(self, series: Series, outcomes: Outcomes) -> Outcome | None:
        return outcomes.get(series.key) or self.walkover(series)

    def points(self, outcomes: Outcomes) -> dict[int, float]:
        """Each entrant's total of series points, byes included."""
        totals = {e: 0.0 for e in range(self.entrants)}
        for series in self.series(outcomes):
            outcome = self.decided(series, outcomes)
            for entrant, points in (outcome.points.items() if outcome else ()):
                totals[entrant] += points
        return totals


def opponent_tiebreaks(fmt: Format, outcomes: Outcomes) -> tuple[dict[int, float], dict[int, dict[str, float]]]:
    """Points, and the Buchholz and Sonneborn-Berger scores of each entrant (two-entrant series only).

    Buchholz: the sum of the final points of every opponent met. Sonneborn-Berger: the sum, over the
    series played, of the points the entrant took from it times that opponent's final points (a win
    against a strong opponent counts for more). Byes meet nobody and add to neither.
    """
    points = fmt.points(outcomes)
    tiebreaks = {e: {"buchholz": 0.0, "sonneborn_berger": 0.0} for e in range(fmt.entrants)}
    for series in fmt.series(outcomes):
        outcome = fmt.decided(series, outcomes)
        if series.bye or outcome is None:
            continue
        first, second = series.entrants
        for me, opponent in ((first, second), (second, first)):
            tiebreaks[me]["buchholz"] += points[opponent]
            tiebreaks[me]["sonneborn_berger"] += outcome.points[me] * points[opponent]
    return points, tiebreaks
