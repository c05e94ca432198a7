"""A bot's line is read and checked at a cost in proportion to its length, and that cost is the bot's.

A line of `\\"` repeated in a string never closed used to hold a worker 154 s at 120 KB (53 minutes at the
allowed 1 MiB) while the bot was charged 0.002 s (issue 40). Costs are compared at 1x and 8x, never
against the clock (tests/linear_cost.py). The process sandbox (`none`) is enough here: what is measured
is the platform's side of the channel, the same for every backend."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest
from hostile import answer_line
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from linear_cost import LINEAR_RATIO, SCALE, assert_linear, work
from quick_tier import examples
from sandbox_testkit import LIMITS, bot_file, open_player

from games.core import BotFailure, Verdict
from sandbox.protocol import parse_reply, storable_text

OBSERVATION = {"step": 0, "legal_actions": ["left", "right"]}
LINE_BYTES = LIMITS.message_bytes  # the longest line a bot may send
UNITS = [b'\\"', b'"', b'"[', b"[]", b"[", b"\\", b'["\\', b'\\"[', b'{"a":"', b"\\u", b"\xff", b"\xe2\x80"]
PREFIXES = [b'{"v":1,"seq":1,"type":"action","action":"', b'{"v":1,"seq":1,"type":"action","action":[',
            b'{"v":1,"seq":1,"type":"error","kind":"crash","error":"', b""]


def crafted_line(prefix: bytes, unit: bytes, length: int) -> bytes:
    """`prefix`, then `unit` repeated up to `length` bytes in all (no newline)."""
    return prefix + unit * ((length - len(prefix)) // len(unit))


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prefix=st.sampled_from(PREFIXES),
       unit=st.sampled_from(UNITS) | st.binary(min_size=1, max_size=4).filter(lambda b: b"\n" not in b))
def test_reading_a_reply_is_linear_on_crafted_lines(prefix, unit):
    assert_linear(parse_reply, lambda scale: crafted_line(prefix, unit, 4096 * scale), 1)


@pytest.mark.parametrize("unit", ["\x00", "\ud800", "a\udfff", "\x00\ud800b"],
                         ids=["nul", "surrogate", "pairs", "mixed"])
def test_making_a_bot_log_storable_is_linear(unit):
    assert_linear(storable_text, lambda scale: unit * 4096 * scale, 1)


def _crafted_reply_bot(folder: Path, length: int) -> Path:
    # "@SEQ@" is the first decision's number (1): the line answers it, so it is the line that is judged.
    line = crafted_line(answer_line(b'"').split(b'"action":')[0] + b'"action":"', b'\\"', length)
    return bot_file("hostile_line", folder, LINES=line + b"\n")


def _verdict_on_crafted_reply(length: int) -> tuple[BotFailure, float, float]:
    """(the bot's verdict, the seconds it was charged, the CPU this process spent reading and checking)
    for a bot whose first decision is a `length`-byte crafted line."""
    with tempfile.TemporaryDirectory() as folder:
        player = open_player("none", _crafted_reply_bot(Path(folder), length), limits=LIMITS)
        try:
            player.start({"game": "test"})
            charged_before = player.think_time
            began = time.process_time()
            with pytest.raises(BotFailure) as failure:
                player.act(OBSERVATION)
            spent = time.process_time() - began
        finally:
            player.close()
    return failure.value, player.think_time - charged_before, spent


def test_a_crafted_mebibyte_reply_is_its_bots_verdict_and_charged_to_it():
    line = crafted_line(b'{"v":1,"seq":1,"type":"action","action":"', b'\\"', LINE_BYTES)
    failure, charged, _ = _verdict_on_crafted_reply(LINE_BYTES)

    assert failure.verdict == Verdict.PROTOCOL
    assert "not JSON" in failure.message
    # Reading and checking its line is on its clock: at least what checking the same line alone costs.
    assert charged >= work(parse_reply, line) > 0


def test_the_platforms_work_on_a_crafted_reply_grows_with_its_length_alone():
    small = min(_verdict_on_crafted_reply(LINE_BYTES // SCALE)[2] for _ in range(3))
    large = min(_verdict_on_crafted_reply(LINE_BYTES)[2] for _ in range(3))

    assert large / max(small, 1e-6) < LINEAR_RATIO, f"{SCALE}x the line cost {large / small:.1f}x the work"
