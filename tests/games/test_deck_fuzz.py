"""Fuzzing the SortingGame deck parser: whatever an instructor uploads, the answer is a deck or a DeckError."""

import copy
import json

from hypothesis import HealthCheck, given, settings, strategies as st
from games.sortinggame.deck import STANDARD_DECK, Deck, DeckError, load_deck
from quick_tier import examples

STANDARD = json.loads(STANDARD_DECK.read_text(encoding="utf-8"))
FUZZ = settings(max_examples=examples(300), derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)), max_leaves=20)


def check(source) -> None:
    """The parser's contract: a Deck, or DeckError naming at least one problem; never another exception."""
    try:
        deck = load_deck(source)
    except DeckError as exc:
        assert exc.problems and all(isinstance(problem, str) and problem for problem in exc.problems)
    else:
        assert isinstance(deck, Deck)


def paths(value, prefix=()):
    """Every place inside a JSON value where another value could go."""
    yield prefix
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, child in children:
        yield from paths(child, (*prefix, key))


STANDARD_PATHS = [path for path in paths(STANDARD) if path]


@FUZZ
@given(st.sampled_from(STANDARD_PATHS), json_values)
def test_the_standard_deck_with_any_value_anywhere(path, value):
    deck = copy.deepcopy(STANDARD)
    parent = deck
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    check(deck)


@FUZZ
@given(json_values)
def test_any_json_value_as_a_deck(value):
    check(value)


@settings(FUZZ, max_examples=examples(100))
@given(st.text(alphabet='[]{}":,0123456789.-eN^ l og!Θ()truefalsn\\', max_size=400))
def test_any_text_as_a_deck_file(tmp_path_factory, text):
    deck_file = tmp_path_factory.mktemp("deck") / "deck.json"
    deck_file.write_text(text, encoding="utf-8")
    check(deck_file)
