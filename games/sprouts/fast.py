"""The compiled core (core.c, built by `python games/sprouts/build_core.py`) seen from Python.

With the core, a component is keyed by bytes (core.c's format) instead of solver.py's exact canonical
tuples, and its options come from C; the search in solver.py is the same either way. Without it (not
built, or ARENA_SPROUTS_PURE=1), `CORE` is None and everything runs in pure Python.
"""

from __future__ import annotations

import os
import threading

try:
    from . import _core
except ImportError:  # not built: the pure Python solver
    _core = None

CORE = None if os.environ.get("ARENA_SPROUTS_PURE") else _core
# Misere play: components of at most this many lives are searched as their misere game forms, added up
# (core.c, "canonical forms of small components"). 5 measured best for misere 8 and 9 (bench/sprouts_solver.py):
# fewer, and few positions share their small part; more, and each component's whole game tree costs more
# to list than the search it saves.
MISERE_FORM_LIVES = 5
if CORE is not None:
    CORE.lib.sp_misere_small(MISERE_FORM_LIVES)

ANON, BOUNDARY_END, REGION_END = 0xF0, 0xFD, 0xFE
# The core keeps its tables and result buffer in C globals and cffi lets go of the GIL during a call:
# one thread at a time (the web server analyses in threads).
_LOCK = threading.Lock()


def encode(component: tuple) -> bytes:
    """solver.py's canonical tuple (tokens: a linked spot's number, or -lives) in core.c's format."""
    out = bytearray()
    for region in component:
        for boundary in region:
            out.extend(token if token >= 0 else ANON - token for token in boundary)
            out.append(BOUNDARY_END)
        out.append(REGION_END)
    return bytes(out)


def _call(function, key: bytes) -> list[bytes]:
    """The games `function` (sp_options or sp_normalise) wrote, each followed by OPTION_END, in its order."""
    with _LOCK:
        length = function(key, len(key))
        if length < 0:
            raise OverflowError("a position too large for the compiled core")
        return CORE.ffi.buffer(CORE.lib.sp_result(), length)[:].split(b"\xfc")[:-1]


def _game(record: bytes) -> tuple[bytes, ...]:
    return tuple(record.split(b"\xff")[:-1])


# core.c's bounds (MAX_TOKENS, MAX_BOUNDARIES, MAX_REGIONS, MAX_SPOTS). Each move adds at most 4 tokens, one
# boundary, one region and one spot, and takes a life, so a position within these less 4 per life left
# (1 per life for the others) stays within them all game long.
MAX_TOKENS, MAX_BOUNDARIES, MAX_REGIONS, MAX_SPOTS = 300, 150, 60, 300


def fits(component: tuple, lives: int) -> bool:
    """Whether the core can take this component and every position that can follow it."""
    boundaries = sum(map(len, component))
    tokens = sum(len(boundary) for region in component for boundary in region)
    return (tokens + 4 * lives <= MAX_TOKENS and boundaries + lives <= MAX_BOUNDARIES
            and len(component) + lives <= MAX_REGIONS and tokens + lives <= MAX_SPOTS)


def normalise(component: tuple) -> tuple[bytes, ...]:
    """The core's keys of one of solver.py's components (one key: it is already split)."""
    key = encode(component)
    return _game(_call(CORE.lib.sp_normalise, key)[0])


def options(component: bytes) -> tuple[tuple[bytes, ...], ...]:
    """Every position one move away from `component`, each once, smallest first (by the size of its
    largest component, the order solver.py searches them in)."""
    return tuple(map(_game, _call(CORE.lib.sp_options, component)))


def misere(game: tuple[bytes, ...], deadline: float) -> bool | None:
    """The misere outcome of `game` searched in C (True: the mover wins); None past `deadline`
    (time.monotonic(), 0 for none)."""
    key = b"".join(component + b"\xff" for component in game)
    with _LOCK:
        return _outcome(CORE.lib.sp_misere(key, len(key), deadline))


def normal(game: tuple[bytes, ...], heap: int, deadline: float) -> bool | None:
    """The normal-play outcome of `game` plus a nim heap of `heap`, searched in C, as misere()."""
    key = b"".join(component + b"\xff" for component in game)
    with _LOCK:
        return _outcome(CORE.lib.sp_normal(key, len(key), heap, deadline))


def learn(search, game: tuple[bytes, ...], *args, wins: bool) -> None:
    """Tell the core an outcome settled outside it (solver.py's search in turns decides a position from
    its options), so that the core's own search of a position with this one among its options finds it at
    once, and the store gets it with the core's results. (`search`, `game`, `args`: the node, as
    misere() or normal() would be called; normal play for one component only, as the core keys it.)"""
    key = b"".join(component + b"\xff" for component in game)
    with _LOCK:
        if search is misere:
            CORE.lib.sp_misere_learn(key, len(key), int(wins))
        elif len(game) == 1:
            CORE.lib.sp_normal_learn(game[0], len(game[0]), args[0], int(wins))


def _outcome(result: int) -> bool | None:
    if result == -2:
        raise OverflowError("a position too large for the compiled core")
    return None if result < 0 else bool(result)


def restore(records: bytes, min_lives: int) -> None:
    """Put results the store kept (`records`: SolvedStore.core_records) back into the core's tables, and
    have the core queue every new result of `min_lives` lives or more for the store."""
    with _LOCK:
        CORE.lib.sp_export_from(min_lives)
        CORE.lib.sp_import(records, len(records))


def exported() -> list[tuple[str, int]]:
    """The results queued since the last call, as store keys and values."""
    with _LOCK:
        length = CORE.lib.sp_export()
        data = CORE.ffi.buffer(CORE.lib.sp_result(), length)[:]
    rows, index = [], 0
    while index < length:
        kind, value, size = chr(data[index]), data[index + 1], data[index + 2] << 8 | data[index + 3]
        rows.append((f"core {kind} {data[index + 4:index + 4 + size].hex()}", value))
        index += 4 + size
    return rows


def regions_of(game: tuple[bytes, ...]) -> tuple[list, dict]:
    """Keys back into regions of spot ids with their lives (for the reference solver and the tests)."""
    regions, lives, numbers = [], {}, {}
    for index, component in enumerate(game):
        for region_bytes in component.split(b"\xfe")[:-1]:
            region = []
            for boundary_bytes in region_bytes.split(b"\xfd")[:-1]:
                spots = []
                for token in boundary_bytes:
                    if token > ANON:
                        spot = len(numbers)
                        numbers[("once", spot)] = spot
                        lives[spot] = token - ANON
                    else:
                        spot = numbers.setdefault((index, token), len(numbers))
                        lives[spot] = 1
                    spots.append(spot)
                region.append(tuple(spots))
            regions.append(region)
    return regions, lives


def lives(component: bytes) -> int:
    return sum(token - ANON for token in component if ANON < token < BOUNDARY_END) + len(
        {token for token in component if token < ANON})


def size(component: bytes) -> int:
    return len(component) - component.count(BOUNDARY_END) - component.count(REGION_END)
