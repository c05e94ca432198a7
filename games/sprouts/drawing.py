"""One planar drawing of a whole Sprouts game, built from its moves as they are made.

The notation (notation.py) says which spots each boundary passes, but not which line joins two cards: two
lines between the same spots (a loop) leave the same cards. Here every card also carries the line that
leaves it along the boundary walk, so a position becomes a *combinatorial embedding*: at each corner (a
card) the walk arrives along one line and leaves along the next one round the spot. Each move is applied
to these labelled cards by the seed's own two procedures, the one whose plain cards give the move's
result is kept, and so the embedding is the game's, not any embedding of the same graph.

Boundaries of one region belong to different pieces of the drawing; an invisible connector inside the
region joins them, the embedding is triangulated (networkx) and drawn with straight lines by Tutte's
barycentre method (numpy), then every line is drawn through a midpoint of its own, which keeps two lines
between the same spots apart. Regions are filled from their boundary walks (even-odd rule), so a region
with islands in it shows as one area with holes.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import networkx as nx

from .notation import COPIES, Move, Position, same_position, spot_lives

Line = tuple[int, int]  # (move number, 0 for the line from the first spot to the new one, 1 to the second)
Card = tuple[int, Line | None]  # a spot and the line that leaves it along the walk (None: a lone spot)
Labelled = tuple[tuple[tuple[Card, ...], ...], ...]


def labelled_start(spots: int) -> Labelled:
    return (tuple(((spot, None),) for spot in range(1, spots + 1)),)


def plain(labelled: Labelled) -> Position:
    return tuple(tuple(tuple(spot for spot, _ in stack) for stack in row) for row in labelled)


def _cuts(stack):
    return (stack[i:] + stack[:i] for i in range(len(stack)))


def _labelled_results(labelled: Labelled, number: int):
    """Every result of the seed's two procedures on labelled cards, in notation.all_moves' order."""
    counts = Counter(spot for row in labelled for stack in row for spot, _ in stack)
    new = max(counts) + 1
    first, second = (number, 0), (number, 1)
    for r, row in enumerate(labelled):
        for a, b in itertools.combinations(range(len(row)), 2):
            for cut_a in _cuts(row[a]):
                for cut_b in _cuts(row[b]):
                    top_a, top_b = cut_a[0][0], cut_b[0][0]
                    if (len(cut_a) > 1 and counts[top_a] >= COPIES) or (len(cut_b) > 1 and counts[top_b] >= COPIES):
                        continue
                    # The walk goes out along the new line, round the first boundary, back, out to the second.
                    stack_a = ((new, first),) + (cut_a if len(cut_a) > 1 else ()) + ((top_a, first),)
                    stack_b = ((new, second),) + (cut_b if len(cut_b) > 1 else ()) + ((top_b, second),)
                    rest = tuple(s for i, s in enumerate(row) if i not in (a, b))
                    yield labelled[:r] + ((stack_a + stack_b,) + rest,) + labelled[r + 1:]
        for s, stack in enumerate(row):
            others = row[:s] + row[s + 1:]
            for cut in _cuts(stack):
                top = cut[0][0]
                if counts[top] >= COPIES:
                    continue
                played = cut + ((top, None),)  # the twin's line is the new one, set below
                after_top = counts + Counter({top: 1})
                for k in range(1, len(played)):
                    inner, outer = played[:k], played[k:]
                    end = inner[-1][0]
                    if len(inner) > 1 or len(outer) > 1:
                        if after_top[end] >= COPIES:
                            continue
                        outer = ((end, inner[-1][1]),) + outer  # the twin leaves along the line the end left by
                    else:
                        end = top
                    inner = ((new, first),) + inner[:-1] + ((inner[-1][0], second),)
                    outer = ((new, second),) + outer[:-1] + ((outer[-1][0], first),)
                    for mask in range(1 << len(others)):
                        moved = tuple(o for i, o in enumerate(others) if mask >> i & 1)
                        stayed = tuple(o for i, o in enumerate(others) if not mask >> i & 1)
                        yield labelled[:r] + (((inner,) + moved), ((outer,) + stayed)) + labelled[r + 1:]


def apply_move(labelled: Labelled, move: Move, number: int) -> Labelled:
    """The labelled position after `move` (the move's number in the game names its two lines)."""
    for result in _labelled_results(labelled, number):
        if same_position(plain(result), move.result):
            return result
    raise ValueError(f"move {move.wgosa()} has no labelled counterpart")  # notation and drawing disagree


@dataclasses.dataclass(frozen=True)
class Picture:
    """Coordinates of one drawing (unit square): spots, lines through their midpoints, region outlines."""

    spots: dict[int, tuple[float, float]]
    lines: dict[Line, tuple[tuple[float, float], ...]]  # from the line's first spot to its second
    regions: list[list[list[tuple[float, float]]]]  # per region, its boundary walks as closed polygons
    outer_region: int


def picture(labelled: Labelled) -> Picture:
    """Lay the embedding out."""
    spots = sorted({spot for row in labelled for stack in row for spot, _ in stack})
    ends: dict[Line, set[int]] = {}
    for row in labelled:
        for stack in row:
            for spot, line in stack:
                if line is not None:
                    ends.setdefault(line, set()).add(spot)  # a walk leaves along a line from each of its ends
    lines = {line: tuple(sorted(pair)) for line, pair in sorted(ends.items())}
    # Round each spot: after arriving along line x, a walk leaves along turn[spot][x] (None: a lone spot).
    turn: dict[int, dict] = {spot: {} for spot in spots}
    for _, _, spot, line_in, line_out in _corners(labelled):
        turn[spot][line_in] = line_out
    connectors: dict[tuple, tuple[int, int]] = {}
    for r, row in enumerate(labelled):
        hub, hub_in = row[0][0][0], row[0][-1][1]
        for b, stack in enumerate(row[1:], start=1):
            connector = ("connector", r, b)
            connectors[connector] = (hub, stack[0][0])
            _insert(turn[hub], hub_in, connector)
            hub_in = connector  # the hub's next connector leaves right after this one
            _insert(turn[stack[0][0]], stack[-1][1], connector)
    embedding = nx.PlanarEmbedding()
    embedding.add_nodes_from(spots)
    for spot in spots:
        cycle = _cycle(turn[spot])
        for index, edge in enumerate(cycle):
            if index == 0:
                embedding.add_half_edge(spot, ("mid", edge))
            else:
                embedding.add_half_edge(spot, ("mid", edge), ccw=("mid", cycle[index - 1]))
    for edge, (a, b) in {**lines, **connectors}.items():
        embedding.add_half_edge(("mid", edge), a)
        embedding.add_half_edge(("mid", edge), b, cw=a)
    embedding.check_structure()
    positions = _layout(embedding)
    regions = [[_polygon(stack, positions) for stack in row] for row in labelled]
    return Picture(
        spots={spot: positions[spot] for spot in spots},
        lines={line: (positions[a], positions[("mid", line)], positions[b]) for line, (a, b) in lines.items()},
        regions=regions,
        outer_region=_outer_region(regions),
    )


def _corners(labelled: Labelled):
    """(region, boundary, spot, line in, line out) for every card: a card's walk arrives along the line
    the card before it leaves by."""
    for r, row in enumerate(labelled):
        for b, stack in enumerate(row):
            for i, (spot, out) in enumerate(stack):
                yield r, b, spot, stack[i - 1][1], out


def _insert(rotation: dict, after, connector) -> None:
    """Put `connector` into a spot's rotation right after the line `after` (None: a lone spot's first)."""
    if after is None:
        rotation.clear()
        rotation[connector] = connector
        return
    rotation[connector] = rotation[after]
    rotation[after] = connector


def _cycle(rotation: dict) -> list:
    """A spot's lines in the order the walks turn round it (one cycle: a spot is one vertex)."""
    rotation = {key: value for key, value in rotation.items() if key is not None}
    if not rotation:
        return []
    start = next(iter(rotation))
    cycle, edge = [start], rotation[start]
    while edge != start:
        cycle.append(edge)
        edge = rotation[edge]
    if len(cycle) != len(rotation):
        raise ValueError("a spot's corners do not form one rotation")  # not a drawing: a bug upstream
    return cycle


def _polygon(stack, positions) -> list[tuple[float, float]]:
    """A boundary walk as a polygon: each spot, then the midpoint of the line it leaves by."""
    points = []
    for spot, line in stack:
        points.append(positions[spot])
        if line is not None:
            points.append(positions[("mid", line)])
    return points


def _area(points) -> float:
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1])) / 2


