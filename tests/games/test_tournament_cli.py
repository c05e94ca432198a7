"""`python -m games tournament`: whole tournaments between built-in bots, as a student runs them: in this process
(tests/in_process.py), and as a process where its stderr is the point (progress, the file bots' warnings)."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from games.__main__ import main
from in_process import run_main

ROOT = Path(__file__).resolve().parents[2]
ENDGAME_BOTS = ["builtin:optimal", "builtin:greedy", "builtin:random", "builtin:parity", "builtin:random"]


def run(*args, check=True):
    proc = run_main(main, ["tournament", *args])
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def run_process(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "games", "tournament", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def tournament(*args):
    return json.loads(run(*args, "--json").stdout)


def played(result):
    return [s for s in result["series"] if s["games"]]


def assert_seats_balanced(result):
    for series in played(result):
        first_seats = Counter(game["seats"][0] for game in series["games"])
        assert set(first_seats) == set(series["entrants"]) and len(set(first_seats.values())) == 1


def test_round_robin_of_endgame_bots_puts_the_optimal_player_first():
    result = tournament("endgame", "builtin:greedy", "builtin:optimal", "builtin:random", "--format", "round-robin",
                        "--seed", "4")
    assert result["format"] == "round-robin"
    assert result["entrants"] == ["builtin:greedy", "builtin:optimal", "builtin:random"]
    assert len(played(result)) == 3 and sum(s["bye"] for s in result["series"]) == 3
    assert_seats_balanced(result)
    # The two games of a pair are one board with the seats swapped: one seed, each bot first once.
    for series in played(result):
        assert len({game["seed"] for game in series["games"]}) == 1
    # Optimal never places below anyone; it may share first with greedy when their series is drawn 1-1.
    rows = {row["entrant"]: row for row in result["standings"]}
    assert rows[1]["place"] == 1 and result["champion"] in (1, None)
    assert rows[2] == {"entrant": 2, "place": 3, "points": 0.0, "tiebreaks": {"sonneborn_berger": 0.0}}


def test_the_same_seed_replays_the_same_tournament():
    args = ("endgame", *ENDGAME_BOTS, "--format", "swiss", "--seed", "11")
    assert tournament(*args) == tournament(*args)


def test_single_elimination_plays_n_minus_1_series_and_the_optimal_bot_wins():
    result = tournament("endgame", *ENDGAME_BOTS, "--format", "single-elimination", "--games-per-series", "3")
    assert len(played(result)) == len(ENDGAME_BOTS) - 1
    assert [s["entrants"] for s in result["series"] if s["bye"]] == [[0], [1], [2]]
    assert all(len(s["games"]) % 2 == 0 for s in played(result))  # best of 3 rounded up to whole pairs
    assert all(s["winner"] is not None for s in result["series"])
    assert_seats_balanced(result)
    assert result["champion"] == 0 and result["standings"][0]["entrant"] == 0


def test_double_elimination_plays_2n_minus_2_or_2n_minus_1_series():
    result = tournament("endgame", *ENDGAME_BOTS, "--format", "double-elimination", "--seed", "2")
    n = len(ENDGAME_BOTS)
    assert len(played(result)) in (2 * n - 2, 2 * n - 1)
    assert {s["bracket"] for s in result["series"]} == {"winners", "losers", "final"}
    assert result["champion"] is not None


def test_swiss_never_pairs_the_same_bots_twice():
    result = tournament("endgame", *ENDGAME_BOTS, "--format", "swiss", "--rounds", "3")
    pairs = [frozenset(s["entrants"]) for s in result["series"] if not s["bye"]]
    assert len(pairs) == len(set(pairs)) and {s["round"] for s in result["series"]} == {1, 2, 3}
    assert sum(s["bye"] for s in result["series"]) == 3
    assert set(result["standings"][0]["tiebreaks"]) == {"buchholz", "sonneborn_berger"}


def test_crazyking_heats_narrow_pods_to_a_final_table():
    bots = ["builtin:tactician", "builtin:most-suit", "builtin:random"] * 3
    result = tournament("crazyking", *bots, "--format", "heats", "--pod-size", "3", "--advance", "1",
                        "--games-per-series", "3", "--config", '{"target_score": 100}')
    rounds = Counter(s["round"] for s in result["series"])
    assert rounds == {1: 3, 2: 1}
    final = result["series"][-1]
    assert final["bracket"] == "final" and sorted(final["placings"]) == [1, 2, 3]
    assert_seats_balanced(result)
    for pod in played(result):
        # Three games, one per seat rotation, plus whole extra rotations if the pod was level.
        assert len(pod["games"]) % 3 == 0 and all(len(g["seats"]) == 3 for g in pod["games"])
        assert all(set(g["statuses"]) == {"ok"} for g in pod["games"])
    champion = result["champion"]
    assert champion == final["entrants"][final["placings"].index(1)]
    assert [row["place"] for row in result["standings"]][:3] == [1, 2, 3]


def test_a_bot_that_fails_setup_is_withdrawn_and_loses_without_playing(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def setup(info):\n    raise RuntimeError('broken')\n\ndef act(obs):\n    return obs['legal_actions'][0]\n")
    result = tournament("endgame", "builtin:greedy", str(broken), "builtin:random", "--format", "round-robin")
    assert "broken" in result["withdrawn"]["1"]
    against = [s for s in result["series"] if 1 in s["entrants"] and not s["bye"]]
    assert len(against) == 2 and all(s["games"] == [] and s["winner"] != 1 for s in against)
    assert result["standings"][-1] == {"entrant": 1, "place": 3, "points": 0.0, "tiebreaks": {"sonneborn_berger": 0.0}}


def test_the_readable_output_shows_the_bracket_and_keeps_progress_on_stderr():
    proc = run_process("endgame", *ENDGAME_BOTS[:4], "--format", "single-elimination")
    assert "Winners' bracket round 2" in proc.stdout and "champion: #0 builtin:optimal" in proc.stdout
    assert "\r" not in proc.stdout and "series" in proc.stderr


@pytest.mark.parametrize("args, message", [
    (["endgame", "builtin:greedy", "builtin:random", "builtin:optimal", "--format", "heats"], "needs tables of 3"),
    (["endgame", *ENDGAME_BOTS, "--format", "swiss", "--rounds", "9"], "use round-robin"),
    (["crazyking", *["builtin:random"] * 4, "--format", "heats", "--pod-size", "2"], "pod size of at least 3"),
    (["endgame", "builtin:greedy", "--format", "round-robin"], "at least 2 entrants"),
    (["endgame", "builtin:greedy", "builtin:nope", "--format", "round-robin"], "no built-in bot 'nope'"),
    (["endgame", "builtin:greedy", "builtin:random", "--format", "round-robin", "--pod-size", "3"], "options of heats"),
])
def test_bad_tournaments_fail_with_a_clear_message(args, message):
    proc = run(*args, check=False)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_a_tournament_without_a_sandbox_warns_once_per_file_bot_not_once_per_game(tmp_path):
    example = (ROOT / "docs" / "bots" / "examples" / "endgame_example.py").read_text()
    bots = []
    for name in ("ann", "ben", "cyd"):
        (tmp_path / f"{name}.py").write_text(example)
        bots.append(str(tmp_path / f"{name}.py"))
    proc = run_process("endgame", *bots, "builtin:greedy", "--format", "round-robin", "--sandbox", "none", "--json")

    assert len(json.loads(proc.stdout)["series"]) == 6  # 12 games, 18 seats of file bots
    warnings = [line for line in proc.stderr.splitlines() if "NO isolation" in line]
    assert sorted(line.split("'none': ")[1].split(" runs")[0] for line in warnings) == sorted(bots)
