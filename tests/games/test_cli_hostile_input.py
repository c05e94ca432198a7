"""`python -m games` given hostile JSON (a config, a replay file, a deck file): every run ends as its result
or as one line saying what is wrong with exit code 2 (argparse's), never a traceback."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from games.__main__ import main
from games.sortinggame import __main__ as deck_cli
from hostile import DEEPEST, hostile_json_texts, json_values
from in_process import run_main
from quick_tier import examples

ROOT = Path(__file__).resolve().parents[2]
MATCH = ["match", "endgame", "builtin:greedy", "builtin:greedy", "--seed", "1", "--json"]
FUZZ = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def run_in_process(argv: list[str], entry=main) -> tuple[int, str, str]:
    """The CLI's exit code, stdout and stderr; an exception it raises fails the test where it is raised."""
    proc = run_main(entry, argv)
    return proc.returncode, proc.stdout, proc.stderr


def assert_refused(code: int, err: str, *fragments: str) -> None:
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1, err  # one line
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


def assert_result_or_refused(code: int, err: str) -> None:
    if code != 0:
        assert_refused(code, err)


DEEP = "[" * DEEPEST + "]" * DEEPEST
REFUSED_CONFIGS = [
    (DEEP, "nested more than 64 levels deep"),
    ("[" * DEEPEST, "nested more than 64 levels deep"),
    ('{"length": NaN}', "NaN is not a JSON number"),
    ('{"length": 1e999}', "1e999 is too large a number"),
    ("[1, 2]", "must be a JSON object, not [1, 2]"),
    ('"text"', "must be a JSON object"),
    ("{", "is not valid JSON"),
]


@pytest.mark.parametrize("text, message", REFUSED_CONFIGS, ids=lambda v: v[:20])
def test_a_hostile_inline_config_is_one_line_and_exit_2(text, message):
    assert_refused(*run_in_process([*MATCH, "--config", text])[::2], "--config", message)


@pytest.mark.parametrize("text, message", REFUSED_CONFIGS, ids=lambda v: v[:20])
def test_a_hostile_config_file_is_one_line_and_exit_2(text, message, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(text)
    assert_refused(*run_in_process([*MATCH, "--config", f"@{config}"])[::2], f"the config file {config}", message)


def test_a_config_file_that_is_not_utf8_is_one_line_and_exit_2(tmp_path):
    config = tmp_path / "config.json"
    config.write_bytes(b'{"length": "\xff"}')
    assert_refused(*run_in_process([*MATCH, "--config", f"@{config}"])[::2], "is not UTF-8 text (byte 12)")


def test_a_config_nested_200000_deep_is_refused_by_the_real_command(tmp_path):
    """As a student runs it: a process, its stderr, its exit code (an argument holds 128 KiB at most)."""
    config = tmp_path / "deep.json"
    config.write_text(DEEP)
    for config_text in (f"@{config}", "[" * 120_000):
        proc = subprocess.run([sys.executable, "-m", "games", *MATCH, "--config", config_text], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert_refused(proc.returncode, proc.stderr, "nested more than 64 levels deep")


@pytest.mark.parametrize("text", ["-1e+16", "-", "--json"])
def test_a_config_that_starts_with_a_minus_is_read_as_the_config(text):
    assert_refused(*run_in_process([*MATCH, "--config", text])[::2], "--config")


@pytest.mark.parametrize("command", ["match", "tournament"])
@FUZZ
@given(text=hostile_json_texts)
def test_any_config_text_plays_or_is_refused_in_one_line(command, text, tmp_path):
    argv = MATCH if command == "match" else ["tournament", "endgame", "builtin:greedy", "builtin:optimal",
                                              "--format", "round-robin", "--games-per-series", "1", "--json"]
    code, _, err = run_in_process([*argv, "--config", text])
    assert_result_or_refused(code, err)
    config = tmp_path / "config.json"
    config.write_text(text, encoding="utf-8", errors="surrogatepass")
    code, _, err = run_in_process([*argv, "--config", f"@{config}"])
    assert_result_or_refused(code, err)


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "match.json"
    code, _, err = run_in_process([*MATCH, "--replay", str(path)])
    assert code == 0, err
    return path


@FUZZ
@given(text=hostile_json_texts)
def test_a_replay_file_of_hostile_text_is_refused_in_one_line(text, tmp_path):
    bogus = tmp_path / "replay.json"
    bogus.write_text(text, encoding="utf-8", errors="surrogatepass")
    assert_refused(*run_in_process(["replay", str(bogus)])[::2], str(bogus))


FIELDS = ["game", "config", "seed", "num_players", "players", "events", "result", "event", "seat", "action"]


@FUZZ
@given(field=st.sampled_from(FIELDS), value=json_values, step=st.sampled_from([None, 0, 3]))
def test_a_replay_with_any_field_replaced_shows_or_is_refused_in_one_line(replay_file, field, value, step,
                                                                         tmp_path):
    replay = json.loads(replay_file.read_text())
    if field in ("event", "seat", "action"):
        event = replay["events"][0]
        if field == "event":
            replay["events"][0] = value
        else:
            event[field] = value
    else:
        replay[field] = value
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(replay))
    argv = ["replay", str(edited)] + ([] if step is None else ["--step", str(step)])
    assert_result_or_refused(*run_in_process(argv)[::2])


@pytest.mark.parametrize("edit, message", [
    (lambda replay: replay["events"][0].update(action="sideways"), "event 0: \"sideways\" is not a legal action"),
    (lambda replay: replay["events"][0].update(seat=7), "event 0 is not a seat's action or verdict"),
    (lambda replay: replay["events"].insert(0, {"seat": 0, "verdict": "bogus"}), "event 0 is not a seat's"),
    (lambda replay: replay.update(num_players="2"), "'num_players' is not an integer: '2'"),
    (lambda replay: replay.update(game=["endgame"]), "'game' is not a game's name"),
    (lambda replay: replay.update(players=["one"]), "'players' is not a name for each of its 2 seats"),
    (lambda replay: replay.update(result=[]), "'result' is not an object"),
])
def test_a_replay_edited_by_hand_is_refused_saying_where(replay_file, edit, message, tmp_path):
    replay = json.loads(replay_file.read_text())
    edit(replay)
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(replay))
    assert_refused(*run_in_process(["replay", str(edited)])[::2], message)


@FUZZ
@given(board=st.one_of(st.text(max_size=40), hostile_json_texts.filter(lambda text: len(text) < 2000)))
def test_any_board_is_solved_or_refused_in_one_line(board):
    assert_result_or_refused(*run_in_process(["solve", "endgame", "--board", board, "--json"])[::2])


@FUZZ
@given(text=hostile_json_texts)
def test_a_deck_file_of_hostile_text_is_refused_with_its_reason(text, tmp_path):
    """`python -m games.sortinggame FILE` checks a deck: 1 and the reasons for one it refuses."""
    deck = tmp_path / "deck.json"
    deck.write_text(text, encoding="utf-8", errors="surrogatepass")
    code, _, err = run_in_process([str(deck)], entry=deck_cli.main)
    assert code == 1 and "deck" in err, err
    assert "Traceback" not in err