def _outer_region(regions) -> int:
    """The unbounded region: the one with the walk that goes round the whole drawing (the largest area)."""
    return max(((abs(_area(points)), r) for r, row in enumerate(regions) for points in row), default=(0, 0))[1]


def _layout(embedding: nx.PlanarEmbedding) -> dict:
    """Straight-line positions in the unit square with no two lines crossing: Chrobak and Payne's grid
    drawing of the embedding (networkx), every node on its own grid point, stretched to the square."""
    grid = nx.combinatorial_embedding_to_pos(embedding)
    xs, ys = [x for x, _ in grid.values()], [y for _, y in grid.values()]
    width, height = max(max(xs) - min(xs), 1), max(max(ys) - min(ys), 1)
    return {node: (0.04 + 0.92 * (x - min(xs)) / width, 0.96 - 0.92 * (y - min(ys)) / height)
            for node, (x, y) in grid.items()}


WIDTH, HEIGHT = 560, 400
# Light fills for the regions, in the order of the notation's rows (the card view uses the same).
REGION_FILLS = ["#dbeafe", "#fde68a", "#bbf7d0", "#fbcfe8", "#ddd6fe", "#fed7aa", "#a5f3fc", "#e5e7eb",
                "#d9f99d", "#fecaca"]


STYLE = ("<style>.sprouts-drawing{width:100%;max-width:560px;height:auto;background:#fff;border-radius:6px}"
         ".sprouts-drawing .region{stroke:none}"
         ".sprouts-drawing .line{fill:none;stroke:#1f2937;stroke-width:2.2;stroke-linejoin:round}"
         ".sprouts-drawing .line.last-move{stroke:#dc2626;stroke-width:3.5}"
         ".sprouts-drawing .spot circle{fill:#fff;stroke:#1f2937;stroke-width:1.5}"
         ".sprouts-drawing .spot.lives-0>circle{fill:#9ca3af}"
         ".sprouts-drawing .spot.last-move>circle{stroke:#dc2626;stroke-width:3}"
         ".sprouts-drawing .spot circle.life{fill:#15803d;stroke:none}"
         ".sprouts-drawing text{font:bold 10px sans-serif;fill:#111}</style>")


