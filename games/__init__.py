"""Arena's games: pure-Python referees, observations, baseline bots and solvers (no Django, no server)."""

from __future__ import annotations

import builtins
import importlib

from .core import BotFailure, ConfigError, Game, GameState, IllegalAction, Verdict

# Each game is one package below games/ exposing GAME; adding a game is adding its folder and its name here.
GAME_PACKAGES = ["endgame", "sortinggame", "crazyking", "sorted", "sprouts"]


def available_games() -> dict[str, Game]:
    games = {}
    for package in GAME_PACKAGES:
        module = importlib.import_module(f"{__name__}.{package}")
        games[module.GAME.name] = module.GAME
    return games


def get_game(name: str) -> Game:
    games = available_games()
    if name not in games:
        # Importing games.sorted binds the name `sorted` in this package: the built-in is reached explicitly.
        raise KeyError(f"unknown game {name!r}; known: {', '.join(builtins.sorted(games))}")
    return games[name]


__all__ = [
    "BotFailure", "ConfigError", "Game", "GameState", "IllegalAction", "Verdict",
    "available_games", "get_game",
]
