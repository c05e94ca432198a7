"""Arena's games: pure-Python referees, observations, baseline bots and solvers (no Django, no server)."""

from __future__ import annotations

import importlib

from .core import BotFailure, ConfigError, Game, GameState, IllegalAction, Verdict

# Each game is one package below games/ exposing GAME; adding a game is adding its folder and its name here.
# A package's name need not be its game's (games.sorted_game plays "sorted": a package named `sorted`
# would shadow the built-in inside this package).
GAME_PACKAGES = ["endgame", "sortinggame", "crazyking", "sorted_game", "sprouts"]


def available_games() -> dict[str, Game]:
    games = {}
    for package in GAME_PACKAGES:
        module = importlib.import_module(f"{__name__}.{package}")
        games[module.GAME.name] = module.GAME
    return games


def get_game(name: str) -> Game:
    games = available_games()
    if name not in games:
        raise KeyError(f"unknown game {name!r}; known: {', '.join(sorted(games))}")
    return games[name]


__all__ = [
    "BotFailure", "ConfigError", "Game", "GameState", "IllegalAction", "Verdict",
    "available_games", "get_game",
]
