"""Canonical forms of Sprouts positions: one key per position up to relabelling spots and mirroring.

A position here is a list of regions; a region a list of boundaries; a boundary a tuple of spot ids in
left-hand order (a cyclic sequence). `lives[spot]` is 3 minus the spot's degree. A spot met once in
the position needs no name (its lives say all), so it becomes the token `-lives`; spots met two or
three times are linked occurrences, and the key gives them numbers 0, 1, 2... that depend only on the
structure. The numbers come from colour refinement (each spot's colour grows from the contexts of its
occurrences until nothing more splits) and, where symmetric spots stay tied, from trying each tied spot
first and keeping the least result: the key is exact, never merely a hash.
"""

from __future__ import annotations

from collections import Counter

Regions = list[list[tuple[int, ...]]]
Key = tuple


def canonical_key(regions: Regions, lives: dict[int, int]) -> Key:
    """The same tuple for two positions exactly when one is the other relabelled, mirrored or reordered."""
    counts = Counter(spot for region in regions for boundary in region for spot in boundary)
    linked = sorted({spot for spot, count in counts.items() if count > 1})
    start = _ranks({spot: (counts[spot], lives[spot]) for spot in linked})
    mirrored = [[tuple(reversed(boundary)) for boundary in region] for region in regions]
    return min(_search(regions, lives, start), _search(mirrored, lives, start))


def _ranks(colours: dict) -> dict[int, int]:
    order = {colour: rank for rank, colour in enumerate(sorted(set(colours.values())))}
    return {spot: order[colour] for spot, colour in colours.items()}


def _tokens(boundary, lives, colours) -> tuple[int, ...]:
    return tuple(colours[spot] if spot in colours else -lives[spot] for spot in boundary)


def least_rotation(tokens: tuple) -> tuple:
    size = len(tokens)
    if size < 2:
        return tokens
    doubled = tokens + tokens  # one concatenation, then slices: this runs for every boundary of every option
    return min(doubled[i:i + size] for i in range(size))


def _signature(regions, lives, colours) -> tuple:
    return tuple(sorted(
        tuple(sorted(least_rotation(_tokens(b, lives, colours)) for b in region)) for region in regions
    ))


def _refine(regions, lives, colours: dict[int, int]) -> dict[int, int]:
    while True:
        contexts: dict[int, list] = {spot: [] for spot in colours}
        for region in regions:
            tokens = [_tokens(b, lives, colours) for b in region]
            region_key = tuple(sorted(least_rotation(t) for t in tokens))
            for boundary, toks in zip(region, tokens):
                for i, spot in enumerate(boundary):
                    if spot in colours:
                        contexts[spot].append((region_key, toks[i:] + toks[:i]))
        refined = _ranks({spot: (colours[spot], tuple(sorted(contexts[spot]))) for spot in colours})
        classes = len(set(refined.values()))
        if classes == len(set(colours.values())) or classes == len(refined):
            return refined
        colours = refined


def _search(regions, lives, colours: dict[int, int]) -> Key:
    if len(set(colours.values())) < len(colours):
        colours = _refine(regions, lives, colours)
    classes: dict[int, list[int]] = {}
    for spot, colour in colours.items():
        classes.setdefault(colour, []).append(spot)
    tied = [members for colour, members in sorted(classes.items()) if len(members) > 1]
    if not tied:
        return _signature(regions, lives, colours)
    first = tied[0]
    # Put each tied spot ahead of its twins in turn; the least outcome does not depend on the labels.
    return min(
        _search(regions, lives, {s: 2 * c + (s in first and s != chosen) for s, c in colours.items()})
        for chosen in first
    )

