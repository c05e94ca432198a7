"""The pairing room's schedule: a class plays a game in rounds, each round against someone new.

The rule book's first exercise, as a schedule: each round pairs everybody present, every pair plays two games
(each of the two first once), and the next round pairs them again with new opponents. Players may join or
leave between rounds, so a round is paired from who is present and who has met whom so far (`pair_round`);
`schedule` pairs several rounds of the same players in a row.

A round is a maximum-weight matching (networkx's blossom algorithm, as in the Swiss format) over everybody
present and, when their count is odd, the built-in bot (`BUILTIN`), in this order:
1. everybody plays (the matching is perfect);
2. with an odd count, the built-in partners one of the players who have played it least so far, so that
   over the rounds nobody plays it twice before everybody has played it once;
3. the fewest repeats: the pairs' counts of earlier meetings add up to the least possible, so nobody meets an
   old opponent while a pairing of new opponents exists for the round;
4. ties broken by the seed, so the same facts always give the same round.

A round is paired from the present alone, so a late round can repeat a pair although a cleverer choice of
earlier rounds would have avoided it (six players after three rounds can be left with two triangles of
unmet pairs): rounds 1 to `swiss.max_rounds` never repeat, later ones repeat as little as their round can.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

# The partner of the odd player out: the room's built-in bot.
BUILTIN = None


class _Builtin:
    """The built-in's node in the matching graph (networkx takes no None for a node)."""


@dataclass(frozen=True)
class Pairing:
    """Two players of a round (`second` is BUILTIN for the odd player out), for two games: each first once."""

    first: Hashable
    second: Hashable

    @property
    def games(self) -> tuple[tuple[Hashable, Hashable], tuple[Hashable, Hashable]]:
        """The two games' seat orders: (who sits first, who sits second)."""
        return (self.first, self.second), (self.second, self.first)

    @property
    def against_builtin(self) -> bool:
        return self.second is BUILTIN


def meetings(rounds: Iterable[Iterable[Pairing]]) -> Counter:
    """How often each pair of players has met in `rounds` (keys: frozensets of two players; the built-in's
    games are not meetings)."""
    return Counter(frozenset((p.first, p.second)) for pairings in rounds for p in pairings if not p.against_builtin)


def builtin_games(rounds: Iterable[Iterable[Pairing]]) -> Counter:
    """How many rounds each player has spent against the built-in in `rounds`."""
    return Counter(p.first for pairings in rounds for p in pairings if p.against_builtin)


def pair_round(players: Sequence[Hashable], met: Mapping[frozenset, int] | None = None,
               byes: Mapping[Hashable, int] | None = None, seed: int = 0) -> list[Pairing]:
    """The pairings of one round of `players` (distinct, any order), given how often pairs have `met` and how
    many rounds each player has spent against the built-in (`byes`); see the module's docstring. A single
    player plays the built-in; nobody present, no pairings."""
    if len(set(players)) != len(players) or BUILTIN in players:
        raise ValueError("players are distinct and none of them is BUILTIN")
    met, byes = met or {}, byes or {}
    rng = random.Random(seed)
    order = list(players)
    rng.shuffle(order)
    graph = nx.Graph()
    graph.add_nodes_from(order)
    count = len(order)
    # A tie-break is under `count` per pair and a matching has count // 2 + 1 pairs at most: their sum stays
    # under `scale`, so one meeting less always outweighs any tie-break.
    scale = (count + 1) ** 2
    for first, second in itertools.combinations(order, 2):
        repeats = met.get(frozenset((first, second)), 0)
        graph.add_edge(first, second, weight=-scale * repeats - rng.randrange(count))
    if count % 2:
        fewest = min(byes.get(player, 0) for player in order)
        graph.add_node(_Builtin)
        for player in order:
            if byes.get(player, 0) == fewest:
                graph.add_edge(player, _Builtin, weight=-rng.randrange(count))
    # Weights are never positive: maxcardinality makes the matching perfect first, whatever the weights.
    matched = nx.max_weight_matching(graph, maxcardinality=True)
    position = {player: index for index, player in enumerate(order)}
    pairings = []
    for pair in matched:
        if _Builtin in pair:
            pairings.append(Pairing(next(p for p in pair if p is not _Builtin), BUILTIN))
        else:
            first, second = sorted(pair, key=position.__getitem__)
            pairings.append(Pairing(first, second))
    return sorted(pairings, key=lambda p: (p.against_builtin, position[p.first]))


def schedule(players: Sequence[Hashable], rounds: int, seed: int = 0) -> list[list[Pairing]]:
    """`rounds` rounds of the same `players`, each paired by `pair_round` from the rounds before it."""
    played: list[list[Pairing]] = []
    for number in range(rounds):
        played.append(pair_round(players, meetings(played), builtin_games(played), seed=seed * 1_000 + number))
    return played
