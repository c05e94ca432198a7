"""Sorted!'s exact solver: the fewest turns in which a deal can be sorted under the fixed turn order.

A position is the 16 cards (seat * 4 + position, values 1..4) and the seat on move. A turn is one swap
between a card of the mover's hand and a card of any other hand; swapping two equal cards changes nothing
and so is a pass. The solver is IDA* on the number of turns with two admissible lower bounds:

- `swaps_needed`: the fewest swaps that sort the cards with no turn order at all. Draw an edge from
  position type p to value v for each card v lying at a position p != v; the misplaced cards split into
  cycles of this graph, and a swap can add at most one cycle, so the fewest swaps is the number of
  misplaced cards minus the most cycles the edges can be split into (computed exactly, memoised).
- A turn only lowers that count if both swapped cards are misplaced (moving a correct card never lowers
  it), so a seat with no misplaced card that moves before the end wastes a turn, or an earlier turn
  that did not lower the count gave it a misplaced card. Such a turn serves at most one clean seat (two
  if it raises the count, which then costs two), so the bound is the fewest turns T >= the swap count
  with T - swap count >= the clean seats moving before turn T (proof in docs/bots/sorted.md).

Failed searches are remembered per (cards, mover) as a proven lower bound, which prunes the repeated
sub-trees that commuting swaps create and carries over between iterations and between calls.
"""

from __future__ import annotations

import functools
import itertools

SEATS = 4
HAND = 4
CARDS = SEATS * HAND
SORTED = tuple(position % HAND + 1 for position in range(CARDS))

