"""`pytest --quick` (scripts/test --quick) holds every test that needs no Docker, browser or compose stack and is
not marked slow, and none that does or is: the suite is collected in a subprocess as the quick tier would collect
it; the full suite (no option) still runs the slow ones: --quick collects them and then leaves them out."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from once_per_run import once_per_run

# A subprocess that collects the suite: the module starts first (tests/conftest.py).
pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[1]
# Collects the quick tier as scripts/test --quick does and writes to the file named by argv[1], for each of its tests, the fixtures it uses
# (with those they use in turn) and its string parameters, and the tests the suite has that --quick left out.
COLLECT = """
import json, sys, pytest

def string_params(item):
    callspec = getattr(item, "callspec", None)
    return [value for value in callspec.params.values() if isinstance(value, str)] if callspec else []

class Report:
    left_out = []

    def pytest_deselected(self, items):
        self.left_out += [item.nodeid for item in items]

    def pytest_collection_finish(self, session):
        tests = {item.nodeid: {"fixtures": sorted(item.fixturenames), "params": string_params(item)}
                 for item in session.items}
        with open(sys.argv[1], "w") as report:
            json.dump({"quick": tests, "left_out": self.left_out}, report)

sys.exit(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "--quick", "-p", "no:schemathesis"],
                     plugins=[Report()]))
"""
# What brings up Docker (a sandbox container, a worker playing in one), a browser or the compose stack.
HEAVY_FIXTURES = {"docker_image", "sandbox_backend", "live_worker", "chromium", "browser_page", "compose_project"}
DOCKER_BACKENDS = {"docker", "docker-warm"}
# Marked slow (long by nature, nothing the quick tier needs): left out of --quick, kept in the full suite.
SLOW = [
    "tests/platform/test_schema_fuzz.py::test_every_operation_answers_as_its_schema_says",
    "tests/games/test_crazyking.py::test_the_tactician_beats_random_and_most_suit_over_seeded_two_player_matches",
    "tests/games/test_sorted.py::test_the_planner_wins_every_seeded_deal_and_beats_the_helper",
    "tests/platform/test_authorization_matrix.py::test_no_way_of_adding_someone_to_a_course_or_team_opens_anything",
]


@pytest.fixture(scope="module")
def collected(tmp_path_factory) -> dict:
    """The quick tier as collected, once in a run (tests/once_per_run.py): each collection of the whole suite
    costs half a minute of CPU or more, and xdist spreads this module's tests over both workers."""
    def collect(report: Path) -> None:
        run = subprocess.run([sys.executable, "-c", COLLECT, str(report)], cwd=ROOT, capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]

    return json.loads(once_per_run(tmp_path_factory, "quick-tier-collected.json", collect).read_text())


@pytest.fixture(scope="module")
def quick_tier(collected) -> dict[str, dict]:
    return collected["quick"]


def test_no_test_of_the_quick_tier_asks_for_docker_a_browser_or_compose(quick_tier):
    heavy = {test: sorted(HEAVY_FIXTURES.intersection(used["fixtures"]) | DOCKER_BACKENDS.intersection(used["params"]))
             for test, used in quick_tier.items()}
    assert {test: parts for test, parts in heavy.items() if parts} == {}


@pytest.mark.parametrize("test", [
    "tests/platform/test_full_loop.py::test_register_upload_validate_challenge_replay_ladder",  # live_worker
    "tests/platform/test_browser.py::test_sign_in_upload_challenge_and_open_the_replay",  # browser_page
    "tests/platform/test_compose.py::test_compose_runs_the_platform_and_the_worker_validates_in_docker",
    "tests/platform/test_fault_tolerance.py::",  # its own workers, in Docker sandboxes (sandbox_backend)
    "tests/sandbox/test_sandbox_warm.py::",  # docker_image
    "tests/sandbox/test_sandbox_hostile.py::test_failing_bot_gets_its_verdict_and_loses[docker-",  # and docker-warm
    # Backends asked for inside the test (request.getfixturevalue), known by the parameter only:
    "tests/sandbox/test_sandbox_cleanup.py::test_a_game_that_raises_mid_match_leaves_nothing_of_the_cli_s_sandboxes[docker]",
    "tests/sandbox/test_sandbox_protocol.py::test_cli_match_runs_in_the_sandbox[docker]",
    "tests/platform/test_match_boundary.py::test_a_game_that_raises_mid_match_leaves_no_sandbox_of_the_runner[docker-warm]",
    *SLOW,
])
def test_what_needs_docker_a_browser_or_compose_or_is_slow_is_left_out(quick_tier, test):
    assert [nodeid for nodeid in quick_tier if nodeid.startswith(test)] == []


def test_the_long_tests_that_need_no_database_start_first(quick_tier):
    """The modules with a test marked `long` that needs no database start before all others (pytest-django
    would run them last, after the database's tests), so that a worker is not left alone with one at the end."""
    modules = list(dict.fromkeys(test.split("::")[0] for test in quick_tier))  # in the order they start
    long_modules = ["tests/test_tiers.py", "tests/test_package.py", "tests/test_types.py",
                    "tests/platform/test_sqlite_concurrency.py"]
    assert sorted(modules[:len(long_modules)]) == sorted(long_modules)


def test_the_full_suite_still_runs_the_slow_tests(collected):
    """The suite has them: --quick collects them (as the full suite does) and leaves them out, it alone."""
    left_out = collected["left_out"]
    # A parametrized test is collected as its cases: `test[case]`.
    assert [test for test in SLOW if not any(line == test or line.startswith(f"{test}[") for line in left_out)] == []


@pytest.mark.parametrize("test", [
    "tests/games/test_core.py::test_canonical_ignores_key_order_only",
    "tests/platform/test_authorization_matrix.py::test_every_declaration_names_a_route_of_the_site",
    "tests/platform/test_exactly_once.py::test_cancelled_match_is_not_recorded",  # PostgreSQL stays in
    "tests/platform/test_sqlite_concurrency.py::test_a_burst_of_uploads_and_challenges_strands_no_match_on_sqlite",
    "tests/sandbox/test_sandbox_hostile.py::test_failing_bot_gets_its_verdict_and_loses[bwrap-fork_bomb]",
    "tests/sandbox/test_sandbox_cleanup.py::test_a_game_that_raises_mid_match_leaves_nothing_of_the_cli_s_sandboxes[none]",
    "tests/platform/test_match_boundary.py::test_a_game_that_raises_mid_match_leaves_no_sandbox_of_the_runner[bwrap]",
    "tests/test_tiers.py::test_no_test_of_the_quick_tier_asks_for_docker_a_browser_or_compose",
])
def test_what_needs_none_of_them_stays_in(quick_tier, test):
    assert test in quick_tier
