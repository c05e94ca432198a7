"""Positions in Dan Hoey's boundary-list notation and moves by the seed's card procedures.

A position is rows (regions) of stacks (boundaries) of cards (spot occurrences), written top card first:
`,` between cards, `;` between stacks, `/` between rows, e.g. `5,1,3,2,4/5,4,1/4,2,3,1`. A stack is a
cyclic sequence (cutting it gives the same boundary), so the rows, the stacks of a row and the cut of a
stack may be written in any order. Every card has three copies: a spot met once is alive with 3 lives
when it is a stack alone (degree 0) and with 2 lives otherwise; a spot met k = 2 or 3 times has 3 - k.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections import Counter

from ..core import ConfigError

Stack = tuple[int, ...]
Row = tuple[Stack, ...]
Position = tuple[Row, ...]
COPIES = 3


class NotationError(ConfigError):
    """Text that is not a Sprouts position or move in the notation."""


def initial_position(spots: int) -> Position:
    return (tuple((spot,) for spot in range(1, spots + 1)),)


def parse_position(text: str) -> Position:
    """`1,3,2,3/4;5` into rows of stacks of cards; NotationError names what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise NotationError("a position is rows separated by '/', e.g. \"1;2\" or \"4,1,3,2/4,2,3,1\"")
    rows = []
    for row_text in text.replace(" ", "").split("/"):
        stacks = []
        for stack_text in row_text.split(";"):
            if not re.fullmatch(r"[1-9]\d*(,[1-9]\d*)*", stack_text):
                raise NotationError(
                    f"{stack_text!r} in {text!r} is not a stack: positive card numbers separated by ','")
            stacks.append(tuple(int(card) for card in stack_text.split(",")))
        rows.append(tuple(stacks))
    position = tuple(rows)
    over = sorted(card for card, count in card_counts(position).items() if count > COPIES)
    if over:
        raise NotationError(f"{text!r}: card(s) {over} are on the table more than {COPIES} times")
    return position


def format_position(position: Position) -> str:
    return "/".join(";".join(",".join(map(str, stack)) for stack in row) for row in position)


def card_counts(position: Position) -> Counter:
    return Counter(card for row in position for stack in row for card in stack)


def spot_lives(position: Position) -> dict[int, int]:
    """Lives (3 - degree) of every spot on the table."""
    counts = card_counts(position)
    isolated = {stack[0] for row in position for stack in row if len(stack) == 1 and counts[stack[0]] == 1}
    return {spot: 3 if spot in isolated else COPIES - count if count > 1 else 2 for spot, count in counts.items()}


def drawing_key(position: Position, mirrored: bool = True, cuts: dict | None = None) -> tuple:
    """Equal for the same drawing with the same spot numbers, whatever the order of rows and stacks and
    the cut of each stack, and (unless `mirrored` is False) seen from either side of the paper. `cuts`:
    each stack's least cut and its mirror image's, filled in as they are met (the moves of one position
    share all their stacks but the move's new ones: distinct_moves keys thousands of them)."""
    cuts = {} if cuts is None else cuts
    for row in position:
        for stack in row:
            if stack not in cuts:
                mirror = stack[::-1]
                cuts[stack] = (min(_cuts(stack)), min(_cuts(mirror)))

    def normal(side: int) -> tuple:
        return tuple(sorted(tuple(sorted(cuts[stack][side] for stack in row)) for row in position))

    return min(normal(0), normal(1)) if mirrored else normal(0)


def same_position(a: Position, b: Position) -> bool:
    """The same labelled drawing (rows, stacks as cyclic sequences), mirror images told apart."""
    return drawing_key(a, mirrored=False) == drawing_key(b, mirrored=False)


@dataclasses.dataclass(frozen=True)
class Move:
    """One move: the spots it links, the new spot, the spots it separates (dividing moves), the result."""

    kind: str  # "join" or "divide"
    spots: tuple[int, int]
    new_spot: int
    moved: tuple[int, ...]  # spots of the other stacks moved to the new row (step 6)
    stayed: tuple[int, ...]  # spots of the other stacks left in the original row
    result: Position
    region: int = 0  # the row of the position (a region) the line is drawn through, from 0

    def wgosa(self) -> str:
        """WGOSA text `f(g)h[L]`, L the smaller side of a dividing move's separated spots."""
        low, high = sorted(self.spots)
        side = min(self.moved, self.stayed, key=lambda spots: (len(spots), spots))
        return f"{low}({self.new_spot}){high}" + (f"[{spot_list(side)}]" if side else "")

    def wgosa_aliases(self) -> set[str]:
        """Every way WGOSA may write this move (either separated side may be listed)."""
        low, high = sorted(self.spots)
        base = f"{low}({self.new_spot}){high}"
        return {base + (f"[{spot_list(side)}]" if side else "") for side in (self.moved, self.stayed)}


def spot_list(spots) -> str:
    """`[5, 7, 10, 11, 12]` as WGOSA writes it: `5,7,10-12`."""
    parts = []
    for _, run in itertools.groupby(enumerate(sorted(spots)), key=lambda item: item[1] - item[0]):
        run = [spot for _, spot in run]
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(parts)


