"""Solving Sprouts: who wins under normal play (last mover wins) and misere play (last mover loses).

The techniques of the published computer analyses (Applegate, Jacobson and Sleator 1991; Lemoine and
Viennot 2009-2011):
- **Reduction.** Dead spots (no lives) are dropped from every boundary, occurrences of one spot that
  become neighbours merge (what lay between them was dead), and regions with fewer than two lives (no
  move can be drawn in them) are dropped. None of this changes a single move's effect on what is left.
- **Components.** Regions that share no live spot are independent games: a position is a set of
  components, and a move is a move in exactly one of them.
- **Canonical forms.** Each component is reduced to a key that is the same for every relabelling and
  mirror image (`canon.canonical_key`), so one table entry serves all of them (transposition table).
- **Normal play: nimbers.** The position is a disjunctive sum of its components, so by Sprague-Grundy
  its nimber is the XOR of the components' nimbers, each computed once as the mex of its options.
- **Misere play.** Misere values do not add up, so the whole position (the sorted tuple of its
  components' canonical keys) is searched for a win directly, with a transposition table on that key and
  a cut as soon as one winning move is found. The compiled core replaces the small components by their
  simplified misere game forms, added up into one (core.c; Glop's reduced canonical trees, in part); this
  module's search, the reference, searches the drawings themselves (docs/bots/sprouts.md).

The search itself runs in the compiled core (core.c, through fast.py) when it is built; this module is
then the reference it is tested against and the driver: the store, deadlines, the analysis, and a solve
with no deadline trying the first moves in turns of growing length (_widened).

The tables below are bounded (least recently used entries go first), so a worker or the web server
that analyses game after game holds at most TABLE_SIZE entries per table; what is worth keeping between
processes goes to the persistent, bounded store (store.py).

A solve may be given a deadline (`deadline`): past it, the search stops with SolveTimeout and leaves
every table as it was, with only finished results in them.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator
from functools import lru_cache

from ..contracts import KEEPS_WIN, LOST_POSITION, THROWS_WIN, UNSETTLED, AnalysisRow
from . import book, fast
from .canon import canonical_key, least_rotation
from .notation import Position, format_position, initial_position, named_moves, parse_position, spot_lives
from .store import STORE_MIN_LIVES, SolvedStore

# A canonical key: the pure solver's regions of boundaries of tokens (-lives, or a linked spot's number), or
# the compiled core's bytes (fast.py).
Component = tuple | bytes
Game = tuple[Component, ...]  # sorted components

TABLE_SIZE = 1 << 20  # entries per table: a few hundred MB at most, whatever the process solves
STORE = SolvedStore()


class MoveAnalysis(AnalysisRow):
    """Sprouts' analysis of one move: the contract's row plus what the replay page shows of the solver's word."""

    move: str
    won_before: bool | None  # None: not settled in the time given
    keeps_win: bool | None
    winning_moves: list[str] | None
    winning_moves_complete: bool


class SolveTimeout(Exception):
    """The search passed its deadline before settling the position."""


class _Deadlines(threading.local):
    """Each thread's active deadlines (time.monotonic), innermost last: a web server's threads solve apart."""

    def __init__(self):
        self.stack: list[float] = []


_deadline = _Deadlines()


