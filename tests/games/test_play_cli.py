"""`python -m games play`: a person at the terminal, driven through stdin as a person (or a cat on the keyboard) would."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games import get_game
from games.__main__ import main
from in_process import run_main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "bots" / "examples"
BOARD = "-1 3 9 4 7 2"


def play(*args, stdin: bytes, timeout=120):
    return subprocess.run([sys.executable, "-m", "games", "play", *args], cwd=ROOT, input=stdin,
                          capture_output=True, timeout=timeout)


def endgame(tmp_path, stdin: bytes, *extra):
    replay = tmp_path / "game.json"
    proc = play("endgame", "--seat", "0", "human", "--opponents", "builtin:greedy", "--board", BOARD,
                "--replay", str(replay), "--seed", "1", *extra, stdin=stdin)
    return proc, proc.stdout.decode(), replay


def show(*args):
    proc = subprocess.run([sys.executable, "-m", "games", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_person_plays_end_game_by_number_or_label_and_the_replay_shows_the_points_they_lost(tmp_path):
    proc, out, replay = endgame(tmp_path, b"1\nTake 2 from the right end\n1\n")
    assert proc.returncode == 0, proc.stderr
    assert "  1. take -1 from the left end\n  2. take 2 from the right end" in out
    assert "seat 0: take -1 from the left end" in out and "seat 1 (builtin:greedy) takes 3 from the left" in out
    assert "seat 0: take 2 from the right end" in out
    saved = json.loads(replay.read_text())
    assert saved["players"] == ["you", "builtin:greedy"] and saved["result"]["statuses"] == ["ok", "ok"]
    assert [event["action"] for event in saved["events"]] == ["left", "left", "right", "left", "left", "left"]
    shown = show("replay", str(replay))
    assert "points lost against optimal play: you 10, builtin:greedy 0" in shown


HOSTILE_ANSWERS = {
    "a word": (b"banana\n", "'banana' is not one of the moves"),
    "no such number": (b"3\n", "'3' is not one of the moves"),
    "zero": (b"0\n", "'0' is not one of the moves"),
    "negative": (b"-1\n", "'-1' is not one of the moves"),
    "huge number": (b"9" * 5_000 + b"\n", "that line is longer than 1000 characters"),
    "long number": (b"99999999999999999999999\n", "is not one of the moves"),
    "not utf-8": (b"\xff\xfe\xfa\n", "that line is not UTF-8 text"),
    "five megabytes": (b"1" * 5_000_000 + b"\n", "that line is longer than 1000 characters"),
    "control characters": (b"\x00\x1b[2J\n", "is not one of the moves"),
    "empty: the list again": (b"\n", "  1. take -1 from the left end"),
}


@pytest.mark.parametrize("hostile, answer", HOSTILE_ANSWERS.values(), ids=HOSTILE_ANSWERS)
def test_any_answer_that_is_not_a_move_is_refused_and_the_person_is_asked_again(hostile, answer, tmp_path):
    proc, out, replay = endgame(tmp_path, hostile + b"2\n1\n1\n")
    assert proc.returncode == 0, proc.stderr
    assert answer in out and "Traceback" not in proc.stderr.decode()
    assert out.count("your choice") == 4  # asked once again, then the three moves
    assert json.loads(replay.read_text())["result"]["statuses"] == ["ok", "ok"]


def test_the_end_of_input_leaves_the_table_with_the_verdict_timeout_and_the_replay_is_saved(tmp_path):
    proc, out, replay = endgame(tmp_path, b"1\n")
    assert proc.returncode == 0, proc.stderr
    assert "end of input: seat 0 leaves the table and loses" in out
    assert "seat 0 (you) is out: timeout (left the table)" in out
    saved = json.loads(replay.read_text())
    assert saved["events"][-1] == {"seat": 0, "verdict": "timeout"} and saved["result"]["winners"] == [1]
    assert "is out: timeout" in show("replay", str(replay))


def test_a_last_line_without_its_newline_is_still_read(tmp_path):
    proc, out, replay = endgame(tmp_path, b"1\n1\n1")
    assert proc.returncode == 0 and json.loads(replay.read_text())["result"]["statuses"] == ["ok", "ok"]


def test_a_person_who_does_not_answer_in_time_loses_on_time(tmp_path):
    replay = tmp_path / "game.json"
    with subprocess.Popen([sys.executable, "-m", "games", "play", "endgame", "--seat", "1", "human", "--board", BOARD,
                           "--move-time", "1", "--replay", str(replay)], cwd=ROOT, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        proc.wait(timeout=60)  # stdin stays open, and nothing is typed: the clock runs out
        assert not proc.stdin.closed
        out, err = proc.stdout.read(), proc.stderr.read()
    assert proc.returncode == 0, err
    assert b"time is up: seat 1 loses on time" in out and b"seat 1 (you) is out: timeout (no move within 1 s)" in out
    assert json.loads(replay.read_text())["result"]["statuses"] == ["ok", "timeout"]


def test_a_bot_file_plays_the_other_seat_in_its_sandbox(tmp_path):
    proc, out, replay = endgame(tmp_path, b"2\n2\n2\n", "--opponents", str(EXAMPLES / "endgame_example.py"))
    assert proc.returncode == 0, proc.stderr
    saved = json.loads(replay.read_text())
    assert saved["players"] == ["you", "endgame_example.py"] and saved["result"]["statuses"] == ["ok", "ok"]


def test_in_a_game_with_hidden_cards_the_person_never_reads_another_seats_description_of_a_move(tmp_path):
    replay = tmp_path / "game.json"
    proc = play("sorted", "--seat", "2", "human", "--opponents", "builtin:helper", "--seed", "3",
                "--replay", str(replay), stdin=b"2\n" * 3)
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr
    assert "swap your 1st card (?) with seat 0's 1st card" in out
    # The bots' moves are not described (a description names the cards they swapped, some of them the
    # person's own, which they may not see); their own view shows what they may know.
    assert "swaps its" not in out and "seat 0 (builtin:helper)" not in out
    assert json.loads(replay.read_text())["players"] == ["builtin:helper", "builtin:helper", "you", "builtin:helper"]


@pytest.mark.parametrize("args, message", [
    (["endgame", "--seat", "0", "builtin:greedy"], "no seat is played by a person"),
    (["endgame", "--seat", "2", "human"], "endgame has seats 0 to 1, not seat 2"),
    (["crazyking", "--seat", "3", "human", "--players", "2"], "seat 3 is not at a table of 2 seats"),
    (["endgame", "--seat", "0", "human", "--seat", "0", "human"], "seat 0 is given twice"),
    (["endgame", "--seat", "x", "human"], "--seat takes a seat number"),
    (["endgame", "--seat", "0", "human", "--opponents", "builtin:greedy", "builtin:greedy"], "2 to 2 players, not 3"),
    (["endgame", "--seat", "0", "human", "--move-time", "-5"], "time per move"),
    (["endgame", "--seat", "0", "human", "--move-time", "nan"], "time per move"),
    (["endgame", "--seat", "0", "human", "--opponents", "builtin:nope"], "no built-in bot 'nope'"),
    (["endgame", "--seat", "0", "human", "--opponents", "missing.py"], "no such bot file"),
    (["endgame", "--seat", "0", "human", "--config", "{\"length\": 0}"], "length must be"),
])
def test_a_bad_play_command_is_one_line_and_exit_2(args, message):
    # In this process (tests/in_process.py): a start of `python -m games` costs 0.4 s of CPU.
    proc = run_main(main, ["play", *args])
    err = proc.stderr
    assert proc.returncode == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert message in err


def test_an_answer_typed_as_the_time_runs_out_loses_on_time_without_a_traceback(capsys):
    """The line arrives, but the clock has passed the deadline by the time the move is played."""
    from games import play as terminal
    from games.table import Seat, Table

    table = Table.open(get_game("endgame"), [Seat("you", True), Seat("bot")], config={"board": [1, 2]},
                       move_seconds=10, now=0.0)  # its deadline, second 10, long past on the wall clock

    class Typed:
        def read_line(self, deadline):
            return "1"

    terminal.human_turn(table, Typed(), sys.stdout)
    assert "time is up: seat 0 loses on time" in capsys.readouterr().out
    assert table.events == [{"seat": 0, "verdict": "timeout"}] and table.over
