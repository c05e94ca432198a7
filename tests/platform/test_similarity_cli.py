"""`python manage.py similarity FILE... [--starter FILE] [--game GAME] [--json]`, run as the instructor runs it:
as a process in one test, through Django's command line in this process in the others (tests/in_process.py)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import execute_from_command_line

from in_process import run_main

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).parent / "similarity_cases"


def similarity_process(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", "similarity", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def similarity_command(*args: str) -> subprocess.CompletedProcess:
    return run_main(lambda argv: execute_from_command_line(["manage.py", *argv]), ["similarity", *args])


@pytest.fixture
def bots(tmp_path):
    """The instructor's folder of submissions: a copy, its original, two honest bots and the starter."""
    names = ["minimax_erin", "minimax_erin_renamed", "greedy_alice", "starter_frank", "starter_grace", "starter"]
    for name in names:
        shutil.copy(CASES / f"{name}.py", tmp_path / f"{name}.py")
    return tmp_path


def test_json_lists_every_pair_highest_first(bots):
    files = [str(bots / f"{name}.py") for name in ["greedy_alice", "minimax_erin", "minimax_erin_renamed"]]
    result = similarity_command(*files, "--json")
    assert result.returncode == 0, result.stderr
    pairs = json.loads(result.stdout)["pairs"]
    assert len(pairs) == 3
    assert [p["similarity"] for p in pairs] == sorted((p["similarity"] for p in pairs), reverse=True)
    top = pairs[0]
    assert {top["a"], top["b"]} == {files[1], files[2]} and top["similarity"] > 0.8
    assert top["regions"] and set(top["regions"][0]) == {"a_start", "a_end", "b_start", "b_end"}
    assert all(0 <= p["similarity"] < 0.3 for p in pairs[1:])


def test_the_starter_file_is_not_counted(bots):
    pair = [str(bots / "starter_frank.py"), str(bots / "starter_grace.py")]
    without = json.loads(similarity_command(*pair, "--json").stdout)["pairs"][0]["similarity"]
    result = similarity_command(*pair, "--starter", str(bots / "starter.py"), "--json")
    assert result.returncode == 0, result.stderr
    assert without > 0.5
    assert json.loads(result.stdout)["pairs"][0]["similarity"] < 0.05


def test_the_table_is_readable(bots):
    result = similarity_command(str(bots / "minimax_erin.py"), str(bots / "minimax_erin_renamed.py"),
                                str(bots / "greedy_alice.py"), "--game", "endgame")
    assert result.returncode == 0, result.stderr
    header, first, *rest = result.stdout.splitlines()
    assert header.split()[:3] == ["similarity", "a", "b"]
    assert float(first.split()[0]) > 0.8 and "minimax_erin_renamed.py" in first and " ~ " in first
    assert len(rest) == 2 and all(line.split()[0] == "0.00" and line.endswith("-") for line in rest)


def test_a_file_with_a_syntax_error_is_reported_and_the_rest_compared(bots):
    broken = bots / "broken.py"
    broken.write_text("def act(observation):\n    return 'left'\n  x = 1\n", encoding="utf-8")
    result = similarity_process(str(bots / "minimax_erin.py"), str(bots / "minimax_erin_renamed.py"),
                                str(broken), "--json")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{broken}: not compared: line 3: unindent does not match any outer indentation level" in result.stderr
    report = json.loads(result.stdout)
    assert len(report["pairs"]) == 1 and report["pairs"][0]["similarity"] > 0.8
    assert list(report["errors"]) == [str(broken)]


@pytest.mark.parametrize("args, message", [
    (["{bots}/greedy_alice.py"], "give at least two different files"),
    (["{bots}/greedy_alice.py", "{bots}/starter.py", "--game", "chess"], "unknown game 'chess'"),
    (["{bots}/greedy_alice.py", "{bots}/missing.py"], "missing.py: not compared: No such file or directory"),
    (["{bots}/greedy_alice.py", "{bots}/starter.py", "--starter", "{bots}/nope.py"], "starter {bots}/nope.py: cannot read"),
])
def test_bad_arguments_are_explained(bots, args, message):
    result = similarity_command(*(arg.format(bots=bots) for arg in args))
    assert result.returncode != 0
    assert message.format(bots=bots) in result.stderr
    assert "Traceback" not in result.stderr
