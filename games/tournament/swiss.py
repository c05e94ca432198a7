"""Swiss system: a few rounds, each pairing entrants on equal scores, never twice the same pair.

Each round is paired as a maximum-weight matching (networkx's blossom algorithm) over the pairs that
have not met yet, so the whole round is paired at once rather than greedily from the top (a greedy
pairing can leave the last two entrants of a round as a rematch). In this order:
1. everybody paired (maximum cardinality);
2. with an odd count, the bye to the lowest-ranked entrant who has not had one and whose absence leaves
   the others a complete pairing (so to the lowest score first, as FIDE's C.04 and most Swiss rules do);
3. scores as equal as possible: the sum of squared score differences is least;
4. inside a score group, the top half meets the bottom half (1st against the (g/2+1)-th of a group of
   g, as the Dutch system does).
Ranking for pairing: points, then seed. Seats: whoever sat first in fewer series sits first (the series
itself is seat-balanced; this only evens out who opens).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import networkx as nx

from .base import Format, Outcomes, opponent_tiebreaks
from .model import Series, Standing, rank


def max_rounds(players: int) -> int:
    """The most rounds that can always be paired without a rematch, whatever the results.

    After r rounds each entrant (with a phantom one when the count is odd, whose partner has the bye)
    still has N-1-r possible partners among N; while that is at least N/2, Dirac's theorem gives a
    Hamiltonian cycle and so a full pairing: N/2 rounds. Four is the exception: its 6 pairs are exactly
    3 disjoint pairings, so after any rounds the pairs left make the next (3 rounds for 3 or 4 entrants).
    Beyond it a pairing can dead-end (6 entrants after 3 rounds: two triangles of unmet pairs), so more
    rounds are refused: play a round robin instead.
    """
    nodes = players + players % 2
    return 3 if nodes == 4 else nodes // 2


class Swiss(Format):
    bye_points = 1.0

    def __init__(self, entrants: int, withdrawn: frozenset[int], rounds: int | None):
        super().__init__(entrants, withdrawn)
        players = len(self.active)
        if players < 2:
            raise ValueError("swiss needs at least 2 entrants who are not withdrawn")
        limit = max_rounds(players)
        self.rounds = min(limit, math.ceil(math.log2(players))) if rounds is None else rounds
        if not 1 <= self.rounds <= limit:
            raise ValueError(f"swiss with {players} entrants can be paired without rematches for 1 to {limit} "
                             f"rounds, not {self.rounds}; use round-robin for more")
        self._pairings: dict[tuple, list[Series]] = {}

    def series_bound(self) -> int:
        return self.rounds * (len(self.active) // 2)

    def series(self, outcomes: Outcomes) -> list[Series]:
        """Rounds paired so far: the next round is paired once every series of the last one is decided.

        Every round has a series to play (two entrants at least are active), so the tournament is
        finished exactly when every series listed is decided (`Format.finished`)."""
        listed: list[Series] = []
        for round_number in range(1, self.rounds + 1):
            if any(self.decided(s, outcomes) is None for s in listed):
                return listed
            history = tuple((s, self.decided(s, outcomes)) for s in listed)
            memo_key = tuple((s.key, s.entrants, tuple(sorted(o.points.items()))) for s, o in history)
            if memo_key not in self._pairings:
                self._pairings[memo_key] = self._pair_round(round_number, history)
            listed += self._pairings[memo_key]
        return listed

    def _pair_round(self, round_number: int, history) -> list[Series]:
        points: Counter = Counter()
        for _, outcome in history:
            points.update(outcome.points)
        met = {frozenset(series.entrants) for series, _ in history if not series.bye}
        had_bye = {e for series, _ in history if series.bye for e in series.entrants}
        opened = Counter(series.entrants[0] for series, _ in history if not series.bye)  # a bye is no seat
        order = sorted(self.active, key=lambda e: (-points[e], e))
        pairs, bye = self._matching(round_number, order, points, met, had_bye)
        position = {e: i for i, e in enumerate(order)}
        tables = [sorted(pair, key=position.get) for pair in pairs]
        if bye is not None:
            tables.append([bye])
        listed = []
        for table, entrants in enumerate(sorted(tables, key=lambda t: position[t[0]]), 1):
            key = f"S{round_number}-{table}"
            if entrants == [bye]:
                listed.append(Series(key, round_number, None, (bye,), bye=True, drawable=True))
            else:
                higher, lower = entrants
                seats = (lower, higher) if opened[lower] < opened[higher] else (higher, lower)
                listed.append(Series(key, round_number, None, seats, drawable=True))
        return listed

    def _matching(self, round_number: int, order: list[int], points, met: set, had_bye: set):
        """The pairs of the round and the entrant with the bye (None for an even count)."""
        halves = {e: round(2 * points[e]) for e in order}  # scores in half points: integer weights, exact
        group_size = Counter(halves.values())
        count = len(order)
        # Pairings differ by 2 squared half points at least (the sum has the parity of the paired entrants'
        # total), which outweighs every Dutch-order total: under count // 2 pairs of count - 2 at most each.
        scale = count * count
        graph = nx.Graph()
        graph.add_nodes_from(order)
        for (i, first), (j, second) in itertools.combinations(enumerate(order), 2):
            if frozenset((first, second)) not in met:
                dutch = abs((j - i) - max(1, group_size[halves[first]] // 2))
                graph.add_edge(first, second, weight=-scale * (halves[first] - halves[second]) ** 2 - dutch)
        # Weights are never positive: maxcardinality pairs everybody first, whatever the weights.
        candidates = [e for e in reversed(order) if e not in had_bye] if count % 2 else [None]
        for bye in candidates:
            rest = graph.subgraph(set(order) - {bye})
            pairs = nx.max_weight_matching(rest, maxcardinality=True)
            if nx.is_perfect_matching(rest, pairs):
                return pairs, bye
        raise AssertionError(f"swiss round {round_number} cannot be paired without a rematch")

    def standings(self, outcomes: Outcomes) -> list[Standing]:
        """Points, then Buchholz, then Sonneborn-Berger; withdrawn entrants (never paired) come last."""
        points, tiebreaks = opponent_tiebreaks(self, outcomes)
        keys = {e: (e in self.withdrawn, -points[e], -tiebreaks[e]["buchholz"], -tiebreaks[e]["sonneborn_berger"])
                for e in points}
        return rank(keys, points, tiebreaks)
