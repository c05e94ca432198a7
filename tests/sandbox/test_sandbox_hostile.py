"""Every way a bot can fail ends as the right verdict on its seat, in every real sandbox.

Each case plays a whole End Game match against the greedy built-in and checks what a user would see:
the verdict, that the opponent wins, that the match ends within a stated bound, that the worker's
memory stays bounded, and that nothing of the sandbox is left on the host.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import HOSTILE_LINES, assert_storable_json, assert_storable_text
from left_behind import left_behind
from sandbox_testkit import BOTS, LIMITS, MATCH_BOUND, assert_contained, bot_file, play

from sandbox.base import one_sweep_at_a_time

CASES = {
    # bot file: (verdict, text expected in the detail or the log)
    "infinite_loop": ("timeout", "did not answer"),
    "sleeper": ("timeout", "did not answer"),
    "fork_bomb": ("timeout", "did not answer"),
    "memory_bomb": ("memory", "memory"),
    "stdout_flood": ("timeout", "flood flood"),
    "stderr_flood": ("timeout", "flood flood"),
    "protocol_garbage": ("protocol", "not JSON"),
    "protocol_flood": ("protocol", "longer than"),
    "wrong_version": ("protocol", 'without "v": 1'),
    "segfault": ("crash", "SIGSEGV"),
    "exit_at_import": ("crash", "SystemExit: 3"),
    "slow_import": ("timeout", "did not answer within 2s"),
    "raises": ("crash", "ValueError: the bot has a bug"),
    "illegal": ("illegal", "'middle'"),
    "non_json_action": ("illegal", "is not a JSON value"),
    "no_act": ("crash", "defines neither act"),
}


# The memory limit must stop the memory bomb, not the clock: on a busy host, filling 128 MiB can take
# longer than a decision's half second, so that case gets time enough for memory to be what stops it.
PATIENT = dataclasses.replace(LIMITS, decision=10.0)


@pytest.mark.parametrize("bot", sorted(CASES))
def test_failing_bot_gets_its_verdict_and_loses(backend, bot):
    verdict, evidence = CASES[bot]
    limits = PATIENT if verdict == "memory" else LIMITS
    outcome = play(backend, BOTS / f"{bot}.py", limits=limits)

    assert_contained(outcome, backend, verdict, bound=MATCH_BOUND + limits.decision - LIMITS.decision)
    assert evidence in outcome.detail + outcome.log


@pytest.mark.parametrize("bot", ["stdout_flood", "stderr_flood"])
def test_flooded_log_is_cut_to_its_documented_size(backend, bot):
    outcome = play(backend, BOTS / f"{bot}.py")

    assert "bytes cut" in outcome.log
    assert len(outcome.log.encode()) <= LIMITS.log_bytes + LIMITS.traceback_bytes


@pytest.mark.parametrize("line", sorted(HOSTILE_LINES))
def test_a_hostile_line_on_the_protocol_channel_is_a_verdict_against_its_sender(backend, line, tmp_path):
    lines, verdict, evidence = HOSTILE_LINES[line]
    outcome = play(backend, bot_file("hostile_line", tmp_path, LINES=lines))

    assert_contained(outcome, backend, verdict)
    assert evidence in outcome.detail
    assert_storable_text(outcome.detail)
    assert_storable_text(outcome.log)
    assert_storable_json(outcome.replay)


PROTOCOL_LINES = sorted(name for name, (_, verdict, _) in HOSTILE_LINES.items() if verdict == "protocol")


@pytest.mark.parametrize("line", PROTOCOL_LINES)
def test_a_hostile_line_instead_of_ready_is_a_protocol_verdict(backend, line, tmp_path):
    lines, verdict, evidence = HOSTILE_LINES[line]
    outcome = play(backend, bot_file("hostile_line", tmp_path, LINES=lines, AT="setup"))

    assert_contained(outcome, backend, verdict)
    assert evidence in outcome.detail


@pytest.mark.parametrize("line", sorted(HOSTILE_LINES))
def test_a_hostile_line_through_the_cli_on_docker_loses_with_a_strict_replay_and_no_container(docker_image, line,
                                                                                             tmp_path):
    lines, verdict, evidence = HOSTILE_LINES[line]
    replay_file = tmp_path / "replay.json"
    # Held so that no sweep (another test's, a Celery worker's) removes what the run might leave before it is seen.
    with one_sweep_at_a_time():
        cli = subprocess.Popen(
            [sys.executable, "-m", "games", "match", "endgame", str(bot_file("hostile_line", tmp_path, LINES=lines)),
             "builtin:greedy", "--sandbox", "docker", "--json", "--replay", str(replay_file)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
        printed, errors = cli.communicate(timeout=120)
        assert cli.returncode == 0, errors[-3000:]
        assert left_behind(cli.pid) == set()
    result = json.loads(printed)
    attacker = result["players"][0]

    assert (attacker["status"], result["winners"]) == (verdict, [1])
    assert evidence in attacker["detail"]
    assert_storable_text(attacker["log"])
    replay = json.loads(replay_file.read_text(encoding="utf-8"), parse_constant=_refuse)
    assert_storable_json(replay)
    assert replay["result"]["statuses"] == [verdict, "ok"]


def _refuse(constant: str):
    raise AssertionError(f"the replay holds {constant}, which is not JSON")
