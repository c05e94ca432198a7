"""The Player a sandbox backend returns, seen the way the referee and the platform use it."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from sandbox_testkit import BOTS, LIMITS, bot_file, leftovers, open_player, play

import sandbox
from games.core import BotFailure, Verdict

OBSERVATION = {"step": 0, "legal_actions": ["left", "right"]}
DOCS = Path(__file__).parents[2] / "docs" / "bot-protocol.md"


def test_well_behaved_bot_plays_a_whole_match(backend):
    outcome = play(backend, BOTS / "first_legal.py")

    assert outcome.status == "ok"
    # Its own prints went to its log, not onto the protocol channel.
    assert "setting up for endgame" in outcome.log
    assert "thinking about step 0" in outcome.log
    assert 0 < outcome.think_time < 10 * LIMITS.decision
    assert leftovers(backend, outcome.sandbox_id) == []


def test_player_counts_decisions_and_close_is_idempotent(backend):
    player = open_player(backend, BOTS / "first_legal.py", name="alice", limits=LIMITS)
    player.start({"game": "test"})
    actions = [player.act({**OBSERVATION, "step": step}) for step in range(3)]
    log = player.close()

    assert player.name == "alice"
    assert actions == ["left"] * 3
    assert player.decisions == 3
    assert "thinking about step 2" in log
    assert player.close() == log


def test_close_after_a_failure_keeps_the_traceback(backend):
    player = open_player(backend, BOTS / "raises.py", limits=LIMITS)
    player.start({})
    with pytest.raises(BotFailure) as failure:
        player.act(OBSERVATION)
    log = player.close()

    assert failure.value.verdict == Verdict.CRASH
    assert 'File "/sandbox/bot.py", line 5, in act' in log
    assert player.close() == log


def test_late_replies_are_never_taken_for_the_current_move(backend):
    outcome = play(backend, BOTS / "stale_replies.py")

    # Every stale reply names the action "stale", which is never legal: taking one would be an illegal move.
    assert outcome.status == "ok", outcome.detail


def test_a_missing_bot_file_is_a_crash_not_an_error(backend, tmp_path):
    player = open_player(backend, tmp_path / "missing.py", limits=LIMITS)
    with pytest.raises(BotFailure) as failure:
        player.start({})
    player.close()

    assert failure.value.verdict == Verdict.CRASH


def test_none_backend_warns_that_it_is_not_a_sandbox_once_per_bot(caplog, tmp_path):
    bot = bot_file("first_legal", tmp_path)  # a bot this process has not warned about yet
    with caplog.at_level(logging.WARNING, logger="sandbox"):
        outcomes = [play("none", bot) for _ in range(3)]

    assert [outcome.status for outcome in outcomes] == ["ok"] * 3
    assert caplog.text.count("NO isolation") == 1 and "trusted local use only" in caplog.text


def documented_limits() -> dict[str, float]:
    """The defaults table of docs/bot-protocol.md, in Limits' units (seconds, MiB for *_mb, bytes)."""
    units = {"s": 1, "MiB": 1 << 20, "KiB": 1 << 10, "": 1}
    text = DOCS.read_text()
    rows = text[text.index("| limit | default |"):].split("\n\n")[0]
    table = {}
    for name, default in re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", rows, flags=re.M):
        number, _, unit = default.partition(" ")
        value = float(number) * units[unit]
        table[name] = value / (1 << 20) if name.endswith("_mb") else value
    return table


def test_default_limits_are_the_documented_ones():
    documented = documented_limits()
    defaults = dataclasses.asdict(sandbox.Limits())
    assert documented == pytest.approx(defaults)


def test_limits_take_the_games_times_and_the_overrides():
    class SlowGame:  # times unlike the defaults, so a for_game that ignored the game would show
        time_limits = {"setup": 7.5, "decision": 0.25, "bank": 3.0, "turns": 9}

    limits = sandbox.Limits.for_game(SlowGame, memory_mb=512)
    assert (limits.setup, limits.decision, limits.bank) == (7.5, 0.25, 3.0)
    assert limits.memory_mb == 512
    assert limits.pids == sandbox.Limits().pids  # the rest stay the defaults


def test_the_best_backend_is_asked_of_the_engine_once_in_a_while_not_for_every_match(monkeypatch):
    asked = []
    monkeypatch.setattr(sandbox, "_best", None)
    monkeypatch.setattr(sandbox, "available_backends", lambda: asked.append(1) or ["bwrap", "none"])
    clock = [1000.0]
    monkeypatch.setattr(sandbox, "time", SimpleNamespace(monotonic=lambda: clock[0]))

    assert [sandbox.best_backend() for _ in range(3)] == ["bwrap"] * 3
    clock[0] += sandbox.BEST_BACKEND_SECONDS + 1  # (the engine may have come or gone meanwhile)
    assert sandbox.best_backend() == "bwrap"
    assert len(asked) == 2


def test_backends_on_this_host(docker_image, bwrap_ready):
    assert sandbox.available_backends() == ["docker", "bwrap", "none"]
    assert sandbox.best_backend() == "docker"
    with pytest.raises(ValueError):
        sandbox.open_player("chroot", str(BOTS / "first_legal.py"))
    with pytest.raises(ValueError, match="key"):
        sandbox.open_player("docker-warm", str(BOTS / "first_legal.py"))


@pytest.mark.parametrize("backend_name", ["docker", "bwrap"])
def test_cli_match_runs_in_the_sandbox(backend_name, request):
    request.getfixturevalue("docker_image" if backend_name == "docker" else "bwrap_ready")
    run = subprocess.run(
        [sys.executable, "-m", "games", "match", "endgame", str(BOTS / "illegal.py"), "builtin:greedy",
         "--sandbox", backend_name, "--json"],
        capture_output=True, text=True, timeout=60,
    )
    result = json.loads(run.stdout)

    assert result["winners"] == [1]
    assert result["players"][0]["status"] == "illegal"
    assert "NO isolation" not in run.stderr


def test_cli_none_sandbox_says_it_is_not_one():
    run = subprocess.run(
        [sys.executable, "-m", "games", "match", "endgame", str(BOTS / "first_legal.py"), "builtin:greedy",
         "--sandbox", "none"],
        capture_output=True, text=True, timeout=60,
    )

    assert run.returncode == 0
    assert "NO isolation" in run.stderr
