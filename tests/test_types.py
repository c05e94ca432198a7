"""mypy checks the typed contracts where the games and the platform's apps meet ([tool.mypy] in
pyproject.toml lists the files): the suite, and so CI, fails on a type error in them."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def mypy(cache: Path, *files: str) -> subprocess.CompletedProcess:
    """mypy with the project's configuration, on its own list of files or on `files`."""
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(cache), *files], cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def cache() -> Path:
    """mypy's incremental cache, kept in the checkout's var/ between runs (one per xdist worker: two mypy
    processes do not share one): on a fresh clone the check takes about 6 s of CPU, then about 1 s for what a
    change touched. mypy checks each cached module's source against it, so a stale cache costs time, never a
    wrong answer."""
    return ROOT / "var" / "mypy-cache" / os.environ.get("PYTEST_XDIST_WORKER", "main")


@pytest.mark.long  # mypy from a cold cache on a fresh clone
def test_the_contracts_and_the_modules_that_use_them_type_check(cache):
    run = mypy(cache)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("Success"), run.stdout


def test_a_read_outside_the_contracts_is_a_type_error(cache, tmp_path):
    """What the contracts are for: a value that may be None, a key no game promises, or a ladder row read as the
    dict it used to be."""
    reader = tmp_path / "reader.py"
    reader.write_text(
        "from games.contracts import AnalysisRow\n"
        "from arena.ratings.services import LadderRow\n"
        "def lost(row: AnalysisRow) -> float:\n"
        "    return row['points_lost']\n"  # None where the game counts no points
        "def kept(row: AnalysisRow) -> bool:\n"
        "    return row['keeps_win']\n"  # Sprouts' own key, not the contract's
        "def owner(row: LadderRow) -> int:\n"
        "    return row['bot'].owner_id\n"  # a dataclass, not a dict
    )
    run = mypy(cache, str(reader))
    assert run.returncode == 1, run.stdout
    for line in (4, 6, 8):
        assert f"reader.py:{line}: error" in run.stdout, run.stdout
