"""How the cost of a check grows with its input: the work it does on an input 8 times longer, as a multiple
of its work on the input itself, with no wall-clock bound (tests/*/test_*_linear_checks.py).

The work is CPU time of this process, the best of a few runs (the least disturbed by the other processes
on the machine), each run repeating the check enough times to be well above the clock's grain. A linear
check does about 8 times the work on the longer input; a quadratic one about 64 times.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

SCALE = 8
# Linear work at 8x is 8x; the margin absorbs constant costs, caches and a loaded host, and stays far
# below the 64x of a check that rescans its input once per character.
LINEAR_RATIO = SCALE * 2.5
# Each timed run repeats the check until it has taken at least this much CPU on the smaller input.
RUN_SECONDS = 0.004
RUNS = 3


def _run(check: Callable[[Any], object], value: Any, repeat: int) -> float:
    began = time.process_time()
    for _ in range(repeat):
        try:
            check(value)
        except Exception:  # noqa: BLE001 - a refusal is the outcome most of these inputs earn; its cost counts
            pass
    return time.process_time() - began


def work(check: Callable[[Any], object], value: Any, repeat: int = 1) -> float:
    """CPU seconds of `repeat` calls of check(value) (a refusal included), the best of RUNS runs."""
    return min(_run(check, value, repeat) for _ in range(RUNS))


def growth(check: Callable[[Any], object], shape: Callable[[int], Any], size: int) -> float:
    """The work of `check` on shape(SCALE * size) as a multiple of its work on shape(size)."""
    small, large = shape(size), shape(SCALE * size)
    repeat = 1
    while _run(check, small, repeat) < RUN_SECONDS and repeat < 1 << 16:
        repeat *= 2
    return work(check, large, repeat) / max(work(check, small, repeat), 1e-9)


def assert_linear(check: Callable[[Any], object], shape: Callable[[int], Any], size: int) -> None:
    ratio = growth(check, shape, size)
    assert ratio < LINEAR_RATIO, (f"{SCALE}x the input cost {ratio:.1f}x the work (at most {LINEAR_RATIO:g}x "
                                  f"for a linear check), from {size} units")
