"""Every check of text from outside that games/ makes costs work in proportion to the text's length: JSON read
by the bounded reader (bots' lines, request bodies, configs, variant decks, replays), complexity classes of
Sorting Game decks, Sprouts positions. Each is fed the shapes that make a backtracking or rescanning check
quadratic, at 1x and 8x, and must do at most about 8x the work (tests/linear_cost.py).

The JSON nesting check used to rescan the rest of the text from every quote of an unclosed string:
`{"username":"x` + `\\"` x 16,000 cost 0.7 s, 64 KB 12 s (issue 40)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from linear_cost import assert_linear
from quick_tier import examples

from games.core import MAX_JSON_DEPTH, loads_json, nests_deeper_than, text_nests_deeper_than
from games.sortinggame.complexity import parse, parse_bound
from games.sprouts.notation import parse_position

# Pieces that make a string-literal or bracket scanner rescan: escaped quotes in a string never closed,
# runs of quotes (each one a string to look for), backslash runs, brackets inside and outside strings.
PATHOLOGICAL_UNITS = ['\\"', '"', '"[', "[]", "[", "\\", '["\\', '\\"[', '{"a":"', '\\\\"', '"\\', "]["]
PREFIXES = ['{"username":"x', '{"v":1,"seq":1,"type":"action","action":"', "[", '"', ""]
# The size of the 1x input, in characters: large enough that a rescan per quote would dwarf every
# constant cost (old code: 4 KB 0.05 s, 32 KB 3 s).
BASE_CHARACTERS = 4096
CHECKS = settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])

units = st.sampled_from(PATHOLOGICAL_UNITS) | st.text(alphabet='"\\[]{}a:,', min_size=1, max_size=4)


def crafted(prefix: str, unit: str):
    """The text of `prefix` followed by `unit` repeated to about n * BASE_CHARACTERS / 1 characters."""
    return lambda scale: prefix + unit * (scale * BASE_CHARACTERS // len(unit)) + "}"


@CHECKS
@given(prefix=st.sampled_from(PREFIXES), unit=units)
def test_json_nesting_check_is_linear_on_crafted_text(prefix, unit):
    assert_linear(lambda text: text_nests_deeper_than(text, MAX_JSON_DEPTH), crafted(prefix, unit), 1)


@CHECKS
@given(prefix=st.sampled_from(PREFIXES), unit=units)
def test_bounded_json_reader_is_linear_on_crafted_text(prefix, unit):
    assert_linear(loads_json, crafted(prefix, unit), 1)


def test_the_reported_request_body_is_refused_at_linear_cost():
    def body(scale):
        return '{"username":"x' + '\\"' * (scale * 2000) + "}"

    with pytest.raises(ValueError):
        loads_json(body(8))
    assert_linear(loads_json, body, 1)


@settings(max_examples=examples(300), deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(alphabet='"\\[]{}a\u2028é\ud800'),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(alphabet='"\\[]{}a'), inner, max_size=3), max_leaves=40),
       st.integers(0, 8), st.booleans())
def test_nesting_check_stays_exact_for_json(value, limit, ascii_only):
    """The linear scan reads escapes and strings as JSON does: exact on every JSON text."""
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert text_nests_deeper_than(text, limit) == nests_deeper_than(value, limit)


def _lexical_depth(text: str) -> int:
    """The deepest a JSON lexer gets before it stops (at a backslash outside a string, or at the end)."""
    depth = deepest = 0
    inside = escaped = False
    for character in text:
        if inside:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == '"':
                inside = False
        elif character == "\\":
            break
        elif character == '"':
            inside = True
        elif character in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif character in "]}":
            depth -= 1
    return deepest


@settings(max_examples=examples(1000), deadline=None)
@given(st.text(alphabet='"\\[]{}a,:é\ud800', max_size=24), st.integers(0, 4))
def test_nesting_check_never_counts_less_than_a_parser_reaches(text, limit):
    """Not JSON: never less than the depth a parser reaches before its first fault (exact when the text
    has no backslash outside its strings)."""
    if _lexical_depth(text) > limit:
        assert text_nests_deeper_than(text, limit)


@pytest.mark.parametrize("shape", [
    lambda n: "O(" + ")" * n,
    lambda n: "Θ(" + " )" * n + "x",
    lambda n: "N " * n,
    lambda n: "log^2 " * n + "N",
    lambda n: "N^1" + "1" * n + "/" + "2" * n,
], ids=["closing", "spaced-closing", "factors", "logs", "long-exponent"])
def test_complexity_texts_are_read_in_linear_time(shape):
    """Sorting Game decks (a person's variant) name complexity classes: every text is refused or read at
    a cost in proportion to its length."""
    assert_linear(parse_bound, shape, 512)
    assert_linear(parse, shape, 512)


@pytest.mark.parametrize("shape", [
    lambda n: "1," * n + "1",
    lambda n: "1" * n,
    lambda n: "1,1;" * n + "x",
    lambda n: "1/" * n + ",",
    lambda n: " " * n + "1",
    lambda n: "1," * n + ",",
], ids=["cards", "one-long-card", "stacks-then-fault", "rows-then-fault", "spaces", "trailing-comma"])
def test_sprouts_positions_are_read_in_linear_time(shape):
    assert_linear(parse_position, shape, 1024)
