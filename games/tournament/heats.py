"""Heats for games of 3 to 6 players: pods, the best of each pod go on, until one final table.

Each round the entrants still in are ranked (round 1: by seed; later: by their place in the pod they
came from, then by seed) and dealt into ceil(m / pod_size) pods like cards in a snake: pods 1..p,
then p..1, and so on, so every pod gets a fair share of strong and weak seeds and the pod sizes differ
by at most one. The top `advance` of each pod go on. A pod no bigger than `advance` is a bye: all of
it goes on. When at most pod_size remain they play the final table, whose placings are the podium.
Withdrawn entrants are never dealt into a pod; they rank last.
"""

from __future__ import annotations

import math

from .base import Format, Outcomes
from .model import Series, Standing, rank

DEFAULT_POD_SIZE = 4


def snake(ranked: list[int], pods: int) -> list[list[int]]:
    dealt: list[list[int]] = [[] for _ in range(pods)]
    for position, entrant in enumerate(ranked):
        row, column = divmod(position, pods)
        dealt[column if row % 2 == 0 else pods - 1 - column].append(entrant)
    return dealt


def advancing(pod_size: int | None, advance: int | None) -> int:
    """How many of each pod go on: `advance`, or by default half the pod (at least one)."""
    return max(1, (DEFAULT_POD_SIZE if pod_size is None else pod_size) // 2) if advance is None else advance


class Heats(Format):
    def __init__(self, entrants: int, withdrawn: frozenset[int], pod_size: int | None, advance: int | None):
        super().__init__(entrants, withdrawn)
        self.pod_size = DEFAULT_POD_SIZE if pod_size is None else pod_size
        self.advance = advancing(pod_size, advance)
        if self.pod_size < 3:
            raise ValueError(f"heats need a pod size of at least 3, not {self.pod_size}")
        if not 1 <= self.advance < self.pod_size:
            raise ValueError(f"heats: advance must be 1 to pod size - 1 ({self.pod_size - 1}), not {self.advance}")
        if len(self.active) < 2:
            raise ValueError("heats need at least 2 entrants who are not withdrawn")
        self.round_pods = self._plan(len(self.active))

    def _plan(self, remaining: int) -> list[list[int]]:
        """The pod sizes of every round, fixed by the numbers alone."""
        rounds = []
        while True:
            pods = math.ceil(remaining / self.pod_size)
            sizes = [len(pod) for pod in snake(list(range(remaining)), pods)]
            rounds.append(sizes)
            if pods == 1:
                return rounds
            going_on = sum(min(self.advance, size) for size in sizes)
            if going_on >= remaining:
                raise ValueError(f"heats with pods of {self.pod_size} and {self.advance} advancing cannot "
                                 f"narrow {remaining} entrants down (pods of {sizes}); advance fewer")
            remaining = going_on

    def table_sizes(self) -> set[int]:
        final = len(self.round_pods) - 1
        return {size for r, sizes in enumerate(self.round_pods) for size in sizes
                if r == final or size > self.advance}

    def series_bound(self) -> int:
        """Every pod of every round but the byes (the round sizes are fixed by the numbers alone)."""
        final = len(self.round_pods) - 1
        return sum(1 for r, sizes in enumerate(self.round_pods) for size in sizes if r == final or size > self.advance)

    def series(self, outcomes: Outcomes) -> list[Series]:
        listed: list[Series] = []
        ranked: list[int] | None = list(self.active)
        for round_index, sizes in enumerate(self.round_pods):
            final = round_index == len(self.round_pods) - 1
            pods = snake(ranked, len(sizes)) if ranked is not None else [[None] * size for size in sizes]
            this_round = [
                Series(f"H{round_index + 1}-P{number}", round_index + 1, "final" if final else None, tuple(pod),
                       bye=not final and len(pod) <= self.advance, advance=None if final else self.advance)
                for number, pod in enumerate(pods, 1)
            ]
            listed += this_round
            ranked = self._going_on(this_round, outcomes) if ranked is not None else None
        return listed

    def _going_on(self, pods: list[Series], outcomes: Outcomes) -> list[int] | None:
        """Those who go on from a round, ranked for the next deal; None until every pod is decided."""
        placed = []
        for pod in pods:
            outcome = self.decided(pod, outcomes)
            if outcome is None:
                return None
            placed += [(place, entrant) for entrant, place in outcome.placings.items() if place <= self.advance]
        return [entrant for _, entrant in sorted(placed)]

    def standings(self, outcomes: Outcomes) -> list[Standing]:
        """Later round first, then place in the last pod played; the same round and pod place share a
        place. Points: pod members beaten, summed over the rounds. No tie-breaks."""
        reached = {e: (0, 0) for e in range(self.entrants)}  # entrant -> (round reached, place there)
        points = {e: 0.0 for e in range(self.entrants)}
        for pod in self.series(outcomes):
            outcome = self.decided(pod, outcomes)
            for entrant in pod.entrants:
                if entrant is not None:
                    reached[entrant] = (pod.round, outcome.placings[entrant] if outcome else 0)
            for entrant, gained in (outcome.points.items() if outcome else ()):
                points[entrant] += gained
        keys = {e: (e in self.withdrawn, -round_reached, place) for e, (round_reached, place) in reached.items()}
        return rank(keys, points, {})
