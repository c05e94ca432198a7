"""SortingGame: play sorting-algorithm cards valid for the special cards on the table (seed 000).

The rules as implemented, every ruling and the deck table are in docs/bots/sortinggame.md.
"""

from __future__ import annotations

from ..core import ConfigError, Game, check_int_option
from . import bots
from .analysis import analyse, describe_action, render
from .deck import DeckError, load_deck
from .state import HAND_MIX, SortingState


MAX_ROUNDS = 500


class SortingGame(Game):
    name = "sortinggame"
    title = "SortingGame"
    min_players = 2
    max_players = 6
    default_players = 4
    time_limits = {"setup": 5.0, "decision": 1.0, "bank": 10.0}

    def default_config(self):
        # deck: None for the standard deck, or a whole deck inline (Extension 2) so replays stay self-contained.
        return {"robbery": False, "deck": None, "max_rounds": 100}

    def check_config(self, config):
        if not isinstance(config["robbery"], bool):
            raise ConfigError("robbery must be true or false")
        # The deck's size ends a match before this in practice (the standard deck lasts about 20 rounds).
        check_int_option("max_rounds", config["max_rounds"], 1, MAX_ROUNDS)
        if config["deck"] is not None and not isinstance(config["deck"], dict):
            raise ConfigError("deck must be null (the standard deck) or a deck as a JSON object")
        try:
            load_deck(config["deck"])
        except DeckError as exc:
            raise ConfigError(str(exc)) from exc

    def _initial_state(self, num_players, config, seed):
        deck = load_deck(config["deck"])
        stacks = dict(zip(HAND_MIX, deck.stacks(config["robbery"])))
        for kind, per_seat in HAND_MIX.items():
            if len(stacks[kind]) < per_seat * num_players:
                raise ConfigError(f"the deck has {len(stacks[kind])} {kind} cards; dealing {num_players} players "
                                  f"needs {per_seat * num_players}")
        return SortingState(self, num_players, config, seed, deck)

    def builtin_bots(self):
        return dict(bots.BUILTIN)

    def analyse(self, replay):
        return analyse(replay)

    def describe_action(self, state, action):
        return describe_action(state, action)

    def render(self, state, seat=None):
        return render(state, seat)


GAME = SortingGame()

__all__ = ["GAME", "DeckError", "SortingGame", "load_deck"]
