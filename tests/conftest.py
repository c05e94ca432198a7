"""The test tiers: each test is marked with the heavy parts it needs, read from its fixtures and parameters.

`pytest --quick` (what `scripts/test --quick` runs) leaves out every test marked docker, browser, compose or slow.
The marks are given here, at collection, rather than written in each file, so that a new test that asks for
`live_worker`, `docker_image` or a `[docker]` backend lands in the full tier without anyone remembering a
decorator (tests/test_tiers.py checks that it does).

The tests are also put in the order they start in: the modules with the longest tests first (see STARTS_FIRST),
so that under xdist no worker is still running a minute-long test at the end while the other idles.
"""

import gc
import os
import tempfile

import hypothesis
import pytest

import quick_tier
from fixture_costs import FixtureCosts

# Sprouts' solved positions (games/sprouts/store.py) go to a file of each test process's own, never to the
# checkout's var/: a store warmed by `python -m games solve sprouts --warm` (scripts/setup starts it) would
# answer at once what the tests expect to find unsettled within a deadline, and xdist's workers would read
# each other's results. Set before any test module imports the solver; subprocesses inherit it.
os.environ.setdefault("ARENA_SPROUTS_STORE", os.path.join(tempfile.mkdtemp(prefix="arena-sprouts-store-"),
                                                          "sprouts-solved.sqlite3"))

# The fixtures that bring a heavy part with them. pytest lists, in `item.fixturenames`, the fixtures a test
# asks for and those they ask for in turn (`live_worker` -> `sandbox_backend`, `browser_page` -> `chromium`).
FIXTURE_MARKS = {
    "docker_image": ("docker",),  # tests/sandbox: the engine with the bot image
    "sandbox_backend": ("docker",),  # tests/platform: the same, for the workers the tests start
    "live_worker": ("worker",),  # a real Celery worker process (its sandbox_backend adds docker)
    "table_worker": ("worker",),  # the tables' own worker processes (tests/platform/test_tables_memory.py)
    "chromium": ("browser",),
    "compose_project": ("compose", "docker"),
    "bwrap_ready": ("bwrap",),
}
# Backends chosen by parameter (`backend`, `backend_name`): the fixture the test then asks for with
# request.getfixturevalue() is invisible at collection, the parameter's value is not.
BACKEND_MARKS = {"docker": "docker", "docker-warm": "docker", "bwrap": "bwrap"}
# `slow` is written on the few tests that are long by nature and check nothing the quick tier's users wait
# for (a fuzz sweep of the whole API, the strength of built-in bots over many matches); the full suite runs them.
QUICK_TIER_LEAVES_OUT = {"docker", "browser", "compose", "slow"}
# The marks of the modules that start first, longest first: `long` is written on the tests of half a minute or
# more that would otherwise start late (the schemathesis sweep and the matrix's seven ways in, minutes each under
# load; the quick tier's subprocess collections, the old database's migration, the SQLite burst, mypy); then
# the compose stack, the browser tests, the live workers and Docker. xdist's worksteal hands each worker a
# contiguous share and moves work from the tail of the busier one, so what starts first is never what a worker
# is left alone with at the end. Whole modules move, in their own order: a module's fixtures are made once.
STARTS_FIRST = ("long", "compose", "browser", "worker", "docker")
# Where the quick tier's Docker client looks for an engine: nowhere. A test that needs Docker without being
# marked then skips (fails under CI=true) in the quick tier on every host, not only on hosts without Docker.
NO_DOCKER_ENGINE = "unix:///nonexistent/the-quick-tier-runs-without-docker.sock"


# Hypothesis's two clocks, off for the whole suite: its deadline (200 ms an example) and its too_slow health
# check (inputs drawn in about a second) fail a property on the wall time, which other work on the machine
# sets, not the code (test_similarity.py's properties failed both ways in a quick tier at load 16 to 40). A
# test that gives its own `suppress_health_check` list replaces this one. Timing figures go to bench/.
SUITE_PROFILE = "arena"
hypothesis.settings.register_profile(SUITE_PROFILE, deadline=None,
                                     suppress_health_check=[hypothesis.HealthCheck.too_slow])