def region_fill(index: int) -> str:
    return REGION_FILLS[index % len(REGION_FILLS)]


def svg(labelled: Labelled, last_move: int | None = None) -> str:
    """The drawing as SVG text: regions filled, every line (the last move's highlighted), every spot with
    its number and its lives (3 - degree) as dots."""
    drawn = picture(labelled)
    lives = spot_lives(plain(labelled))

    def xy(point):
        return f"{point[0] * WIDTH:.1f} {point[1] * HEIGHT:.1f}"

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" class="sprouts-drawing" '
             f'role="img" aria-label="the drawing: {len(drawn.spots)} spots, {len(drawn.regions)} regions">', STYLE]
    for index, walks in enumerate(drawn.regions):
        outline = " ".join("M " + " L ".join(xy(point) for point in walk) + " Z" for walk in walks if len(walk) > 2)
        if index == drawn.outer_region:  # the unbounded region: the whole picture less the others
            outline = f"M 0 0 L {WIDTH} 0 L {WIDTH} {HEIGHT} L 0 {HEIGHT} Z " + outline
        parts.append(f'<path class="region" data-region="{index + 1}" d="{outline}" fill="{region_fill(index)}" '
                     f'fill-rule="evenodd"><title>region {index + 1}</title></path>')
    for (number, half), points in sorted(drawn.lines.items()):
        last = " last-move" if number == last_move else ""
        parts.append(f'<polyline class="line{last}" data-move="{number}" points="'
                     + " ".join(xy(point).replace(" ", ",") for point in points) + '"/>')
    new_spot = max(drawn.spots) if last_move else None
    for spot, point in sorted(drawn.spots.items()):
        x, y = point[0] * WIDTH, point[1] * HEIGHT
        left = lives[spot]
        last = " last-move" if spot == new_spot else ""
        dots = "".join(f'<circle class="life" cx="{x - 6 + 6 * i:.1f}" cy="{y + 15:.1f}" r="2.2"/>' for i in range(left))
        parts.append(f'<g class="spot lives-{left}{last}" data-spot="{spot}"><title>spot {spot}: {left} '
                     f'{"life" if left == 1 else "lives"} left</title><circle cx="{x:.1f}" cy="{y:.1f}" r="9"/>'
                     f'<text x="{x:.1f}" y="{y + 3.5:.1f}" text-anchor="middle">{spot}</text>{dots}</g>')
    parts.append("</svg>")
    return "".join(parts)
