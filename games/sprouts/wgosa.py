"""Move lists in the World Game of Sprouts Association's notation: `2+ 1(3)2 1(4)2 1(5)4 2(6)3`.

The first word gives the number of spots and the play: `+` normal (last mover wins), `-` misere. Each
move is `f(g)h[L]`: from spot f to spot h through the new spot g, L the spots a dividing move separates
(either side may be listed). `f(g@i)h` and our `#k` extension tell apart moves the plain text does not
(see notation.named_moves).
"""

from __future__ import annotations

import re

from .notation import NotationError, initial_position, named_moves

HEADER = re.compile(r"(\d+)([+-])")


def write_wgosa(spots: int, misere: bool, moves: list[str]) -> str:
    return " ".join([f"{spots}{'-' if misere else '+'}", *moves])


def read_wgosa(text: str) -> tuple[dict, list[str]]:
    """The game's config and its moves, each checked legal in turn and named as the game lists it."""
    words = text.split()
    header = HEADER.fullmatch(words[0]) if words else None
    if not header:
        raise NotationError(f"a WGOSA game starts with the number of spots and + or -, e.g. '2+', not {text[:20]!r}")
    config = {"spots": int(header[1]), "misere": header[2] == "-"}
    position, names = initial_position(config["spots"]), []
    for number, word in enumerate(words[1:], start=1):
        name, move = _find(position, word, number)
        names.append(name)
        position = move.result
    return config, names


def _find(position, word, number):
    moves = named_moves(position)
    exact = [(name, move) for name, move in moves if name == word]
    if exact:
        return exact[0]
    # WGOSA may list either side a dividing move separates; take the other side's text too.
    alike = [(name, move) for name, move in moves if word in move.wgosa_aliases()]
    if len(alike) == 1:
        return alike[0]
    legal = " ".join(name for name, _ in moves)
    problem = "is ambiguous" if alike else "is not a legal move"
    raise NotationError(f"move {number} {word!r} {problem} here; the moves are: {legal}")
