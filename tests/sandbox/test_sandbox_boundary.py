"""Whatever bytes a bot writes onto its protocol channel, its match ends in a verdict, never an exception.

Hypothesis writes the lines: JSON of any shape in the protocol's envelope with fields of any type, lines
nested up to 200,000 deep, NaN, numbers too long to read, other encodings, cut lines, raw bytes, several
lines for one decision and lines after the one that earned the verdict. They go through the real reader,
written by a real bot process (the `none` backend: the reader is the same for every backend, whose own
hostile suite, tests/sandbox/test_sandbox_hostile.py, plays the worst of them in Docker and bwrap).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hostile import DEEPEST, answer_line, any_text, assert_storable_json, assert_storable_text, json_values
from hypothesis import HealthCheck, given, settings, strategies as st
from sandbox_testkit import bot_file, play

from games.core import Verdict
from sandbox.protocol import ProtocolViolation, Reply, parse_reply, read_reply
from quick_tier import examples

SEQ = "@SEQ@"  # the number of the message being answered, filled in by the bot (tests/sandbox/bots/hostile_line.py)
VERDICTS = {verdict.value for verdict in Verdict}
SHORT_GAME = {"length": 6}


def _encoded(message: dict, ascii_only: bool, encoding: str) -> bytes:
    text = json.dumps(message, ensure_ascii=ascii_only)  # NaN and Infinity as Python writes them
    data = text.encode(encoding, "surrogatepass")  # a lone surrogate as the bytes no UTF-8 reader takes
    return data.replace(json.dumps(SEQ).encode(encoding), SEQ.encode())


envelopes = st.fixed_dictionaries({}, optional={
    "v": st.one_of(st.just(1), json_values),
    "seq": st.one_of(st.just(SEQ), st.integers(-1, 3), json_values),
    "type": st.one_of(st.sampled_from(["ready", "action", "error", "act", "setup"]), json_values),
    "action": st.one_of(st.sampled_from(["left", "right"]), json_values),
    "kind": st.one_of(st.sampled_from(["crash", "memory", "illegal"]), json_values),
    "error": st.one_of(any_text, json_values),
    "observation": json_values,
})
envelope_lines = st.builds(_encoded, envelopes, st.booleans(), st.sampled_from(["utf-8", "utf-8", "utf-16", "utf-32"]))
# Messages the protocol allows (answers, late or not; errors with any text in them), among the hostile ones.
well_formed = st.one_of(
    st.fixed_dictionaries({"v": st.just(1), "seq": st.sampled_from([SEQ, 0]), "type": st.just("action"),
                           "action": st.one_of(st.sampled_from(["left", "right"]), json_values)}),
    st.fixed_dictionaries({"v": st.just(1), "seq": st.sampled_from([SEQ, 0]), "type": st.just("error"),
                           "kind": st.sampled_from(["crash", "memory", "illegal"]), "error": any_text}),
    st.fixed_dictionaries({"v": st.just(1), "seq": st.sampled_from([SEQ, 0]), "type": st.just("ready")}),
)
well_formed_lines = st.builds(_encoded, well_formed, st.booleans(), st.just("utf-8"))
deep_lines = st.integers(60, DEEPEST).map(lambda depth: answer_line(b"[" * depth + b"]" * depth).rstrip())
long_numbers = st.integers(300, 5000).map(lambda digits: answer_line(b"7" * digits).rstrip())
cut_lines = st.builds(lambda line, keep: line[:keep], envelope_lines, st.integers(0, 40))
hostile_lines = st.one_of(well_formed_lines, envelope_lines, deep_lines, long_numbers, cut_lines,
                          st.binary(max_size=40))


def first_line(written: bytes, seq: int) -> bytes:
    return written.replace(SEQ.encode(), str(seq).encode()).split(b"\n")[0]


@settings(max_examples=examples(600), derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=hostile_lines, seq=st.integers(0, 3), expected=st.sampled_from(["ready", "action"]))
def test_the_reader_answers_any_line_with_a_message_or_a_protocol_violation(line, seq, expected):
    try:
        reply = read_reply(first_line(line, seq), seq, expected)
    except ProtocolViolation as violation:
        assert str(violation).startswith(("sent ", "answered "))
        return
    if reply is None:
        return  # a late answer, skipped
    assert isinstance(reply, Reply) and reply.seq == seq and reply.type in (expected, "error")
    if reply.type == "error":
        assert isinstance(reply.error, str) and reply.verdict in (Verdict.CRASH, Verdict.MEMORY, Verdict.ILLEGAL)
    # What the reader lets through is JSON to Python's json: no NaN, nested 64 levels at most.
    json.dumps(reply.action, allow_nan=False)


@settings(max_examples=examples(60), derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(hostile_lines, min_size=1, max_size=4))
def test_whatever_lines_a_bot_writes_its_match_ends_in_a_verdict_on_its_seat(lines):
    written = b"".join(line + b"\n" for line in lines)
    with tempfile.TemporaryDirectory() as folder:
        outcome = play("none", bot_file("hostile_line", Path(folder), LINES=written), config=SHORT_GAME)

    assert outcome.status in VERDICTS
    if outcome.status != Verdict.OK.value:
        assert outcome.winners == [1]
    # The first line is judged as the reader judges it alone (a late answer or a legal action goes on).
    try:
        reply = read_reply(first_line(written, 1), 1, "action")
    except ProtocolViolation:
        assert outcome.status == Verdict.PROTOCOL.value, outcome.detail
    else:
        if reply is not None and reply.type == "error":
            assert outcome.status == reply.verdict.value
    assert_storable_text(outcome.detail)
    assert_storable_text(outcome.log)
    assert_storable_json(outcome.replay)


def test_a_line_nested_200000_deep_is_refused_before_it_is_parsed():
    line = first_line(answer_line(b"[" * DEEPEST + b"]" * DEEPEST), 1)
    try:
        parse_reply(line)
    except ProtocolViolation as violation:
        assert "nested more than 64 levels deep" in str(violation)
    else:
        raise AssertionError("a line nested 200,000 deep was read")


def test_a_number_too_large_for_a_float_is_refused_like_infinity():
    """json reads 1e999 as Infinity, which no JSON writer (nor jsonb) takes back: a protocol verdict."""
    try:
        parse_reply(first_line(answer_line(b"[1e999]"), 1))
    except ProtocolViolation as violation:
        assert "1e999 is too large a number" in str(violation)
    else:
        raise AssertionError("1e999 was read")
