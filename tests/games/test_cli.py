"""`python -m games`, as a student runs it before uploading: as a process where the bots' warnings on stderr or
a game's solver state matter, in this process otherwise (tests/in_process.py)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.__main__ import main
from in_process import run_main

ROOT = Path(__file__).resolve().parents[2]


def run(*args, check=True):
    proc = run_main(main, list(args))
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def run_process(*args, check=True):
    """The command as the student starts it; its file bots' warnings go to its stderr (logging's last resort)."""
    proc = subprocess.run([sys.executable, "-m", "games", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_solve_prints_the_seed_example_scores_and_best_moves():
    out = json.loads(run("solve", "endgame", "--board", "-1 3 9 4", "--json").stdout)
    assert out == {"first": 8, "second": 7, "best_moves": ["left"]}
    assert "first player 8, second player 7" in run("solve", "endgame", "--board", "-1 3 9 4").stdout


def test_match_json_reports_winners_and_each_seat(tmp_path):
    replay_file = tmp_path / "game.json"
    out = json.loads(run("match", "endgame", "builtin:optimal", "builtin:greedy", "--seed", "3", "--json",
                         "--replay", str(replay_file)).stdout)
    assert out["winners"] == [0]
    assert [p["status"] for p in out["players"]] == ["ok", "ok"]
    assert out["players"][0]["score"] > out["players"][1]["score"]
    shown = run("replay", str(replay_file)).stdout
    # Every move is shown with its analysis, and the summary of points lost.
    assert shown.count("lost ") >= 20
    assert "points lost against optimal play: builtin:optimal 0" in shown


def test_match_on_a_given_board_plays_the_seed_example():
    out = json.loads(run("match", "endgame", "builtin:optimal", "builtin:optimal", "--board", "-1 3 9 4", "--json").stdout)
    assert [p["score"] for p in out["players"]] == [8, 7]


def test_list_names_games_and_builtin_bots():
    out = run("list").stdout
    assert "endgame" in out and "builtin:parity" in out and "builtin:optimal" in out


@pytest.mark.parametrize(
    "args, message",
    [(["match", "endgame", "builtin:nope", "builtin:greedy"], "no built-in bot 'nope'"),
     (["match", "endgame", "missing.py", "builtin:greedy"], "no such bot file"),
     (["match", "endgame", "builtin:greedy"], "2 to 2"),
     (["match", "chess", "builtin:greedy", "builtin:greedy"], "unknown game"),
     (["solve", "endgame", "--board", "1 two 3"], "integers separated"),
     (["solve", "endgame"], "needs --board"),
     (["solve", "sprouts", "--position", "1;;2"], "is not a stack"),
     (["solve", "sprouts", "--spots", "0"], "at least 1")],
)
def test_bad_commands_fail_with_a_clear_message(args, message):
    proc = run(*args, check=False)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_replay_of_a_file_that_is_not_one_is_refused(tmp_path):
    bogus = tmp_path / "bogus.json"
    bogus.write_text("{\"hello\": 1}")
    proc = run("replay", str(bogus), check=False)
    assert proc.returncode == 2 and "not an arena replay" in proc.stderr


def test_config_from_a_file_plays_an_instructors_deck_and_refuses_a_broken_one(tmp_path):
    deck = json.loads((ROOT / "games" / "sortinggame" / "deck.json").read_text())
    good = tmp_path / "course.json"
    good.write_text(json.dumps({"deck": deck, "robbery": True}))
    out = json.loads(run("match", "sortinggame", "builtin:honest", "builtin:random", "--config", f"@{good}", "--json").stdout)
    assert len(out["players"]) == 2 and all(p["status"] == "ok" for p in out["players"])

    deck["algorithms"] = deck["algorithms"] + deck["algorithms"][:1]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"deck": deck}))
    proc = run("match", "sortinggame", "builtin:honest", "builtin:random", "--config", f"@{broken}", check=False)
    assert proc.returncode == 2 and "duplicate" in proc.stderr.lower() and "Traceback" not in proc.stderr


FILE_BOTS = {
    # What a student's bot does wrong, and the status the match reports for it.
    "raises": ("def act(observation):\n    return 1 / 0\n", "crash"),
    "exits": ("import sys\nsys.exit(3)\n", "crash"),
    "illegal": ("def act(observation):\n    return 'middle'\n", "illegal"),
    "sleeps": ("import time\ndef act(observation):\n    time.sleep(60)\n", "timeout"),
}


@pytest.mark.parametrize("fault", sorted(FILE_BOTS))
def test_a_failing_file_bot_loses_with_its_status_in_a_plain_process(fault, tmp_path):
    source, status = FILE_BOTS[fault]
    bot = tmp_path / f"{fault}.py"
    bot.write_text(source)
    # A small bank, so the sleeping bot runs out of time quickly.
    proc = run_process("match", "endgame", str(bot), "builtin:greedy", "--sandbox", "none", "--json",
               "--config", '{"length": 6}')
    out = json.loads(proc.stdout)
    assert out["winners"] == [1]
    assert [p["status"] for p in out["players"]] == [status, "ok"]
    assert "runs as a plain child process with NO isolation" in proc.stderr


def test_a_file_bot_plays_a_whole_match_in_a_plain_process():
    example = ROOT / "docs" / "bots" / "examples" / "endgame_example.py"
    out = json.loads(run("match", "endgame", str(example), "builtin:random", "--sandbox", "none", "--json").stdout)
    assert [p["status"] for p in out["players"]] == ["ok", "ok"] and out["players"][0]["decisions"] == 10


def test_solve_sprouts_names_the_winner_and_the_winning_moves():
    # In processes of their own: the solver's tables stay out of the test process, whose other tests look for
    # positions it has not settled.
    out = json.loads(run_process("solve", "sprouts", "--spots", "3", "--json").stdout)
    assert out["winner"] == "first" and out["position"] == "1;2;3" and "1(4)2" in out["winning_moves"]
    misere = json.loads(run_process("solve", "sprouts", "--spots", "3", "--misere", "--json").stdout)
    assert misere["winner"] == "second"
    # The seed's example game after three moves: its fourth move, 2(6)3, is the only winning one.
    text = run_process("solve", "sprouts", "--position", "5,1,3,2,4/5,4,1/4,2,3,1").stdout
    assert "the first player wins" in text and "winning moves: 2(6)3" in text


def test_match_shows_the_starting_table_and_the_seed_it_drew():
    first, second = (run("match", "endgame", "builtin:greedy", "builtin:greedy").stdout for _ in range(2))
    seeds = [out.splitlines()[0] for out in (first, second)]
    assert all("seed" in line and "--seed" in line for line in seeds)
    assert seeds[0] != seeds[1]  # a fresh seed each time (1 in a million to collide)
    assert first.splitlines()[1] == "starting table:" and "board:" in first.splitlines()[2]
    seed = int(seeds[0].split("seed ")[1].split(" ")[0])
    again = run("match", "endgame", "builtin:greedy", "builtin:greedy", "--seed", str(seed)).stdout
    assert again.splitlines()[0] == f"End Game, seed {seed}" and again.splitlines()[1:] == first.splitlines()[1:]


def test_a_crazyking_match_is_summarised_by_round_unless_verbose():
    short = run("match", "crazyking", "builtin:random", "builtin:most-suit", "--seed", "5").stdout
    long = run("match", "crazyking", "builtin:random", "builtin:most-suit", "--seed", "5", "--verbose").stdout
    assert len(short.splitlines()) < 120 < 2000 < len(long.splitlines())
    assert "round 1:" in short and "final table" in short


@pytest.mark.parametrize("board", [["--board", "-1,3,9,4"], ["--board=-1,3,9,4"], ["--board", "-1 3 9 4"]])
def test_a_board_starting_with_a_minus_is_accepted_in_every_spelling(board):
    out = json.loads(run("match", "endgame", "builtin:optimal", "builtin:optimal", *board, "--json").stdout)
    assert [p["score"] for p in out["players"]] == [8, 7]


def test_replay_step_shows_one_position_in_a_seats_view(tmp_path):
    replay_file = tmp_path / "game.json"
    run("match", "crazyking", "builtin:random", "builtin:most-suit", "--seed", "2", "--json", "--replay", str(replay_file))
    full = run("replay", str(replay_file), "--step", "10").stdout
    seat = run("replay", str(replay_file), "--step", "10", "--seat", "1").stdout
    assert "step 10 of" in full and "last move:" in full and "next:" in full
    assert "[??]" in seat and "[??]" not in full  # seat 1 sees seat 0's hand face down
    proc = run("replay", str(replay_file), "--step", "100000", check=False)
    assert proc.returncode == 2 and "--step must be 0 to" in proc.stderr
