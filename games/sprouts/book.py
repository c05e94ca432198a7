"""The opening book: who wins each position up to BOOK_MOVES moves into games of BOOK_SPOTS spots, in both
plays, solved once with no time limit (`python -m games solve sprouts --book`) and shipped as openings.txt.

Why a book: the analysis of a move searches for 1.5 s, and the first moves of a 10-spot game are the
largest positions of a classroom game. Solved on request, from a cold store, they take seconds to minutes
of CPU each; the misere 10-spot join move (`11,9,11,10;1;2;3;4;5;6;7;8`) takes about 24 minutes, more than
the warm-up a fresh machine runs. Solved once, they answer at once on every machine, whatever its store
holds, and the compiled core is told them, so that its searches of the positions after use them too.

The file names positions in the rule book's notation, not by the solver's keys: a change of the keys (the
core's or the pure solver's) leaves the book valid. Each line is `<play> <spots> <depth> <position>
<winner>`: `normal` or `misere`, the game's spots, how many moves into the game the position is, the
position, and `first` (the player to move wins) or `second`. Lines starting with `#` are comments.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

BOOK_PATH = Path(__file__).with_name("openings.txt")
BOOK_SPOTS, BOOK_MOVES = range(6, 11), 2
PLAYS = {"normal": False, "misere": True}
WINNERS = {"first": True, "second": False}


class BookError(ValueError):
    """The book's file is not in its format (a line says where)."""


class Opening(NamedTuple):
    misere: bool
    spots: int
    depth: int
    position: str  # the notation's text
    mover_wins: bool


def read(path: Path | None = None) -> list[Opening]:
    path = path or BOOK_PATH
    openings = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 5 or fields[0] not in PLAYS or fields[4] not in WINNERS \
                or not fields[1].isdigit() or not fields[2].isdigit():
            raise BookError(f"{path}, line {number}: expected '<normal|misere> <spots> <depth> <position> "
                            f"<first|second>', found {line!r}")
        openings.append(Opening(PLAYS[fields[0]], int(fields[1]), int(fields[2]), fields[3], WINNERS[fields[4]]))
    return openings


def write(openings: list[Opening], header: list[str], path: Path | None = None) -> None:
    plays = {misere: play for play, misere in PLAYS.items()}
    winners = {wins: winner for winner, wins in WINNERS.items()}
    lines = [f"# {text}".rstrip() for text in header]
    lines += [f"{plays[opening.misere]} {opening.spots} {opening.depth} {opening.position} "
              f"{winners[opening.mover_wins]}" for opening in openings]
    (path or BOOK_PATH).write_text("\n".join(lines) + "\n", encoding="utf-8")
