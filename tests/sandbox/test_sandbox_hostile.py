"""Every way a bot can fail ends as the right verdict on its seat, in every real sandbox.

Each case plays a whole End Game match against the greedy built-in and checks what a user would see:
the verdict, that the opponent wins, that the match ends within a stated bound, that the worker's
memory stays bounded, and that nothing of the sandbox is left on the host.
"""

from __future__ import annotations

import dataclasses

import pytest
from hostile import HOSTILE_LINES, assert_storable_json, assert_storable_text
from sandbox_testkit import BOTS, LIMITS, MATCH_BOUND, assert_contained, bot_file, play

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