@contextlib.contextmanager
def deadline(seconds: float | None):
    """Stop any search begun inside with SolveTimeout once `seconds` have passed (None: no limit)."""
    if seconds is None:
        yield
        return
    _deadline.stack.append(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.stack.pop()


class BoundedTable(OrderedDict):
    """A dict that forgets its least recently written entries beyond `size`."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        if len(self) > self.size:
            self.popitem(last=False)


def components_of(position: Position) -> Game:
    """The reduced, split and canonical form of a position written in the notation: the compiled core's
    keys when it is built and can hold the position, else the pure Python ones."""
    game = _normalise([list(row) for row in position], spot_lives(position))
    if fast.CORE is None or not all(fast.fits(component, _lives(component)) for component in game):
        return game
    return tuple(sorted(key for component in game for key in fast.normalise(component)))


def _normalise(regions, lives) -> tuple[tuple, ...]:  # the pure solver's keys
    kept = []
    for reduced, spare in map(_reduce_region, regions, itertools.repeat(lives)):
        if spare > 3:
            kept.append(reduced)
        elif spare >= 2:
            # Glop: in a region with 3 lives or fewer only which live spots it holds matters, not how they
            # lie on its boundaries; each spot once, as a boundary of its own, stands for every arrangement.
            kept.append(sorted({(spot,) for boundary in reduced for spot in boundary}))
    regions = kept
    return tuple(sorted(_canonical(*_numbered(part, lives)) for part in _split(regions)))


def _numbered(regions, lives):
    """A cheap key for the exact canonical form: boundaries cut and sorted by their lives alone, then spots
    renumbered in order of appearance. It describes the drawing in full, so equal keys are the same
    component, and it is often equal for the same component met again by another route."""
    counts: dict[int, int] = {}
    for region in regions:
        for boundary in region:
            for spot in boundary:
                counts[spot] = counts.get(spot, 0) + 1
    look = {spot: -lives[spot] if count == 1 else 0 for spot, count in counts.items()}
    ordered = []
    for region in regions:
        shaped = []
        for boundary in region:
            shape = tuple(look[spot] for spot in boundary)
            if len(boundary) > 1:  # cut where the lives read least; each shape is computed once (hot path)
                size, doubled = len(shape), shape + shape
                shape, best = min((doubled[i:i + size], i) for i in range(size))
                boundary = boundary[best:] + boundary[:best]
            shaped.append((shape, boundary))
        shaped.sort()
        ordered.append(shaped)
    ordered.sort(key=lambda shaped: [shape for shape, _ in shaped])
    numbers: dict[int, int] = {}
    drawing = tuple(tuple(tuple(numbers.setdefault(spot, len(numbers)) for spot in boundary) for _, boundary in shaped)
                    for shaped in ordered)
    return drawing, tuple(lives[spot] for spot in numbers)


@lru_cache(maxsize=TABLE_SIZE)
def _canonical(drawing, lives) -> tuple:
    return canonical_key([list(region) for region in drawing], dict(enumerate(lives)))


def _reduce_region(region, lives):
    """The region without dead spots, and its lives (fewer than 2: no line can be drawn in it)."""
    reduced, alive = [], set()
    for boundary in region:
        merged: list[int] = []
        for spot in boundary:
            if lives[spot] > 0 and (not merged or merged[-1] != spot):
                merged.append(spot)
        if len(merged) > 1 and merged[0] == merged[-1]:  # neighbours across the cut
            merged.pop()
        if merged:
            reduced.append(tuple(merged))
            alive.update(merged)
    return reduced, sum(lives[spot] for spot in alive)


def _split(regions):
    """Regions grouped into components: two regions belong together when a spot is in both."""
    if len(regions) < 2:
        return [regions] if regions else []
    group_of: dict[int, list] = {}  # spot -> the group (a list of regions) it is in so far
    groups = []
    for region in regions:
        spots = {spot for boundary in region for spot in boundary}
        met: list[list] = []
        for spot in spots:
            group = group_of.get(spot)
            if group is not None and all(group is not other for other in met):
                met.append(group)
        if not met:
            merged = [region]
            groups.append(merged)
        else:
            merged = max(met, key=len)
            for group in met:
                if group is not merged:
                    merged.extend(group)
                    groups = [kept for kept in groups if kept is not group]
                    for other in group:
                        for boundary in other:
                            for spot in boundary:
                                group_of[spot] = merged
            merged.append(region)
        for spot in spots:
            group_of[spot] = merged
    return groups


def _expand(component: tuple):
    """A canonical key back into regions of spot ids with their lives (every unnamed spot a new id)."""
    lives: dict[int, int] = {}
    fresh = itertools.count(1 + max((t for r in component for b in r for t in b), default=-1))
    regions = []
    for region in component:
        boundaries = []
        for boundary in region:
            spots = []
            for token in boundary:
                spot = token if token >= 0 else next(fresh)
                lives[spot] = 1 if token >= 0 else -token
                spots.append(spot)
            boundaries.append(tuple(spots))
        regions.append(boundaries)
    return regions, lives, next(fresh)


def _stop_past_deadline() -> None:
    if _deadline.stack and time.monotonic() > _deadline.stack[-1]:
        raise SolveTimeout


@lru_cache(maxsize=TABLE_SIZE)
def options(component: Component) -> tuple[Game, ...]:
    """Every position one move away from `component`, each once."""
    _stop_past_deadline()
    if isinstance(component, bytes):
        return fast.options(component)
    regions, lives, new = _expand(component)
    counts = Counter(spot for region in regions for boundary in region for spot in boundary)
    results, drawn = set(), set()
    for index, region in enumerate(regions):
        rest = regions[:index] + regions[index + 1:]
        for parts, used in itertools.chain(_joins(region, lives, new), _divisions(region, lives, new, counts)):
            # Many routes draw the same thing: skip a drawing already seen before its costlier canonical form.
            drawing = (index, tuple(sorted(used)),
                       tuple(sorted(tuple(sorted(least_rotation(b) for b in part)) for part in parts)))
            if drawing in drawn:
                continue
            drawn.add(drawing)
            after = dict(lives)
            for spot in used:
                after[spot] -= 1
            after[new] = 1
            results.add(_normalise(rest + parts, after))
    return tuple(sorted(results))


def _joins(region, lives, new):
    for a, b in itertools.combinations(range(len(region)), 2):
        rest = [boundary for i, boundary in enumerate(region) if i not in (a, b)]
        for i, j in itertools.product(range(len(region[a])), range(len(region[b]))):
            cut_a, cut_b = region[a][i:] + region[a][:i], region[b][j:] + region[b][:j]
            if lives[cut_a[0]] and lives[cut_b[0]]:
                # Each end's corner is doubled by the new line; a lone spot's double merges back in reduction.
                joined = (new,) + cut_a + cut_a[:1] + (new,) + cut_b + cut_b[:1]
                yield [rest + [joined]], (cut_a[0], cut_b[0])


def _divisions(region, lives, new, counts):
    for s, boundary in enumerate(region):
        others = region[:s] + region[s + 1:]
        sides = list(_sides(others, lives, counts))
        for i in range(len(boundary)):
            cut = boundary[i:] + boundary[:i]
            played = cut + cut[:1]
            for k in range(1, len(played)):
                start, end = cut[0], played[k - 1]
                if lives[start] < 1 + (start == end) or lives[end] < 1:
                    continue
                inner = (new,) + played[:k]
                outer = (new, end) + played[k:]
                for moved, stayed in sides:
                    yield [[inner] + moved, [outer] + stayed], (start, end)


def _sides(others, lives, counts):
    """The ways to share the region's other boundaries between the two new regions. Boundaries whose
    spots are met nowhere else are interchangeable when alike, so only how many of each kind go across
    matters; the others are chosen one by one."""
    kinds: dict[tuple, list] = {}
    for index, boundary in enumerate(others):
        alone = all(counts[spot] == 1 for spot in boundary)
        key = ("alike", least_rotation(tuple(lives[spot] for spot in boundary))) if alone else ("own", index)
        kinds.setdefault(key, []).append(boundary)
    groups = list(kinds.values())
    for taken in itertools.product(*(range(len(group) + 1) for group in groups)):
        moved = [b for group, c in zip(groups, taken) for b in group[:c]]
        stayed = [b for group, c in zip(groups, taken) for b in group[c:]]
        yield moved, stayed


_nimbers: BoundedTable = BoundedTable(TABLE_SIZE)


def nimber(component: Component) -> int:
    """The Sprague-Grundy value of one component (normal play), remembered.

    Lemoine and Viennot's way, not the mex of every option's value: the nimber is the least n for which
    the component plus a nim heap of n is lost, and each of those is an outcome search that stops at the
    first winning move, so most options' components never need their own full nimber.
    """
    if component not in _nimbers:
        key = f"nimber {component!r}" if _lives(component) >= STORE_MIN_LIVES else None
        value = STORE.get(key) if key else None
        if value is None:
            value = next(heap for heap in itertools.count() if not _wins_with_heap(component, heap))
            if key:
                STORE.put(key, value)
        _nimbers[component] = value
    return _nimbers[component]


def game_nimber(game: Game) -> int:
    value = 0
    for component in game:
        value ^= nimber(component)
    return value


def game_options(game: Game):
    """Every position one move away from `game`: a move in one of its components."""
    for index, component in enumerate(game):
        if component in game[:index]:
            continue  # a move in either of two equal components leads to the same position
        rest = game[:index] + game[index + 1:]
        for option in options(component):
            yield tuple(sorted(rest + option))


@lru_cache(maxsize=TABLE_SIZE)
def misere_wins(game: Game) -> bool:
    """True when the player to move wins under misere play (with no move left, the mover has won)."""
    if not game:
        return True
    key = _store_key(game, misere=True)
    known = STORE.get(key) if key else None
    if known is not None:
        return bool(known)
    if isinstance(game[0], bytes):  # the compiled core: the same search, in C
        wins = _core_search(fast.misere, game)
    else:
        ordered: Iterable[Game]
        if len(game) == 1:  # most often: its options are listed smallest first once and for all
            ordered = _smallest_first(game[0])
        else:
            ordered = sorted(game_options(game), key=lambda option: max(map(_size, option), default=0))
        wins = any(not misere_wins(option) for option in ordered)
    if key:
        STORE.put(key, int(wins))
    return wins


_restored_from: SolvedStore | None = None  # the store whose results the core's tables hold
# The core solves a position of fewer lives again in well under a second (a 7-spot start has 21). A search
# of 10-spot openings meets hundreds of thousands of positions of 18 lives or more (the store's whole
# bound, and a second of CPU to put back into the core); of 22 or more, a tenth of that.
CORE_STORE_MIN_LIVES = 22


def _core_search(search, game: Game, *args) -> bool:
    """fast.normal or fast.misere, with the store: before the first search, what the store kept of the
    core's results goes back into its tables (so positions of earlier games answer at once); after each
    search, finished or stopped, what it solved of CORE_STORE_MIN_LIVES lives or more goes to the store."""
    global _restored_from
    if _restored_from is not STORE:
        fast.restore(STORE.core_records(), CORE_STORE_MIN_LIVES)
        _restored_from = STORE
    node = (search, game, *args)
    try:
        if _deadline.stack:  # the analysis of a move: settle what can be settled before the deadline
            wins = _widened(node, WIDENED_DEPTH, _deadline.stack[-1])
        elif len(game) == 1 and search is fast.normal and args == (0,):
            # A normal-play solve with no deadline (the command line, the bench): the first moves in
            # turns. (Not for misere play: its start positions up to 9 spots are lost, every first move
            # has to be searched, and the turns cost a quarter more.)
            wins = _widened(node, 1, 0.0)
        else:
            wins = search(game, *args, 0.0)
    finally:
        for key, value in fast.exported():
            STORE.put(key, value)
    if wins is None:
        raise SolveTimeout
    return wins


# How many levels of the search are tried in turns under a deadline: the first move of a 10-spot game
# searched depth first holds the core for over a minute in one hard line while another line settles it
# at once (bench/sprouts_analysis.py); the opponent's replies (level 2) hide hard lines as often.
WIDENED_DEPTH = 2
FIRST_TURN = 0.02  # seconds; each turn has four times the last one's


def _widened(node: tuple, depth: int, until: float) -> bool | None:
    """The outcome of `node` (a core search function, its game and any heap; True: the mover wins), its
    moves tried in turns with a growing time each, not each to the end in order, so that one hard move
    does not hold up an easy winning one behind it; `depth` levels down the same. Whatever an unfinished
    turn solved stays in the core's tables for the next turn. None when `until` (time.monotonic(); 0 for
    no limit) passes first."""
    search, game, *args = node
    stored = stored_outcome(game, search is fast.misere, *args)  # kept by another process, or forgotten
    if stored is not None:  # by the core since (its tables are bounded)
        return stored
    if depth == 0:
        return search(game, *args, until)
    known = search(game, *args, _turn_end(FIRST_TURN, until))  # at once if the tables (or the store) have it
    if known is not None:
        return known
    unsettled, seconds = _children(node), FIRST_TURN
    while unsettled:
        if until and time.monotonic() >= until:
            return None
        left = []
        for child in unsettled:
            wins = _widened(child, depth - 1, _turn_end(seconds, until))
            if wins is None:
                left.append(child)
            elif not wins:
                fast.learn(*node, wins=True)
                return True
        unsettled, seconds = left, seconds * 4
    fast.learn(*node, wins=False)
    return False


def _turn_end(seconds: float, until: float) -> float:
    end = time.monotonic() + seconds
    return min(end, until) if until else end


def _children(node: tuple) -> list[tuple]:
    """The nodes one move away, smallest first; in normal play a move may also take from the heap."""
    search, game, *args = node
    games = sorted(set(game_options(game)), key=lambda option: (max(map(_size, option), default=0), option))
    children = [(search, option, *args) for option in games]
    if search is fast.normal:
        children += [(search, game, smaller) for smaller in range(args[0])]
    return children


def normal_wins(game: Game, heap: int = 0) -> bool:
    """True when the player to move wins `game` plus a nim heap of size `heap` under normal play.

    Lemoine and Viennot's way: the nimbers of all components but the largest are computed in full (small
    components are cheap) and folded into the heap; the largest is only searched until one winning move
    is found, which is far less work than its full nimber.
    """
    if not game:
        return heap != 0
    key = _store_key(game, misere=False, heap=heap)
    known = STORE.get(key) if key else None
    if known is not None:
        return bool(known)
    if isinstance(game[0], bytes):  # the compiled core: the same search, in C
        wins = _core_search(fast.normal, game, heap)
    else:
        *small, largest = sorted(game, key=lambda component: (_size(component), component))
        for component in small:
            heap ^= nimber(component)
        wins = _wins_with_heap(largest, heap)
    if key:
        STORE.put(key, int(wins))
    return wins


def expanded() -> int:
    """How many components have had their options listed in this process (the measure of work the bench
    and the tests print), by the pure solver and by the compiled core."""
    return options.cache_info().currsize + (fast.CORE.lib.sp_listed() if fast.CORE else 0)


@lru_cache(maxsize=TABLE_SIZE)
def _size(component: Component) -> int:
    if isinstance(component, bytes):
        return fast.size(component)
    return sum(len(boundary) for region in component for boundary in region)


@lru_cache(maxsize=TABLE_SIZE)
def _wins_with_heap(component: Component, heap: int) -> bool:
    if component in _nimbers:
        return _nimbers[component] != heap
    stored = _lives(component) >= STORE_MIN_LIVES
    if stored:
        value = STORE.get(f"nimber {component!r}")
        if value is not None:
            _nimbers[component] = value
            return value != heap
        if STORE.get(f"wins {heap} {component!r}"):
            return True
    ordered = _smallest_first(component)
    known = [option for option in ordered if all(map(_nimbers.__contains__, option))]
    # Options whose every part has a known nimber are settled without a search: try them first.
    wins = (any(game_nimber(option) == heap for option in known)
            or any(not _wins_with_heap(component, smaller) for smaller in range(heap))
            or any(not normal_wins(option, heap) for option in ordered))
    if not wins:
        _nimbers[component] = heap  # the component plus a heap of n is lost exactly when its nimber is n
    if stored:
        STORE.put(f"nimber {component!r}" if not wins else f"wins {heap} {component!r}", heap if not wins else 1)
    return wins


@lru_cache(maxsize=TABLE_SIZE)
def _smallest_first(component: Component) -> tuple[Game, ...]:
    """Its options in order of their largest component's size: the cheap ones are searched first (the
    compiled core lists them in that order already)."""
    if isinstance(component, bytes):
        return options(component)
    return tuple(sorted(options(component), key=lambda game: max(map(_size, game), default=0)))


def mover_wins(game: Game, misere: bool) -> bool:
    try:
        return misere_wins(game) if misere else normal_wins(game)
    finally:
        STORE.flush()


@lru_cache(maxsize=TABLE_SIZE)
def longest(component: Component) -> int:
    """The most moves that can still be played in a component (the sum over components for a game).

    Every move costs one life and the last move's new spot survives, so no line is longer than the
    component's lives less one: the search stops at the first line that long, which is most often the first.
    """
    bound, best = _lives(component) - 1, 0
    for option in options(component):
        best = max(best, 1 + sum(longest(part) for part in option))
        if best == bound:
            break
    return best


@lru_cache(maxsize=TABLE_SIZE)
def _lives(component: Component) -> int:
    if isinstance(component, bytes):
        return fast.lives(component)
    tokens = [token for region in component for boundary in region for token in boundary]
    return sum(-token for token in tokens if token < 0) + len({token for token in tokens if token >= 0})


def game_length(game: Game) -> int:
    return sum(longest(component) for component in game)


def solve_position(position: Position, misere: bool, moves: list | None = None,
                   seconds_per_move: float | None = None) -> dict:
    """Who wins from `position` with best play (`first` is the player to move) and the moves that win
    (`moves`: its named_moves, if already listed).

    A lost position needs no move searched. In a won one every move's result is searched; with
    `seconds_per_move` (the command line) a result not settled in that time is listed in
    `unsettled_moves` instead of holding the answer up (a losing move can be far harder to refute than
    the winning one is to find); without it, only an outer deadline stops the search."""
    moves = named_moves(position) if moves is None else moves
    if not mover_wins(components_of(position), misere):
        return {"winner": "second", "winning_moves": [], "unsettled_moves": []}
    outcomes: dict[Game, bool | None] = {}  # many moves lead to the same position
    winning, unsettled = [], []
    for name, move in moves:
        game = components_of(move.result)
        if game not in outcomes:
            if seconds_per_move is None:
                outcomes[game] = mover_wins(game, misere)
            else:
                try:
                    with deadline(seconds_per_move):
                        outcomes[game] = mover_wins(game, misere)
                except SolveTimeout:
                    outcomes[game] = None
        if outcomes[game] is False:
            winning.append(name)
        elif outcomes[game] is None:
            unsettled.append(name)
    return {"winner": "first", "winning_moves": winning, "unsettled_moves": unsettled}


VERDICT_TEXT = {KEEPS_WIN: "keeps the win", THROWS_WIN: "throws the win away",
                LOST_POSITION: "made in a lost position", UNSETTLED: "not settled"}


def analyse_move(position: Position, name: str, step: int, misere: bool, seconds: float | None = None,
                 result: Position | None = None) -> MoveAnalysis:
    """One move of a played game: was the mover's position won, and did the move keep it won? At most two
    searches settle that: the position the move led to first (the smaller one, and in a game analysed last
    move first the one the next move's analysis solved): lost for the opponent, the move kept a win and
    the position before needs no search; else the position before tells a thrown win from a lost
    position. The winning moves of a won position
    (`winning_moves`, `winning_moves_complete`) are all searched without `seconds`; with it, only after a
    move that threw the win away (its text names them), with what is left of `seconds`, as many as are
    found. Past `seconds` before the verdict, the row says so (verdict "unsettled") and what it settled
    (that the move left the opponent a win, or from the opening book or the store that the position before
    was won; lost, it is the verdict); what was solved meanwhile is kept. `result`: the position the move
    led to, if the caller has it (a replay's action carries it); then the position's moves are listed only
    to name the winning ones (the 2,605 moves of a 10-spot start take a third of a second), and `name` is
    taken as legal."""
    ends = None if seconds is None else time.monotonic() + seconds
    listed: dict | None = None
    opponent_wins: bool | None = None

    def moves() -> dict:
        nonlocal listed
        listed = dict(named_moves(position)) if listed is None else listed
        return listed

    try:
        with deadline(seconds):
            if result is None:
                if name not in moves():
                    raise ValueError(f"move {step + 1} ({name}) is not legal in {format_position(position)}")
                result = moves()[name].result
            opponent_wins = outcome(components_of(result), misere)
            won = not opponent_wins or outcome(components_of(position), misere)
            kept = not opponent_wins
    except SolveTimeout:
        # The position after not settled in time: the opening book or the store may still know the one
        # before (a move out of the book's last positions, or out of those the warm-up solved, into a
        # position no search settles within the time). Lost, the verdict needs nothing more.
        won_before = None if opponent_wins else known_outcome(components_of(position), misere)
        if won_before is not False:
            settled = ("the move leaves the opponent a win; whether there was a win to keep is not settled yet"
                       if opponent_wins else "the position was won; whether this move keeps the win is not "
                       "settled yet" if won_before else "the game is too young to solve yet")
            return MoveAnalysis(step=step, seat=step % 2, move=name, points_lost=None, won_before=won_before,
                                keeps_win=False if opponent_wins else None, verdict=UNSETTLED, winning_moves=None,
                                winning_moves_complete=False,
                                text=f"{VERDICT_TEXT[UNSETTLED]} within {seconds:g} s ({settled})")
        won = kept = False
    winning, complete = ([name], False) if kept else ([], True)
    if won and (ends is None or not kept):  # under a deadline, named only where the text shows them
        winning, complete = _winning_moves(moves(), name if kept else None, misere,
                                           None if ends is None else max(0.0, ends - time.monotonic()))
    verdict = KEEPS_WIN if kept else THROWS_WIN if won else LOST_POSITION
    text = VERDICT_TEXT[verdict]
    if verdict == THROWS_WIN:
        named = ", ".join(winning[:6]) + (" ..." if len(winning) > 6 or not complete else "")
        text += f" (winning: {named})" if winning else " (no winning move named within the time)"
    return MoveAnalysis(step=step, seat=step % 2, move=name, points_lost=None, won_before=won, keeps_win=kept,
                        verdict=verdict, winning_moves=winning, winning_moves_complete=complete, text=text)


def _winning_moves(moves: dict, known: str | None, misere: bool, seconds: float | None) -> tuple[list[str], bool]:
    """The moves of a won position whose result is lost for the opponent, searched within `seconds`
    (`known`: one already found winning); and whether every move was settled. The moves' canonical forms
    are worked out within the time too (the 2,605 moves of a 10-spot start take a third of a second of
    CPU, for 6 distinct positions)."""
    games: dict[str, Game] = {}
    outcomes: dict[Game, bool | None] = {}
    try:
        with deadline(seconds):
            # Many moves lead to the same position. What the book or the store holds first, for every move:
            # one hard move searched in order must not keep the known winning ones behind it from being named.
            for name, move in moves.items():
                _stop_past_deadline()
                games[name] = game = components_of(move.result)
                if name == known:
                    outcomes[game] = False
                elif game not in outcomes:
                    outcomes[game] = known_outcome(game, misere)
            for game, outcome in outcomes.items():
                if outcome is None:
                    outcomes[game] = mover_wins(game, misere)
    except SolveTimeout:
        pass
    winning = [name for name, game in games.items() if outcomes[game] is False]
    return winning, len(games) == len(moves) and all(outcome is not None for outcome in outcomes.values())


def _book() -> dict[tuple[bool, Game], bool]:
    """The opening book's outcomes (book.py) by play and game, keyed as this process keys games."""
    return _book_keyed(fast.CORE is not None)


@lru_cache(maxsize=2)
def _book_keyed(compiled: bool) -> dict[tuple[bool, Game], bool]:  # the core's keys, or the pure solver's
    return {(opening.misere, components_of(parse_position(opening.position))): opening.mover_wins
            for opening in book.read()}


def known_outcome(game: Game, misere: bool) -> bool | None:
    """The outcome of `game` (True: the mover wins) if the opening book or the store holds it, without a
    search."""
    known = _book().get((misere, game))
    return stored_outcome(game, misere) if known is None else known


def outcome(game: Game, misere: bool) -> bool:
    """Who wins `game` (True: the mover), from the opening book where it answers, else searched
    (mover_wins). For the analysis and the optimal bot; the solve command and its bench search every
    position (they measure the solver, and the book is checked against it)."""
    known = _book().get((misere, game))
    return mover_wins(game, misere) if known is None else known


def stored_outcome(game: Game, misere: bool, heap: int = 0) -> bool | None:
    """The outcome of `game` (plus a nim heap in normal play; True: the mover wins) if the store holds
    it, without a search."""
    if not game:
        return misere or heap != 0
    key = _store_key(game, misere, heap)
    known = STORE.get(key) if key else None
    return None if known is None else bool(known)


def _store_key(game: Game, misere: bool, heap: int = 0) -> str | None:
    """The store's key for a whole game's outcome (misere_wins, normal_wins): only games of many lives are
    kept. The pure solver keeps its components' nimbers too, but a game's outcome as well, as the core
    does: a game whose small components' nimbers are not kept is then known without a search."""
    if sum(map(_lives, game)) < STORE_MIN_LIVES:
        return None
    return f"misere {game!r}" if misere else f"normal {heap} {game!r}"


@lru_cache(maxsize=64)  # the warm-up asks for each twice, once per play
def opening_games(spots: int, moves: int) -> dict[Game, Position]:
    """The distinct positions (one per canonical form) that `moves` moves from `spots` spots can reach."""
    level = {components_of(start): start for start in [initial_position(spots)]}
    for _ in range(moves):
        level = {components_of(move.result): move.result for position in level.values()
                 for _, move in named_moves(position)}
    return level


def warm(spots: range, moves: int, seconds: float, seconds_per_position: float) -> dict[str, int]:
    """Solve the openings of classroom games that the opening book does not answer into the store, so that
    the analysis of their first moves (the hard ones: the most lives) answers at once: every position up to
    `moves` moves from the start, for each number of `spots` and both plays, the shallowest first, then the
    most spots first and misere play first (the analysis settles the others within its time on an empty
    store: bench/sprouts_analysis.py), each for at most `seconds_per_position`, all for at most `seconds`.
    Those not settled in their time get what is left of `seconds` in further passes, each position four
    times as long as in the pass before. A position left over whose winning move was solved meanwhile
    settles at once by looking it up (the core is told what the search in turns decides: fast.learn). Not
    the deepest first: in a pass of 30 s each, the 89 misere 10-spot positions two moves in took 600 s. How
    many positions the book answered, how many were solved, and how many were left unsettled."""
    ends = time.monotonic() + seconds
    openings = [(game, misere) for depth in range(moves + 1) for count in reversed(spots) for misere in (True, False)
                for game in opening_games(count, depth)]
    queue = [(game, misere) for game, misere in openings if _book().get((misere, game)) is None]
    counts = {"in_book": len(openings) - len(queue), "solved": 0, "unsettled": len(queue)}
    while queue:
        left_over = []
        for game, misere in queue:
            left = ends - time.monotonic()
            if left <= 0:
                return counts
            try:
                with deadline(min(seconds_per_position, left)):
                    mover_wins(game, misere)
                counts["solved"] += 1
                counts["unsettled"] -= 1
            except SolveTimeout:
                left_over.append((game, misere))
        queue, seconds_per_position = left_over, seconds_per_position * 4
    return counts


def book_openings() -> Iterator[book.Opening]:
    """Every position of the opening book, solved by the search with no time limit (never by the book
    itself), as it is solved: the deepest first, so that the search of a position finds its options'
    outcomes in the tables and the store. Hours of CPU on an empty store (the misere 10-spot join move alone
    takes about 24 minutes); `python -m games solve sprouts --book` writes the file from it. Each under a
    deadline a day away, so that the search runs in turns (_widened), as the analysis and the warm-up do: a
    won position settles by its easy winning move instead of holding one hard line to its end."""
    for depth in range(book.BOOK_MOVES, -1, -1):
        for misere in (False, True):
            for spots in book.BOOK_SPOTS:
                for game, position in opening_games(spots, depth).items():
                    with deadline(24 * 3600):
                        wins = mover_wins(game, misere)
                    yield book.Opening(misere, spots, depth, format_position(position), wins)


def positions_before(start: Position, names: list[str]) -> list[Position]:
    """The position each move of a game was made in."""
    positions = [start]
    for name in names[:-1]:
        positions.append(dict(named_moves(positions[-1]))[name].result)
    return positions[:len(names)]


def analyse_moves(start: Position, names: list[str], misere: bool, seconds: float | None = None) -> list[MoveAnalysis]:
    """analyse_move for every move of a played game (`seconds`: the search allowed per move)."""
    return [analyse_move(position, name, step, misere, seconds)
            for step, (position, name) in enumerate(zip(positions_before(start, names), names))]
