"""The set-up costs every run prints after `--durations` (tests/fixture_costs.py): each fixture once per row,
with how many times it was made in the whole run, the xdist workers' added up by the controller."""

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

SUITE = '''
import pytest

@pytest.fixture(scope="session")
def server():
    return "started once per worker"

@pytest.fixture
def page(server):
    return "made for each test"

@pytest.mark.parametrize("n", range(6))
def test_uses_both(page, n):
    assert page
'''
CONFTEST = '''
import fixture_costs

fixture_costs.SMALLEST = 0  # every fixture gets its row, however cheap

def pytest_configure(config):
    config.pluginmanager.register(fixture_costs.FixtureCosts(), "arena-fixture-costs")
'''


def report_rows(output: str) -> dict[str, tuple[str, int]]:
    """fixture name -> (scope, times made), from the report's rows."""
    rows = output.split("fixture set-up costs", 1)[1].splitlines()[2:]
    return {fields[4]: (fields[3], int(fields[1])) for fields in map(str.split, rows) if len(fields) == 5}


def test_the_report_counts_each_fixture_made_in_every_worker(tmp_path):
    (tmp_path / "test_small.py").write_text(SUITE)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "-p", "no:django", "-p", "no:schemathesis",
                          "-p", "no:cacheprovider", "-q", str(tmp_path)], cwd=tmp_path, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(TESTS)}, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    rows = report_rows(run.stdout)
    assert rows["page"] == ("function", 6)
    assert rows["server"] == ("session", 2)  # once in each of the two workers
