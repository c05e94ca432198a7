"""The similarity report of an assignment for its staff: every pair of the graded versions (one per student
or team, by the deadline rule) compared by similarity.winnowing, ignoring the assignment's starter code and
the game's built-in bots. It ranks pairs for a person to read; it accuses no one (docs/similarity.md)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from django.core.cache import cache
from arena.similarity import winnowing
from arena.similarity.highlight import side_by_side
from arena.similarity.public_code import builtin_bot_sources
from arena.similarity.winnowing import (Fingerprint, PairReport, SourceError, compare, compare_fingerprints,
                                  fingerprint, fingerprint_all, public_fingerprint)

from . import services
from .models import Assignment, Submission


@dataclass
class Compared:
    """One submission's graded source, as the report names it."""

    submission: Submission
    version_number: int
    source: str


@dataclass
class Report:
    pairs: list[PairReport]  # a and b are submission ids (as text), the most similar first
    compared: dict[str, Compared]
    errors: dict[str, str]  # submission label -> why its source could not be compared
    ignored: str  # what was left out as public code, for the page


def graded_sources(assignment: Assignment, only: tuple[Submission, ...] | None = None) -> dict[str, Compared]:
    """By submission id: the version the deadline rule grades (of every submission, or of `only` these);
    submissions with none are left out."""
    found = {}
    submissions = assignment.submissions.select_related("bot", "student", "team").order_by("pk")
    for submission in submissions if only is None else only:
        version = services.graded_version(assignment, submission.bot).version
        if version is not None:
            found[str(submission.pk)] = Compared(submission, version.number, version.code)
    return found


def _public(assignment: Assignment) -> tuple[Fingerprint | None, str]:
    """What everyone was given, as one fingerprint to ignore, and its description for the page."""
    builtins = builtin_bot_sources(assignment.game)
    given = f"the game's {len(builtins)} built-in bots"
    if assignment.starter_code:
        try:
            return public_fingerprint(assignment.starter_code, builtins), "the starter code and " + given
        except SourceError:
            given += " (the starter code is not valid Python: it could not be left out)"
    return public_fingerprint(None, builtins), given


# How long a report is kept. Its key names everything it is made of (below), so a newly graded version or
# another starter is a new key at once: the time only bounds what the cache holds for old states.
REPORT_SECONDS = 7 * 24 * 3600
# The comparison itself is part of the key: a change to the winnowing code is a new report, not an old one.
ALGORITHM = hashlib.sha256(Path(winnowing.__file__).read_bytes()).hexdigest()


def report(assignment: Assignment) -> Report:
    """The report of every pair, worked out once per state of what it compares: 200 submissions take about
    3 s (docs/similarity.md), and staff come back to the page while they read pairs."""
    compared = graded_sources(assignment)
    key = _report_key(assignment, compared)
    worked_out = cache.get(key)
    if worked_out is None:
        ignore, ignored = _public(assignment)
        fingerprints, errors = fingerprint_all({key: item.source for key, item in compared.items()}, ignore)
        worked_out = (compare_fingerprints(fingerprints), errors, ignored)
        cache.set(key, worked_out, REPORT_SECONDS)
    pairs, errors, ignored = worked_out
    return Report(pairs, compared, {compared[key].submission.label: reason for key, reason in errors.items()}, ignored)


# The most similar pairs the report page and the API list (the histogram counts them all).
TOP_PAIRS = 30


def top_pairs(found: Report) -> list[dict]:
    """The TOP_PAIRS most similar pairs: both sides' submissions and versions, the similarity, the regions."""
    return [{"a": found.compared[r.a], "b": found.compared[r.b], "similarity": r.similarity, "regions": r.regions}
            for r in found.pairs[:TOP_PAIRS]]


def _report_key(assignment: Assignment, compared: dict[str, Compared]) -> str:
    """A digest of what a report is made of: each graded source (by submission), the starter code and the
    built-in bots left out, and the comparison's code and where it lives (the cache pickles its classes by
    module path: a report cached before the package move, under similarity.winnowing, would not load)."""
    made_of = hashlib.sha256(repr((ALGORITHM, winnowing.__name__, assignment.game, assignment.starter_code,
                                   builtin_bot_sources(assignment.game))).encode())
    for key, item in compared.items():
        made_of.update(f"{key}:{hashlib.sha256(item.source.encode()).hexdigest()};".encode())
    return f"similarity-report:{assignment.pk}:{made_of.hexdigest()}"


@dataclass
class Pair:
    a: Compared
    b: Compared
    similarity: float
    lines: dict  # highlight.side_by_side: {"a": [...], "b": [...]}
    regions: int


def pair(assignment: Assignment, a: Submission, b: Submission) -> Pair:
    """The two graded sources side by side with the matching regions marked. SourceError if one is not Python;
    LookupError if one has no graded version."""
    compared = graded_sources(assignment, (a, b))
    missing = [s.label for s in (a, b) if str(s.pk) not in compared]
    if missing:
        raise LookupError(f"no graded version for {', '.join(missing)}")
    first, second = compared[str(a.pk)], compared[str(b.pk)]
    ignore, _ = _public(assignment)
    score, regions = compare(fingerprint(first.source, ignore=ignore), fingerprint(second.source, ignore=ignore))
    return Pair(first, second, score, side_by_side(first.source, second.source, regions), len(regions))