hypothesis.settings.load_profile(SUITE_PROFILE)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--quick", action="store_true",
                     help=f"only the tests that need none of: {', '.join(sorted(QUICK_TIER_LEAVES_OUT))}")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(DatabaseFreeLongTestsFirst(), "arena-database-free-long-tests-first")
    config.pluginmanager.register(FixtureCosts(), "arena-fixture-costs")  # the set-ups' report at the end
    if config.getoption("quick"):
        os.environ["DOCKER_HOST"] = NO_DOCKER_ENGINE  # inherited by the xdist workers and every subprocess
        # The property tests try a third of their examples (tests/quick_tier.py): those that name their count
        # read this variable, those that do not take the profile's.
        os.environ[quick_tier.QUICK_TIER_VARIABLE] = "1"
        hypothesis.settings.register_profile(
            "quick-tier", parent=hypothesis.settings.get_profile(SUITE_PROFILE),
            max_examples=quick_tier.examples(hypothesis.settings.default.max_examples))
        hypothesis.settings.load_profile("quick-tier")


def marks_of(item: pytest.Item) -> set[str]:
    """The heavy parts `item` needs: from its fixtures, and from a sandbox backend among its parameters."""
    names = {mark for fixture in getattr(item, "fixturenames", ()) for mark in FIXTURE_MARKS.get(fixture, ())}
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        names |= {BACKEND_MARKS[value] for value in callspec.params.values()
                  if isinstance(value, str) and value in BACKEND_MARKS}
    return names


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by these marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for name in sorted(marks_of(item) - {mark.name for mark in item.iter_markers()}):
            item.add_marker(name)
    if config.getoption("quick"):
        heavy = {item for item in items if QUICK_TIER_LEAVES_OUT & {mark.name for mark in item.iter_markers()}}
        if heavy:
            config.hook.pytest_deselected(items=list(heavy))
            items[:] = [item for item in items if item not in heavy]
    items[:] = longest_modules_first(items)


def module_of(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


def start_rank(item: pytest.Item) -> int:
    """The place of `item`'s first STARTS_FIRST mark; len(STARTS_FIRST) for none."""
    marks = {mark.name for mark in item.iter_markers()}
    return min((place for place, name in enumerate(STARTS_FIRST) if name in marks), default=len(STARTS_FIRST))


def longest_modules_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """`items` with whole modules reordered by the first of STARTS_FIRST that one of their tests is marked with
    (unmarked modules after, as collected); the order within a module is kept."""
    module_rank: dict[str, int] = {}
    for item in items:
        module_rank[module_of(item)] = min(start_rank(item), module_rank.get(module_of(item), len(STARTS_FIRST)))
    collected = {name: place for place, name in enumerate(module_rank)}  # a dict keeps the order of insertion
    return sorted(items, key=lambda item: (module_rank[module_of(item)], collected[module_of(item)]))


# What gives a test the test database besides the django_db mark (pytest-django's fixtures; its
# django_db_blocker is in every test's closure, and unblocks nothing without django_db_setup).
DATABASE_FIXTURES = {"db", "transactional_db", "live_server", "django_db_setup", "django_db_reset_sequences",
                     "django_db_serialized_rollback"}


class DatabaseFreeLongTestsFirst:
    """pytest-django runs the database's tests first, then the transactional ones (a flush empties the tables
    that data migrations filled), and the tests without a database last, so the longest of these (Docker's
    sandboxes, the compose stack, the quick tier's subprocesses) would start at the end of the run. They touch
    no test database, so they may start before everything: the modules among them that STARTS_FIRST ranks."""

    @pytest.hookimpl(trylast=True)  # after pytest-django's order (and ours within its groups)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        ranked = {module_of(item) for item in items if start_rank(item) < len(STARTS_FIRST)}
        items.sort(key=lambda item: not (module_of(item) in ranked and needs_no_database(item)))


def needs_no_database(item: pytest.Item) -> bool:
    return item.get_closest_marker("django_db") is None and not DATABASE_FIXTURES & set(item.fixturenames)


# The garbage collector's full passes walk every object alive, and most of a test process's are made once
# and kept to the end: the modules, Django's apps and URL conf, the collected tests. Frozen, they are left out
# of every later pass (gc.freeze). At the end pytest collects five times over to report exceptions raised in
# finalizers (its unraisableexception plugin): frozen again at the session's end, those passes walk what the
# last tests left, not the whole heap (about 2.7 s of CPU in each process that ran a module of the platform).
@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    gc.freeze()