# (mine, other): the pairs of card indices a mover may swap, by mover.
_PAIRS = {
    mover: [(mine, other) for mine in range(mover * HAND, mover * HAND + HAND)
            for other in range(CARDS) if other // HAND != mover]
    for mover in range(SEATS)
}
_CYCLES = [
    cycle
    for length in (2, 3, 4)
    for cycle in itertools.permutations(range(HAND), length)
    if cycle[0] == min(cycle)  # each cycle once, from its smallest node
]


DECLARE = {"action": "declare"}


def swap_action(mine: int, seat: int, theirs: int) -> dict:
    """The action that swaps the mover's card at position `mine` with `seat`'s card at `theirs` (1-based)."""
    return {"action": "swap", "mine": mine, "seat": seat, "theirs": theirs}


def describe(action: dict) -> str:
    if action["action"] == "declare":
        return "declare"
    return f"swap own position {action['mine']} with seat {action['seat']}'s position {action['theirs']}"


def is_pass(cards, mover: int, action: dict) -> bool:
    """True for a swap of two equal cards, which changes nothing."""
    return action["action"] == "swap" and (
        cards[mover * HAND + action["mine"] - 1] == cards[action["seat"] * HAND + action["theirs"] - 1])


class DealError(ValueError):
    """A deal that is not four hands of four cards holding each value 1..4 four times."""


def parse_deal(text: str) -> tuple[int, ...]:
    """A deal as text: four hands of four digits, positions 1 to 4 left to right, separated by '/'."""
    hands = text.strip().split("/")
    if len(hands) != SEATS or any(len(hand) != HAND or not hand.isdigit() for hand in hands):
        raise DealError(f"a deal is four hands of four digits separated by '/', e.g. 2143/1234/3412/4321, not {text!r}")
    return check_deal([int(card) for hand in hands for card in hand])


def check_deal(cards) -> tuple[int, ...]:
    cards = tuple(cards)
    if len(cards) != CARDS or any(not isinstance(c, int) or isinstance(c, bool) for c in cards):
        raise DealError(f"a deal is {CARDS} integer cards, not {cards!r}")
    if sorted(cards) != sorted(SORTED):
        raise DealError(f"a deal holds each of 1, 2, 3, 4 exactly four times, not {format_deal(cards)}")
    return cards


def format_deal(cards) -> str:
    return "/".join("".join(str(card) for card in cards[seat * HAND : seat * HAND + HAND]) for seat in range(SEATS))


def misplaced(cards, seat: int) -> list[int]:
    """The positions (0-based) of `seat`'s hand that hold the wrong card."""
    return [pos for pos in range(HAND) if cards[seat * HAND + pos] != pos + 1]


def _edges(cards) -> tuple[int, ...]:
    """How many cards of value v lie at a position of type p != v, as a flat 4x4 table (index p*4+v)."""
    counts = [0] * (HAND * HAND)
    for index, card in enumerate(cards):
        position_type, value = index % HAND, card - 1
        if position_type != value:
            counts[position_type * HAND + value] += 1
    return tuple(counts)


@functools.lru_cache(maxsize=None)
def _most_cycles(edges: tuple[int, ...]) -> int:
    """The most cycles the misplaced-card graph splits into (every edge in exactly one cycle)."""
    if not any(edges):
        return 0
    best = 0
    for cycle in _CYCLES:
        arcs = [cycle[k] * HAND + cycle[(k + 1) % len(cycle)] for k in range(len(cycle))]
        if all(edges[arc] for arc in arcs):
            rest = list(edges)
            for arc in arcs:
                rest[arc] -= 1
            best = max(best, 1 + _most_cycles(tuple(rest)))
            if len(cycle) == 2:
                break  # a 2-cycle present is always in some best split (exchange argument)
    return best


def swaps_needed(cards) -> int:
    """The fewest swaps that sort `cards` if anyone could swap any two cards."""
    edges = _edges(cards)
    return sum(edges) - _most_cycles(edges)


def lower_bound(cards, mover: int) -> int:
    """An admissible bound on the turns still needed with `mover` to move (see the module docstring)."""
    return _bound_from(swaps_needed(cards), _clean_seats(cards), mover)


def _clean_seats(cards) -> list[int]:
    return [seat for seat in range(SEATS) if not misplaced(cards, seat)]


def _bound_from(needed: int, clean: list[int], mover: int) -> int:
    """The fewest turns T >= `needed` that leave a wasted turn for every clean seat moving before turn T.

    Each such seat must be charged a turn that does not lower the swap count: its own turn, or the
    earlier one that gave it a misplaced card; such turns add one each beyond `needed` (two for a turn
    that raises the count, which may serve two seats).
    """
    if needed == 0:
        return 0
    first_turns = [(seat - mover) % SEATS for seat in clean]
    turns = needed
    while turns - needed < sum(1 for first in first_turns if first < turns):
        turns += 1
    return turns


def swap(cards, mine: int, other: int) -> tuple[int, ...]:
    swapped = list(cards)
    swapped[mine], swapped[other] = swapped[other], swapped[mine]
    return tuple(swapped)


class Solver:
    """Minimum turns and optimal moves; keep one instance to reuse what earlier searches proved."""

    def __init__(self):
        # position key (cards code * 4 + mover) -> a proven lower bound on the turns still needed.
        self._bound: dict[int, int] = {}
        self._exact: set[int] = set()
        self.nodes = 0

    def min_turns(self, cards, mover: int = 0) -> int:
        """The fewest turns (passes included) that sort `cards` when `mover` moves first."""
        search = _Search.of(cards)
        key = search.code * SEATS + mover
        if key in self._exact:
            return self._bound[key]
        budget = max(self._bound.get(key, 0), search.bound(mover))
        while not self._within(search, mover, budget):
            budget += 1
        self._bound[key] = budget
        self._exact.add(key)
        return budget

    def _within(self, node: "_Search", mover: int, budget: int) -> bool:
        """True if the node's cards can be sorted in at most `budget` turns with `mover` first."""
        if node.code == _SORTED_CODE:
            return True
        key = node.code * SEATS + mover
        if self._bound.get(key, 0) > budget:
            return False
        self.nodes += 1
        following = (mover + 1) % SEATS
        for child in node.children(mover, budget - 1):
            if self._within(child, following, budget - 1):
                return True
        self._bound[key] = budget + 1
        return False

    def best_moves(self, cards, mover: int) -> list[tuple[int, int]]:
        """Every optimal swap (mine, other) as card indices; a pass shows as every swap of equal cards.

        Empty when the cards are sorted (then declaring is the one best move).
        """
        cards = tuple(cards)
        if cards == SORTED:
            return []
        target = self.min_turns(cards, mover) - 1
        following = (mover + 1) % SEATS
        best = []
        for mine, other in _PAIRS[mover]:
            child = swap(cards, mine, other)
            if lower_bound(child, following) <= target and self.min_turns(child, following) == target:
                best.append((mine, other))
        return best


    def best_actions(self, cards, mover: int) -> list[dict]:
        """`best_moves` as game actions: declare when sorted, else each optimal swap (every equal-card swap
        when passing is optimal)."""
        if tuple(cards) == SORTED:
            return [dict(DECLARE)]
        return [swap_action(mine % HAND + 1, other // HAND, other % HAND + 1)
                for mine, other in self.best_moves(cards, mover)]


# The search keeps a position as three integers, so that a swap is a few additions and every bound a
# dictionary look-up: the cards (2 bits each, value - 1), the edge table (3 bits per (type, value) slot)
# and each seat's count of misplaced cards (3 bits per seat).
def _encode(cards) -> int:
    return sum((card - 1) << (2 * index) for index, card in enumerate(cards))


_SORTED_CODE = _encode(SORTED)


def _edge(position_type: int, value: int) -> int:
    return 0 if position_type == value else 1 << (3 * (position_type * HAND + value))


def _decode_edges(code: int) -> tuple[int, ...]:
    return tuple((code >> (3 * slot)) & 7 for slot in range(HAND * HAND))


# Change of the edge code when value a at a position of type i and value b at one of type j change places.
_EDGE_DELTA = [_edge(i, b) + _edge(j, a) - _edge(i, a) - _edge(j, b)
               for i in range(HAND) for a in range(HAND) for j in range(HAND) for b in range(HAND)]
_NEEDED: dict[int, int] = {}
_BOUND: dict[tuple[int, int, int], int] = {}


def _needed(edge_code: int) -> int:
    needed = _NEEDED.get(edge_code)
    if needed is None:
        edges = _decode_edges(edge_code)
        needed = _NEEDED[edge_code] = sum(edges) - _most_cycles(edges)
    return needed


def _bound(needed: int, dirty: int, mover: int) -> int:
    key = (needed, dirty, mover)
    bound = _BOUND.get(key)
    if bound is None:
        clean = [seat for seat in range(SEATS) if not (dirty >> (3 * seat)) & 7]
        bound = _BOUND[key] = _bound_from(needed, clean, mover)
    return bound


class _Search:
    """One position of the search: its cards, edge table and misplaced counts as integer codes."""

    __slots__ = ("code", "edges", "dirty", "needed")

    def __init__(self, code: int, edges: int, dirty: int):
        self.code, self.edges, self.dirty = code, edges, dirty
        self.needed = _needed(edges)

    @classmethod
    def of(cls, cards) -> "_Search":
        cards = check_deal(cards)
        edges = sum(_edge(index % HAND, card - 1) for index, card in enumerate(cards))
        dirty = sum(len(misplaced(cards, seat)) << (3 * seat) for seat in range(SEATS))
        return cls(_encode(cards), edges, dirty)

    def bound(self, mover: int) -> int:
        return _bound(self.needed, self.dirty, mover)

    def children(self, mover: int, budget: int):
        """The positions one turn of `mover` reaches whose bound still fits `budget` turns: the pass (if
        the mover has one) first, then the swaps that lower the swap count, those fixing most cards first."""
        code, edges, dirty, needed = self.code, self.edges, self.dirty, self.needed
        following = (mover + 1) % SEATS
        # A swap changes the count by at most one, and lowers it only if both cards are misplaced.
        must_lower, may_raise = budget < needed, budget > needed
        has_pass = False
        lowering, others = [], []
        for mine_shift, other_shift, i, j, mover_shift, other_seat_shift in _SHIFTS[mover]:
            a, b = (code >> mine_shift) & 3, (code >> other_shift) & 3
            if a == b:
                has_pass = True
                continue
            if (must_lower and (i == a or j == b)) or (not may_raise and i == a and j == b):
                continue
            child_edges = edges + _EDGE_DELTA[((i * HAND + a) * HAND + j) * HAND + b]
            child_needed = _needed(child_edges)
            child_dirty = (dirty + (((i != b) - (i != a)) << mover_shift)
                           + (((j != a) - (j != b)) << other_seat_shift))
            if _bound(child_needed, child_dirty, following) > budget:
                continue
            flip = a ^ b
            child = _Search(code ^ (flip << mine_shift) ^ (flip << other_shift), child_edges, child_dirty)
            if child_needed < needed:
                lowering.append((-(i == b) - (j == a), len(lowering), child))
            else:
                others.append(child)
        if has_pass and self.bound(following) <= budget:
            yield self
        lowering.sort()
        for _, _, child in lowering:
            yield child
        yield from others


# Per mover, each swap it may make: bit shifts of its two cards, their position types, and the bit
# shifts of the two seats' misplaced counts.
_SHIFTS = {
    mover: [(2 * mine, 2 * other, mine % HAND, other % HAND, 3 * mover, 3 * (other // HAND))
            for mine, other in _PAIRS[mover]]
    for mover in range(SEATS)
}
