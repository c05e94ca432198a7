"""Every game option is bounded and checked before any state is built: a huge option is a clear ConfigError."""

import json

import pytest
from games import ConfigError, get_game
from games.sortinggame.deck import STANDARD_DECK


def standard_deck() -> dict:
    return json.loads(STANDARD_DECK.read_text(encoding="utf-8"))


@pytest.mark.parametrize("game, config, message", [
    # The reported request: a billion-number board took 12 minutes and 10.5 GB before it was refused.
    ("endgame", {"length": 1_000_000_000}, "length must be an integer from 1 to 500"),
    ("endgame", {"board": list(range(501))}, "the board's length must be an integer from 1 to 500"),
    ("endgame", {"board": [10**40]}, "board numbers must be from"),
    ("endgame", {"min_value": "low"}, "min_value must be an integer"),
    ("endgame", {"max_value": 10**13}, "max_value must be an integer"),
    ("crazyking", {"max_rounds": 1_000_000}, "max_rounds must be an integer from 1 to 100"),
    ("crazyking", {"target_score": 10**9}, "target_score must be an integer from 1 to 2000"),
    ("sortinggame", {"max_rounds": 10**9}, "max_rounds must be an integer from 1 to 500"),
])
def test_a_huge_option_is_refused_before_anything_is_built(game, config, message):
    with pytest.raises(ConfigError, match=message):
        get_game(game).new_game(config=config)


def test_the_largest_allowed_endgame_board_plays():
    state = get_game("endgame").new_game(config={"length": 500})
    assert len(state.observation(0)["board"]) == 500


@pytest.mark.parametrize("change, message", [
    (lambda deck: deck["algorithms"][0].update(copies=10**9), "'copies' must be an integer from 1 to 20"),
    (lambda deck: deck["algorithms"].extend([deck["algorithms"][0]] * 100), "at most 100 are allowed"),
    (lambda deck: deck["algorithms"][0].update(name="x" * 201), "'name' must be text of at most 200"),
    (lambda deck: deck.update(description="x" * 2001), "'description' must be text of at most 2000"),
    (lambda deck: deck["algorithms"][0].update(worst="N^" + "9" * 5000), "at most 60 characters"),
])
def test_an_oversized_deck_is_refused_with_the_reason(change, message):
    deck = standard_deck()
    change(deck)
    with pytest.raises(ConfigError, match=message):
        get_game("sortinggame").new_game(config={"deck": deck})


def test_a_deck_nested_too_deeply_is_a_clear_error(tmp_path):
    nested = {"deck": None}
    for _ in range(100_000):
        nested = {"deck": nested}
    with pytest.raises(ConfigError, match="nested more than 64 levels"):
        get_game("sortinggame").new_game(config={"deck": nested})
    deck_file = tmp_path / "deck.json"
    deck_file.write_text("[" * 100_000 + "]" * 100_000)
    from games.sortinggame.deck import DeckError, load_deck
    with pytest.raises(DeckError, match="nested more than 64 levels"):
        load_deck(deck_file)
