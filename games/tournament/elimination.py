"""Single and double elimination brackets.

The bracket has room for S entrants, the power of two at or above n; the S - n empty places are byes
and go to the top seeds. Seeding is the standard one: seed 1 meets seed S, and the bracket is laid out
so that seeds 1 and 2 can only meet in the final, seeds 1-4 only in the semi-finals, and so on.

A bracket is drawn once as nodes whose two slots name where their entrant comes from: a seed, or the
winner or loser of another node. An empty place makes a slot that nobody fills; a node with one such
slot is a bye, a node with two is dropped (in double elimination, two byes' losers meet nobody).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .base import Format, Outcomes
from .model import Series, Standing, rank, series_winner


@dataclass
class Node:
    key: str
    bracket: str
    round: int
    # Each slot: ("seed", entrant or None for an empty place), ("winner", key) or ("loser", key).
    slots: tuple[tuple[str, int | str | None], ...]
    winner_to: str | None = None
    loser_to: str | None = None
    stage: int = field(init=False)  # play order: one more than the latest node it waits for (set on linking)
    empty_slots: list[bool] = field(default_factory=list)

    @property
    def is_bye_or_empty(self) -> bool:
        return any(self.empty_slots)


def seeding_order(size: int) -> list[int]:
    """Entrant ids (0 = top seed) in bracket order: pairs (0, size-1), (size/2-1, size/2), ... for size 8:
    0 7 3 4 1 6 2 5, so that the top two seeds are in opposite halves."""
    order = [0]
    while len(order) < size:
        span = 2 * len(order)
        order = [seed for top in order for seed in (top, span - 1 - top)]
    return order


def winners_bracket(entrants: int, size: int) -> list[Node]:
    order = seeding_order(size)
    nodes = []
    for index in range(size // 2):
        pair = [seed if seed < entrants else None for seed in order[2 * index:2 * index + 2]]
        nodes.append(Node(f"W1-{index + 1}", "winners", 1, tuple(("seed", s) for s in pair)))
    round_number, count = 2, size // 4
    while count >= 1:
        for index in range(1, count + 1):
            feeds = (f"W{round_number - 1}-{2 * index - 1}", f"W{round_number - 1}-{2 * index}")
            nodes.append(Node(f"W{round_number}-{index}", "winners", round_number,
                              tuple(("winner", key) for key in feeds)))
        round_number, count = round_number + 1, count // 2
    return nodes


def losers_bracket(size: int) -> list[Node]:
    """Losers' rounds: L1 pairs the first-round losers; each even round meets the next winners' round's
    losers (dropped in reverse order, so that two who met in the winners' bracket meet late if at all);
    each odd round after the first halves the field (after the last even round, nobody is left to halve)."""
    winner_rounds = size.bit_length() - 1
    nodes = [Node(f"L1-{i}", "losers", 1, (("loser", f"W1-{2 * i - 1}"), ("loser", f"W1-{2 * i}")))
             for i in range(1, size // 4 + 1)]
    count = size // 4
    for j in range(1, winner_rounds):
        even = 2 * j
        nodes += [Node(f"L{even}-{i}", "losers", even,
                       (("winner", f"L{even - 1}-{i}"), ("loser", f"W{j + 1}-{count + 1 - i}")))
                  for i in range(1, count + 1)]
        count //= 2
        nodes += [Node(f"L{even + 1}-{i}", "losers", even + 1,
                       (("winner", f"L{even}-{2 * i - 1}"), ("winner", f"L{even}-{2 * i}")))
                  for i in range(1, count + 1)]
    return nodes


class Elimination(Format):
    """Single elimination, or double elimination when `double` (losers' bracket and grand final)."""

    def __init__(self, entrants: int, withdrawn: frozenset[int], double: bool):
        super().__init__(entrants, withdrawn)
        self.double = double
        size = 1 << (entrants - 1).bit_length()
        nodes = winners_bracket(entrants, size)
        final_key = nodes[-1].key
        if double:
            losers = losers_bracket(size)
            nodes += losers
            challenger = ("winner", losers[-1].key) if losers else ("loser", final_key)
            nodes.append(Node("GF1", "final", 1, (("winner", final_key), challenger)))
        self.nodes = {node.key: node for node in nodes}
        self._link_and_order(nodes)

    def _link_and_order(self, nodes: list[Node]) -> None:
        for node in nodes:  # nodes come after every node they wait for
            node.empty_slots = [self._slot_is_empty(slot) for slot in node.slots]
            node.stage = 1 + max((self.nodes[ref].stage for kind, ref in node.slots if kind != "seed"), default=0)
            for kind, ref in node.slots:
                if kind == "winner":
                    self.nodes[ref].winner_to = node.key
                elif kind == "loser" and not self.nodes[ref].is_bye_or_empty:
                    self.nodes[ref].loser_to = node.key
        # Within a stage, the order the nodes were drawn in: the winners' bracket, then the losers', each
        # round by round and top to bottom (a stable sort keeps it).
        self.order = sorted((node for node in nodes if not all(node.empty_slots)), key=lambda n: n.stage)

    def _slot_is_empty(self, slot) -> bool:
        kind, ref = slot
        if kind == "seed":
            return ref is None
        node = self.nodes[ref]
        return all(node.empty_slots) if kind == "winner" else any(node.empty_slots)

    def series_bound(self) -> int:
        """Every series played puts one loss on an entrant who plays: single elimination ends when all but
        one are out (one loss each); double when all but one have two, the champion at most one."""
        players = len(self.active)
        return 2 * players - 1 if self.double else players - 1

    # --- resolving the bracket on the outcomes so far ------------------------------------------
    def series(self, outcomes: Outcomes) -> list[Series]:
        resolved: dict[str, Series] = {}
        for node in self.order:  # in play order, so every node a slot refers to is resolved first
            resolved[node.key] = self._series(node, node.key, node.round, resolved, outcomes)
        listed = list(resolved.values())
        if self.double:
            first_final = resolved["GF1"]
            outcome = self.decided(first_final, outcomes)
            # The reset final: only when the losers' bracket winner (second slot) won the first final.
            if outcome is not None and series_winner(outcome) == first_final.entrants[1]:
                listed.append(self._series(self.nodes["GF1"], "GF2", 2, resolved, outcomes))
        return listed

    def _series(self, node: Node, key: str, round_number: int, resolved: dict[str, Series], outcomes: Outcomes) -> Series:
        entrants = tuple(self._entrant(slot, resolved, outcomes)
                         for slot, empty in zip(node.slots, node.empty_slots) if not empty)
        return Series(key, round_number, node.bracket, entrants, bye=len(entrants) == 1,
                      winner_to=node.winner_to, loser_to=node.loser_to)

    def _entrant(self, slot, resolved: dict[str, Series], outcomes: Outcomes) -> int | None:
        kind, ref = slot
        if kind == "seed":
            return ref
        series = resolved[ref]
        outcome = self.decided(series, outcomes)
        if outcome is None:
            return None
        winner = series_winner(outcome)
        if winner is None:
            raise ValueError(f"series {ref} is an elimination series and cannot end drawn")
        return winner if kind == "winner" else next(e for e in series.entrants if e != winner)

    def standings(self, outcomes: Outcomes) -> list[Standing]:
        """Entrants still in the running first, then by how late they went out; those who went out in
        the same round share a place. Points: series won (byes, and walkovers between two withdrawn entrants,
        do not count). No tie-breaks."""
        out_at: dict[int, int] = {}  # entrant -> stage of the series that put it out
        losses: dict[int, int] = {e: 0 for e in range(self.entrants)}
        points = {e: 0.0 for e in range(self.entrants)}
        lives = 2 if self.double else 1
        reset_stage = self.nodes["GF1"].stage + 1 if self.double else None
        for series in self.series(outcomes):
            outcome = self.decided(series, outcomes)
            if series.bye or outcome is None:
                continue
            winner = series_winner(outcome)
            if not set(series.entrants) <= self.withdrawn:  # between two withdrawn, neither scores (base.walkover)
                points[winner] += 1
            loser = next(e for e in series.entrants if e != winner)
            losses[loser] += 1
            if losses[loser] == lives:
                out_at[loser] = reset_stage if series.key == "GF2" else self.nodes[series.key].stage
        still_in = max(node.stage for node in self.nodes.values()) + 2
        keys = {e: (-out_at.get(e, still_in),) for e in range(self.entrants)}
        return rank(keys, points, {})
