"""How many examples a property test (hypothesis) tries: all of them in the full suite (README's and CI's
command), a third in the quick tier (`pytest --quick`, which sets QUICK_TIER_VARIABLE: tests/conftest.py),
whose developer waits for the answer. The property tests were about a third of the quick tier's CPU time.

Written where the test names its count, `@settings(max_examples=examples(150))`, since a count given there
overrides any hypothesis profile; tests/conftest.py loads a profile for the tests that give none."""

import os

QUICK_TIER_VARIABLE = "ARENA_QUICK_TIER"
QUICK_SHARE = 3  # the quick tier tries one example in QUICK_SHARE
FEWEST = 5  # a property tried fewer times than this in the quick tier is tried this often (or all its examples)


def in_quick_tier() -> bool:
    return os.environ.get(QUICK_TIER_VARIABLE) == "1"


def examples(full: int) -> int:
    """`full` in the full suite; in the quick tier a third of it, at least FEWEST (or `full` if fewer)."""
    return max(full // QUICK_SHARE, min(full, FEWEST)) if in_quick_tier() else full
