"""Mutation score of the modules where a silent bug costs most, with cosmic-ray (pyproject.toml, dev extra).

    python bench/mutation_score.py --module elo [--module timebank ...] [--budget 1800]

Each module is mutated in a private copy of the work tree (never in place) and its tests are run once per
mutant; a mutant is killed when they fail (or time out). Prints, per module, killed / tried and the score,
then every surviving mutant as a diff, for judging in docs/mutation.md. Without --module it runs all of
them, which takes hours; --budget (seconds per module) stops a module early and reports what it reached
(the session is kept in --work, and running again with the same --work resumes it).

The platform modules need DATABASE_URL (PostgreSQL) as for the platform tests; the time bank needs the
Docker image and bwrap, as the sandbox tests do.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Replacing + - * / with bitwise and shift operators makes float code raise at once: hundreds of mutants that
# any run kills, which would pad the score and the running time. The arithmetic replacements stay.
EXCLUDED_OPERATORS = [r"core/ReplaceBinaryOperator_\w+_(BitAnd|BitOr|BitXor|LShift|RShift)"]


@dataclasses.dataclass(frozen=True)
class Stage:
    """One pytest run (-k selects among every test named, module names included). A light one loads no plugins (nor, with --noconftest, the platform's Django
    fixtures): it starts in a second where a full run takes ten on a loaded host, so it goes first."""

    args: str
    light: bool = True

    def run(self, tree: Path) -> int:
        env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"} if self.light else dict(os.environ)
        command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *shlex.split(self.args)]
        if not self.light:
            command[5:5] = ["-p", "no:xdist"]
        return subprocess.run(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              check=False).returncode


@dataclasses.dataclass(frozen=True)
class Target:
    """Files to mutate (optionally only some functions or classes of them: "Class.method", "Class") and
    the test stages that must all pass for a mutant to survive."""

    paths: tuple[str, ...]
    stages: tuple[Stage, ...]
    only: tuple[str, ...] = ()
    # Seconds before a mutant's test run counts as killed by a hang (an `and` for an `or` in a loop's
    # condition plays forever): a few times the slowest passing run on a loaded host.
    timeout: float = 120.0


# pytest-timeout, loaded by hand in a light stage: a mutant that hangs one test fails it in a minute.
LIGHT_TIMEOUT = "-p pytest_timeout --timeout 60"
GAME_RULES = ("tests/games/test_core.py tests/games/test_endgame_game.py tests/games/test_crazyking_rules.py "
              "tests/games/test_sortinggame_rules.py")
TOURNAMENT_TESTS = "tests/games/test_tournament_formats.py tests/games/test_tournament_series.py"
TARGETS = {
    "elo": Target(("platform/arena/ratings/elo.py",), (
        Stage("--noconftest tests/platform/test_elo.py -k 'not recompute'"),
        Stage("tests/platform/test_elo.py -k recompute --reuse-db", light=False),
    ), timeout=300.0),
    # The bank lives in SandboxPlayer._exchange; its limits in sandbox/limits.py. The charge is the same code on
    # every backend: the process backend's tests (light, a hang cut at 60 s) kill most mutants; bwrap (a cgroup's
    # CPU counter, as Docker reads) only sees the survivors. Docker is left out: its CPU-between-turns bound
    # fails now and then on a host loaded past 8, which would count as a kill.
    "timebank": Target(("sandbox/base.py", "sandbox/limits.py"), (
        # One light run: the Limits tests first (instant), then the process backend's.
        Stage(f"--noconftest {LIGHT_TIMEOUT} tests/sandbox/test_sandbox_protocol.py tests/sandbox/test_sandbox_limits.py "
              "-k '(none and not fork and not cpu_bound) or documented or take_the_games'"),
        Stage("tests/sandbox/test_sandbox_limits.py -k 'bwrap and (bank or amount or closes)'", light=False),
        Stage("tests/sandbox/test_sandbox_protocol.py tests/sandbox/test_sandbox_isolation.py"
              "::test_cpu_used_between_turns_is_charged -k bwrap", light=False),
    ), only=("SandboxPlayer._exchange", "Limits"), timeout=300.0),
    "core": Target(("games/core.py",), (Stage(GAME_RULES),)),
    # test_core plays matches of a toy game through every path of the referee; the CLI's file bots (in a
    # plain process) add real logs and statuses, without its slow cases (a bot that sleeps out its time).
    "referee": Target(("games/referee.py",), (
        Stage("tests/games/test_core.py"),
        Stage("tests/games/test_endgame_game.py tests/games/test_cli.py "
              "-k 'not sleeps and (endgame_game or match_json or whole_match or failing_file_bot)'"),
    )),
    # Taking a match for an attempt, recording its result or error exactly once, and the deadline sweep.
    "claim": Target(("platform/arena/matches/services.py", "platform/arena/matches/models.py", "platform/arena/matches/tasks.py"), (
        Stage("tests/platform/test_match_claim.py --reuse-db", light=False),
        Stage("tests/platform/test_exactly_once.py --reuse-db", light=False),
        Stage("tests/platform/test_match_hooks.py --reuse-db", light=False),
    ), only=("claim", "record_result", "record_fault", "_conclude", "change_status", "requeue_stuck",
             "MatchQuerySet.stuck", "Match.is_over", "run_match"), timeout=300.0),
    # The rubric part types and the late penalty, scored by hand (without Django, then without the database),
    # then the grading runs that sum the parts into grades (the tournament's first: it reads the most).
    "rubric": Target(("platform/arena/grading/parts.py", "platform/arena/grading/runs.py", "platform/arena/grading/services.py"), (
        Stage("--noconftest tests/platform/test_grading_parts.py"),
        Stage("tests/platform/test_grading_scores.py", light=False),
        Stage("--reuse-db " + " ".join(f"tests/platform/test_grading_{name}" for name in (
            "runs.py::test_tournament_placement_and_elo_percentile_read_what_the_platform_recorded",
            "runs.py::test_a_run_plays_seeded_games_with_seats_alternated_and_grades_every_part",
            "runs.py::test_late_work_is_graded_with_its_penalty", "runs.py::test_a_part_refuses_options_it_cannot_use",
            "people.py::test_an_upload_one_second_late_is_not_graded_as_on_time")), light=False),
    ), only=("derived_seed", "_number", "register", "PartType", "PlaysBuiltin", "WinRate", "Reliability",
             "SolverLoss", "TournamentPlacement", "EloPercentile", "SproutsWinningMoves", "TeamScore",
             "write_grades", "_measure", "late_days", "late_factor"), timeout=300.0),
    "solver": Target(("games/endgame/solver.py",),
                     (Stage("tests/games/test_endgame_solver.py tests/games/test_endgame_game.py"),)),
    # The tournament formats, one target a file (1,861 mutants in all: some hours here), so that the most
    # costly to get wrong can be measured first and each has its own score. The hand-worked cases go
    # first; the property tests (random tournaments, half the time) only for what survives them.
    **{f"tournament-{name}": Target((f"games/tournament/{name}.py",), (
        Stage(f"{TOURNAMENT_TESTS} -k 'not (any_results or round_limit)'"),
        Stage(f"{TOURNAMENT_TESTS} -k 'any_results or round_limit'"),
    )) for name in ("base", "elimination", "heats", "model", "roundrobin", "series", "swiss", "tournament")},
}


def run_stages(name: str) -> int:
    """The test command cosmic-ray runs for each mutant (in the copy): 0 only if every stage passes."""
    tree = Path.cwd()
    for stage in TARGETS[name].stages:
        status = stage.run(tree)
        if status:
            return status
    return 0


def copy_tree(destination: Path) -> Path:
    """The work tree as it is now (tracked and new files, uncommitted edits included), to mutate freely."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def line_ranges(path: Path, names: tuple[str, ...]) -> list[range]:
    """The lines of the named functions or classes ("Class.method", "function", "Class") in `path`."""
    ranges = []

    def visit(node, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qualified = f"{prefix}{child.name}"
                if qualified in names:
                    ranges.append(range(child.lineno, child.end_lineno + 1))
                visit(child, f"{qualified}.")

    visit(ast.parse(path.read_text()), "")
    return ranges


def annotation_spans(path: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where the type annotations of `path` are: a mutant there changes no behaviour (with `from __future__
    import annotations` they are never evaluated)."""
    spans = []
    for node in ast.walk(ast.parse(path.read_text())):
        annotations = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            annotations.append(node.returns)
        elif isinstance(node, (ast.arg, ast.AnnAssign)):
            annotations.append(node.annotation)
        spans += [((a.lineno, a.col_offset), (a.end_lineno, a.end_col_offset)) for a in annotations if a is not None]
    return spans


def skip_unwanted(session: Path, tree: Path, target: Target) -> None:
    """Mark as skipped the mutants in type annotations and, with `target.only`, those outside the functions
    and classes measured (cosmic-ray mutates whole files)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    wanted = {path: line_ranges(tree / path, target.only) for path in target.paths}
    annotations = {path: annotation_spans(tree / path) for path in target.paths}
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item in list(db.pending_work_items):
            mutation = item.mutations[0]
            path, position = str(mutation.module_path), tuple(mutation.start_pos)
            if any(start <= position < end for start, end in annotations[path]):
                reason = "in a type annotation"
            elif target.only and not any(position[0] in lines for lines in wanted[path]):
                reason = "outside the functions measured"
            else:
                continue
            db.set_result(item.job_id, WorkResult(output=reason, worker_outcome=WorkerOutcome.SKIPPED))


def configure(work: Path, name: str, target: Target) -> Path:
    config = work / "cosmic-ray.toml"
    paths = ", ".join(f'"{path}"' for path in target.paths)
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = [{paths}]\n"
        f"timeout = {target.timeout}\n"
        "excluded-modules = []\n"
        f'test-command = "{sys.executable} bench/mutation_score.py --run-tests {name}"\n'
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = {json.dumps(EXCLUDED_OPERATORS)}\n"
    )
    return config


@dataclasses.dataclass
class Score:
    killed: int = 0
    survived: list[str] = dataclasses.field(default_factory=list)
    pending: int = 0

    @property
    def tried(self) -> int:
        return self.killed + len(self.survived)

    def line(self, name: str) -> str:
        percent = f"{100 * self.killed / self.tried:.1f}%" if self.tried else "n/a"
        rest = f", {self.pending} not reached within the budget" if self.pending else ""
        return f"{name}: {self.killed} killed of {self.tried} mutants = {percent}{rest}"


def score(session: Path) -> Score:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    result = Score()
    with use_db(str(session), WorkDB.Mode.open) as db:
        result.pending = sum(1 for _ in db.pending_work_items)
        for item, outcome in db.completed_work_items:
            if outcome.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            if outcome.test_outcome == TestOutcome.SURVIVED:
                mutation = item.mutations[0]
                result.survived.append(f"{mutation.module_path}:{mutation.start_pos[0]} {mutation.operator_name}\n"
                                       f"{outcome.diff}")
            else:  # killed, a timeout, or incompetent (the mutant cannot even run): caught either way
                result.killed += 1
    return result


def recheck_survivors(session: Path, tree: Path) -> None:
    """Refresh the copy from the work tree (new tests included) and queue the survivors to run again."""
    copy_tree(tree)
    with sqlite3.connect(session) as db:
        db.execute("DELETE FROM work_results WHERE test_outcome = 'SURVIVED'")


def measure(name: str, work: Path, budget: float, recheck: bool = False) -> Score:
    target = TARGETS[name]
    work.mkdir(parents=True, exist_ok=True)
    tree = work / "tree"
    session = work / "session.sqlite"
    config = configure(work, name, target)
    if not session.exists():
        shutil.rmtree(tree, ignore_errors=True)
        copy_tree(tree)
        subprocess.run(["cosmic-ray", "init", str(config), str(session)], cwd=tree, check=True)
        subprocess.run(["cr-filter-operators", str(session), str(config)], cwd=tree, check=True)
        skip_unwanted(session, tree, target)
    elif recheck:
        recheck_survivors(session, tree)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(tree / "platform")])}
    began = time.monotonic()
    try:
        subprocess.run(["cosmic-ray", "exec", str(config), str(session)], cwd=tree, env=env, timeout=budget,
                       stdout=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        print(f"{name}: budget of {budget:g}s spent", file=sys.stderr)
    print(f"{name}: {time.monotonic() - began:.0f}s", file=sys.stderr)
    return score(session)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", action="append", choices=sorted(TARGETS),
                        help="a module to measure (repeat for several; default: all)")
    parser.add_argument("--budget", type=float, default=3600.0, help="seconds per module (default 3600)")
    parser.add_argument("--recheck-survivors", action="store_true",
                        help="with the --work of an earlier run: run its surviving mutants again against the tests now")
    parser.add_argument("--run-tests", metavar="MODULE", choices=sorted(TARGETS), help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, default=None,
                        help="folder for the copies and sessions (default: a new temporary one); reuse to resume")
    args = parser.parse_args(argv)
    if args.run_tests:
        return run_stages(args.run_tests)
    work = args.work or Path(tempfile.mkdtemp(prefix="arena-mutation-"))
    print(f"work folder: {work}", file=sys.stderr)
    results = {name: measure(name, work / name, args.budget, args.recheck_survivors)
               for name in args.module or sorted(TARGETS)}
    for name, result in results.items():
        print(result.line(name))
    for name, result in results.items():
        for survivor in result.survived:
            print(f"\n--- {name} survivor: {survivor}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