def _cuts(stack: Stack):
    return (stack[i:] + stack[:i] for i in range(len(stack)))


def _spots_of(stacks) -> tuple[int, ...]:
    return tuple(sorted({card for stack in stacks for card in stack}))


def joining_moves(position: Position, r: int, counts: Counter, new: int):
    """The seed's joining move on every pair of stacks of row r, every cut of each."""
    row = position[r]
    for a, b in itertools.combinations(range(len(row)), 2):
        for cut_a in _cuts(row[a]):
            for cut_b in _cuts(row[b]):
                top_a, top_b = cut_a[0], cut_b[0]
                if (len(cut_a) > 1 and counts[top_a] >= COPIES) or (len(cut_b) > 1 and counts[top_b] >= COPIES):
                    continue  # no twin left in the deck
                stack_a = (new,) + cut_a + ((top_a,) if len(cut_a) > 1 else ())
                stack_b = (new,) + cut_b + ((top_b,) if len(cut_b) > 1 else ())
                rest = tuple(s for i, s in enumerate(row) if i not in (a, b))
                result = position[:r] + ((stack_a + stack_b,) + rest,) + position[r + 1:]
                yield Move("join", (top_a, top_b), new, (), (), result, r)


def dividing_moves(position: Position, r: int, counts: Counter, new: int):
    """The seed's dividing move on every stack of row r, every cut, every split, every choice of step 6."""
    row = position[r]
    for s, stack in enumerate(row):
        others = row[:s] + row[s + 1:]
        for cut in _cuts(stack):
            top = cut[0]
            if counts[top] >= COPIES:
                continue
            played = cut + (top,)
            after_top = counts + Counter({top: 1})
            for k in range(1, len(played)):
                new_stack, old_stack, other_end = played[:k], played[k:], top
                if len(new_stack) > 1 or len(old_stack) > 1:
                    other_end = new_stack[-1]
                    if after_top[other_end] >= COPIES:
                        continue
                    old_stack = (other_end,) + old_stack
                new_stack, old_stack = (new,) + new_stack, (new,) + old_stack
                for mask in range(1 << len(others)):
                    moved = tuple(o for i, o in enumerate(others) if mask >> i & 1)
                    stayed = tuple(o for i, o in enumerate(others) if not mask >> i & 1)
                    # The new row goes just before the original one, as in the seed's example.
                    rows = ((new_stack,) + moved, (old_stack,) + stayed)
                    result = position[:r] + rows + position[r + 1:]
                    yield Move("divide", (top, other_end), new, _spots_of(moved), _spots_of(stayed), result, r)


def all_moves(position: Position):
    """Every move the seed's two procedures allow, with duplicates (the same result by several routes)."""
    counts = card_counts(position)
    new = max(counts) + 1
    for r in range(len(position)):
        yield from joining_moves(position, r, counts, new)
        yield from dividing_moves(position, r, counts, new)


def distinct_moves(position: Position) -> list[Move]:
    """One move per resulting drawing (the same spots, up to cuts, order and mirroring), in a stable order."""
    return [move for _, move in _distinct_with_texts(position)]


def _distinct_with_texts(position: Position) -> list[tuple[str, Move]]:
    """distinct_moves, each with its WGOSA text (worked out once: the 10-spot start has 2,605 moves)."""
    seen: dict[tuple, Move] = {}
    cuts: dict = {}
    for move in all_moves(position):
        seen.setdefault(drawing_key(move.result, cuts=cuts), move)
    texts = [(move.wgosa(), move) for move in seen.values()]
    return sorted(texts, key=lambda pair: (sorted(pair[1].spots), pair[1].kind, len(pair[0]), pair[0],
                                           format_position(pair[1].result)))


def _accessible(move: Move) -> set[int]:
    """Live spots, other than the move's own, that share a region with the new spot after the move."""
    lives = spot_lives(move.result)
    rows = [row for row in move.result if any(move.new_spot in stack for stack in row)]
    return {card for row in rows for stack in row for card in stack
            if lives[card] > 0 and card not in (*move.spots, move.new_spot)}


def named_moves(position: Position) -> list[tuple[str, Move]]:
    """The distinct moves with a WGOSA text each, unique within the list.

    Moves that WGOSA's `f(g)h[L]` does not tell apart get `f(g@i)h` (i: the least live spot the new spot
    can reach in this move and not in another of the same text); any left alike get `#2`, `#3`... in list
    order (an extension: WGOSA's `!` rules are not implemented).
    """
    moves = _distinct_with_texts(position)
    by_text: dict[str, list[Move]] = {}
    for text, move in moves:
        by_text.setdefault(text, []).append(move)
    names: dict[int, str] = {}
    for text, alike in by_text.items():
        reach = [_accessible(move) for move in alike]
        texts = []
        for mine in reach:
            telling = sorted(spot for spot in mine if any(spot not in other for other in reach))
            texts.append(text.replace(")", f"@{telling[0]})", 1) if telling and len(alike) > 1 else text)
        for i, move in enumerate(alike):
            earlier = texts[:i].count(texts[i])
            names[id(move)] = texts[i] + (f"#{earlier + 1}" if earlier else "")
    return [(names[id(move)], move) for _, move in moves]
