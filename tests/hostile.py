"""Hostile input for the tests of the bot boundary: the lines a bot can write onto its protocol channel
and the values it can return, and what the record of its match must still be (JSON PostgreSQL stores)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import strategies as st

# The depth of the line that used to end a match as a platform error (json.loads raised RecursionError).
DEEPEST = 200_000
HOSTILE_BOT = Path(__file__).parent / "sandbox" / "bots" / "hostile_line.py"


def nested(depth: int) -> list:
    """A list nested `depth` levels deep, built without recursion."""
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


def answer_line(action: bytes) -> bytes:
    """An action message answering the pending message ("@SEQ@", see tests/sandbox/bots/hostile_line.py)."""
    return b'{"v":1,"seq":@SEQ@,"type":"action","action":' + action + b"}\n"


def _error(kind: bytes, error: bytes) -> bytes:
    return b'{"v":1,"seq":@SEQ@,"type":"error","kind":' + kind + b',"error":' + error + b"}\n"


# name: (what the bot writes before its answer to its first decision, the verdict it earns, text the
# verdict's detail holds). Each was a platform error, a crash of the referee, or a record PostgreSQL
# refused, or is kept from being one by a test here.
HOSTILE_LINES: dict[str, tuple[bytes, str, str]] = {
    "nested_200000_deep": (answer_line(b"[" * DEEPEST + b"]" * DEEPEST), "protocol", "nested more than 64 levels"),
    "kind_is_an_object": (_error(b'{"kind":"crash"}', b'"boom"'), "protocol", "unknown kind"),
    "nan_action": (answer_line(b"NaN"), "protocol", "NaN is not a JSON number"),
    "huge_number": (answer_line(b"9" * 5000), "protocol", "not JSON"),
    "not_utf8": (answer_line(b'"\xff\xfe"'), "protocol", "not UTF-8"),
    "nul_and_lone_surrogate_action": (answer_line(b'"left\\u0000\\ud800"'), "illegal", "not one of legal_actions"),
    "nul_and_lone_surrogate_error": (_error(b'"crash"', b'"Traceback\\nValueError: \\u0000\\udc80 bad"'),
                                     "crash", "ValueError"),
}


def hostile_bot_source(lines: bytes) -> str:
    """The source of tests/sandbox/bots/hostile_line.py writing `lines` (for a bot stored on the platform)."""
    source, count = re.subn(r"^LINES = .*$", lambda _: f"LINES = {lines!r}", HOSTILE_BOT.read_text(), flags=re.M)
    assert count == 1
    return source


def assert_storable_json(value) -> None:
    """`value` is JSON that PostgreSQL's jsonb takes: no NaN or Infinity, no NUL, no lone surrogate."""
    text = json.dumps(value, allow_nan=False, ensure_ascii=False)
    text.encode("utf-8")  # a lone surrogate has no UTF-8
    assert "\x00" not in text


def assert_storable_text(text: str) -> None:
    """`text` is something PostgreSQL stores as text: valid UTF-8 without NUL."""
    text.encode("utf-8")
    assert "\x00" not in text


class RaisingRepr:
    """A value no message can show by its repr."""

    def __repr__(self):
        raise RuntimeError("no repr for you")


def _cyclic() -> list:
    loop: list = []
    loop.append(loop)
    return loop


# Any text at all, lone surrogates and NUL included.
any_text = st.text(st.characters(exclude_categories=()), max_size=12)
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), any_text)
# JSON-shaped values as Python's json reads them (NaN and Infinity included).
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(any_text, inner, max_size=4)), max_leaves=16)
# Values that are no JSON at all, as a bot run in the referee's process can return them.
non_json_values = st.one_of(
    st.sampled_from([65, 1000, DEEPEST]).map(nested),
    st.integers(4300, 6000).map(lambda digits: 10 ** digits),  # too long for str()
    st.sets(st.integers(), max_size=3), st.frozensets(st.integers(), max_size=3), st.binary(max_size=6),
    st.complex_numbers(), st.builds(object), st.builds(RaisingRepr), st.builds(_cyclic),
    st.dictionaries(st.one_of(st.integers(), st.none(), st.floats()), json_scalars, min_size=1, max_size=3),
    st.tuples(json_scalars, json_scalars),
)


def _brackets(depth: int, closed: bool) -> str:
    return "[" * depth + ("]" * depth if closed else "")


# Text a file or an argument meant to hold JSON may hold instead: nested past any parser, NaN and
# Infinity (also as a number too large for a float), not JSON at all, JSON of any shape.
hostile_json_texts = st.one_of(
    st.builds(_brackets, st.sampled_from([65, 1000, DEEPEST]), st.booleans()),
    st.sampled_from(["NaN", '{"a": NaN}', "Infinity", '{"a": [-Infinity]}', '{"a": 1e999}', "9" * 5000,
                     "", "{", "\ufeff{}", '"\\ud800"', "null", "[]"]),
    json_values.map(json.dumps),  # (NaN and Infinity as Python writes them)
    any_text,
)


# Ids as a person can send them in a URL, a form or a JSON body: past what a database key holds (SQLite raised
# OverflowError at 2^63), negative, zero, not numbers, other scripts' digits, control characters, huge.
HOSTILE_IDS: list = [2**63, 2**64, 10**30, -1, 0, -(2**63) - 1, "9999999999999999999", "1e999", "abc", "１２",
                     "1\x00", "0x10", " 7 ", "9" * 5000, 1.5]
