"""How long the similarity check takes for a class: fingerprint N submissions and compare every pair.

    python bench/similarity.py [--submissions 200]

The submissions are the End Game bots of tests/platform/similarity_cases with their identifiers renamed
per submission (so each is a distinct file and copies of one bot score high against each other).
"""

from __future__ import annotations

import argparse
import pathlib
import re
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]

from arena.similarity.winnowing import compare_fingerprints, fingerprint_all, public_fingerprint

CASES = ROOT / "tests" / "platform" / "similarity_cases"


def submissions(count: int) -> dict[str, str]:
    bots = sorted(path for path in CASES.glob("*.py") if path.stem != "starter")
    sources = {}
    for number in range(count):
        source = bots[number % len(bots)].read_text(encoding="utf-8")
        # Renaming a few identifiers makes each a different file that normalises to the same tokens.
        sources[f"student{number:03d}.py"] = re.sub(r"\b(board|numbers|best|score|value|left|right)\b",
                                                     lambda m: f"{m.group(1)}_{number}", source)
    return sources


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=200)
    args = parser.parse_args()
    sources = submissions(args.submissions)
    started = time.perf_counter()
    ignore = public_fingerprint((CASES / "starter.py").read_text(encoding="utf-8"))
    fingerprints, errors = fingerprint_all(sources, ignore)
    fingerprinted = time.perf_counter()
    reports = compare_fingerprints(fingerprints)
    compared = time.perf_counter()
    assert not errors, errors
    lines = sum(source.count("\n") for source in sources.values())
    print(f"{len(sources)} submissions ({lines} lines): fingerprinted in {fingerprinted - started:.2f} s, "
          f"{len(reports)} pairs compared in {compared - fingerprinted:.2f} s")
    above = sum(1 for report in reports if report.similarity > 0.8)
    print(f"pairs above 0.8: {above}; median similarity {reports[len(reports) // 2].similarity:.2f}")


if __name__ == "__main__":
    main()
