"""What the suite's set-ups cost, per fixture: the report at the end of a run beside `--durations`.

`--durations` names the slowest phases of tests, and a test's setup phase adds up every fixture it made,
so it cannot tell a browser's start from a database's flush, nor say how often a server was started. This
plugin times each fixture's own set-up (pytest_fixture_setup runs after the fixtures it asks for are made,
so a time is the fixture's alone) and prints, at the end, the fixtures whose set-ups took longest in all:
how many times each was made, in total and at most, with its scope. Under xdist each worker measures its
own and sends them to the controller (xdist's workeroutput), which prints one table for the run."""

from __future__ import annotations

import time

import pytest

SHOWN = 20  # rows of the report
SMALLEST = 0.1  # seconds in all: a fixture that cost less is not worth a row
WORKER_OUTPUT_KEY = "arena_fixture_costs"

Costs = dict[str, list]  # fixture name -> [scope, times made, seconds in all, seconds at most]


def _add(costs: Costs, name: str, scope: str, count: int, total: float, most: float) -> None:
    row = costs.setdefault(name, [scope, 0, 0.0, 0.0])
    row[1] += count
    row[2] += total
    row[3] = max(row[3], most)


class FixtureCosts:
    def __init__(self) -> None:
        self.costs: Costs = {}

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        started = time.perf_counter()
        try:
            return (yield)
        finally:
            seconds = time.perf_counter() - started
            _add(self.costs, fixturedef.argname, fixturedef.scope, 1, seconds, seconds)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: the controller reports
            workeroutput[WORKER_OUTPUT_KEY] = self.costs

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        for name, (scope, count, total, most) in getattr(node, "workeroutput", {}).get(WORKER_OUTPUT_KEY, {}).items():
            _add(self.costs, name, scope, count, total, most)

    def pytest_terminal_summary(self, terminalreporter, exitstatus, config) -> None:
        if getattr(config, "workerinput", None) is not None or not self.costs:
            return
        rows = [row for row in sorted(self.costs.items(), key=lambda item: -item[1][2])[:SHOWN]
                if row[1][2] >= SMALLEST]
        terminalreporter.write_sep("=", f"fixture set-up costs ({SHOWN} longest in all, every worker's)")
        terminalreporter.write_line(f"{'seconds in all':>15} {'made':>6} {'at most':>8}  scope     fixture")
        for name, (scope, count, total, most) in rows:
            terminalreporter.write_line(f"{total:15.1f} {count:6d} {most:8.2f}  {scope:<9} {name}")

