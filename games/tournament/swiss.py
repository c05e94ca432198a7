"""Swiss system: a few rounds, each pairing entrants on equal scores, never twice the same pair.

Each round is paired as a maximum-weight matching (networkx's blossom algorithm) over the pairs that
have not met yet, so the whole round is paired at once rather than greedily from the top (a greedy
pairing can leave the last two entrants of a round as a rematch). The weights put, in this order:
1. everybody paired (maximum cardinality), with at most one bye per entrant over the tournament;
2. scores as equal as possible: the sum of squared score differences is least;
3. inside a score group, the top half meets the bottom half (1st against the (g/2+1)-th of a group of
   g, as the Dutch system does), and the bye goes to the lowest-ranked entrant of the lowest score.
Ranking for pairing: points, then seed. Seats: whoever sat first in fewer series sits first (the series
itself is seat-balanced; this only evens out who opens).
"""

from __future__ import annotations

import math

import networkx as nx

from .base import Format, Outcomes, opponent_tiebreaks
from .model import Series, Standing, rank

BYE = -1  # the phantom entrant whose partner has the bye


def max_rounds(players: int) -> int:
    """The most rounds that can always be paired without a rematch, whatever the results.

    After r rounds each entrant (with a phantom one when the count is odd) still has N-1-r possible
    partners among N; while that is at least N/2, Dirac's theorem gives a Hamiltonian cycle and so a
    full pairing. Beyond it a pairing can dead-end (6 entrants after 3 rounds: two triangles of
    unmet pairs), so more rounds are refused: play a round robin instead.
    """
    nodes = players + players % 2
    return min(players - 1, nodes - 1 if nodes <= 4 else nodes // 2)


class Swiss(Format):
    bye_points = 1.0

    def __init__(self, entrants: int, withdrawn: frozenset[int], rounds: int | None):
        super().__init__(entrants, withdrawn)
        players = len(self.active)
        if players < 2:
            raise ValueError("swiss needs at least 2 entrants who are not withdrawn")
        limit = max_rounds(players)
        self.rounds = min(limit, max(1, math.ceil(math.log2(players)))) if rounds is None else rounds
        if not 1 <= self.rounds <= limit:
            raise ValueError(f"swiss with {players} entrants can be paired without rematches for 1 to {limit} "
                             f"rounds, not {self.rounds}; use round-robin for more")
        self._pairings: dict[tuple, list[Series]] = {}

    def series(self, outcomes: Outcomes) -> list[Series]:
        """Rounds paired so far: the next round is paired once every series of the last one is decided."""
        listed: list[Series] = []
        for round_number in range(1, self.rounds + 1):
            if any(self.decided(s, outcomes) is None for s in listed):
                break
            history = tuple((s, self.decided(s, outcomes)) for s in listed)
            memo_key = tuple((s.key, s.entrants, tuple(sorted(o.points.items()))) for s, o in history)
            if memo_key not in self._pairings:
                self._pairings[memo_key] = self._pair_round(round_number, history)
            listed += self._pairings[memo_key]
        return listed

    def finished(self, outcomes: Outcomes) -> bool:
        listed = self.series(outcomes)
        return bool(listed) and listed[-1].round == self.rounds and super().finished(outcomes)

    def _pair_round(self, round_number: int, history) -> list[Series]:
        points = {e: 0.0 for e in self.active}
        met: set[frozenset[int]] = set()
        opened = {e: 0 for e in self.active}
        for series, outcome in history:
            for entrant, gained in outcome.points.items():
                points[entrant] += gained
            partners = series.entrants if not series.bye else (series.entrants[0], BYE)
            met.add(frozenset(partners))
            opened[series.entrants[0]] += 1
        order = sorted(self.active, key=lambda e: (-points[e], e))
        pairs = self._matching(order, points, met)
        if len(pairs) * 2 < len(order):
            raise AssertionError(f"swiss round {round_number} cannot be paired without a rematch")
        position = {e: i for i, e in enumerate(order)}
        position[BYE] = len(order)
        tables = sorted((sorted(pair, key=lambda e: position[e]) for pair in pairs), key=lambda p: position[p[0]])
        listed = []
        for table, (higher, lower) in enumerate(tables, 1):
            key = f"S{round_number}-{table}"
            if lower == BYE:
                listed.append(Series(key, round_number, None, (higher,), bye=True, drawable=True))
            else:
                seats = (lower, higher) if opened[lower] < opened[higher] else (higher, lower)
                listed.append(Series(key, round_number, None, seats, drawable=True))
        return listed

    def _matching(self, order: list[int], points: dict[int, float], met: set) -> list[tuple[int, int]]:
        halves = {e: round(2 * points[e]) for e in order}  # scores in half points: integer weights, exact
        group_size = {e: sum(1 for o in order if halves[o] == halves[e]) for e in order}
        count = len(order)
        lowest = min(halves.values())
        scale = count * count + 1  # one step of score difference outweighs every Dutch-order preference
        base = scale * (max(halves.values()) - lowest + 1) ** 2 + count + 1  # keeps every weight positive
        graph = nx.Graph()
        for i, first in enumerate(order):
            for j in range(i + 1, count):
                second = order[j]
                if frozenset((first, second)) in met:
                    continue
                dutch = abs((j - i) - max(1, group_size[first] // 2))
                graph.add_edge(first, second, weight=base - scale * (halves[first] - halves[second]) ** 2 - dutch)
            if count % 2 and frozenset((first, BYE)) not in met:
                graph.add_edge(first, BYE, weight=base - scale * (halves[first] - lowest) ** 2 - (count - 1 - i))
        return [tuple(pair) for pair in nx.max_weight_matching(graph, maxcardinality=True)]

    def standings(self, outcomes: Outcomes) -> list[Standing]:
        """Points, then Buchholz, then Sonneborn-Berger; withdrawn entrants (never paired) come last."""
        points, tiebreaks = opponent_tiebreaks(self, outcomes)
        keys = {e: (e in self.withdrawn, -points[e], -tiebreaks[e]["buchholz"], -tiebreaks[e]["sonneborn_berger"])
                for e in points}
        return rank(keys, points, tiebreaks)
