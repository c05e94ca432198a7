"""Replay files: versioned JSON holding (game, config, seed, events), never states.

Replaying the events through the game's rules rebuilds every state, observation and the result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from .core import GameState, Verdict
from .referee import REPLAY_FORMAT, REPLAY_VERSION


class ReplayError(ValueError):
    """A replay file that is not one, is of an unknown version, or does not replay."""


def save(replay: dict, path: str | Path) -> None:
    Path(path).write_text(json.dumps(replay, separators=(",", ":")) + "\n", encoding="utf-8")


def load(path: str | Path) -> dict:
    try:
        replay = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReplayError(f"{path}: not a readable replay file ({exc})") from exc
    check(replay)
    return replay


def check(replay: dict) -> None:
    if not isinstance(replay, dict) or replay.get("format") != REPLAY_FORMAT:
        raise ReplayError("not an arena replay (missing format marker)")
    if replay.get("version") != REPLAY_VERSION:
        raise ReplayError(f"replay version {replay.get('version')!r} is not supported (this is {REPLAY_VERSION})")
    for key in ("game", "config", "seed", "num_players", "events"):
        if key not in replay:
            raise ReplayError(f"replay has no {key!r}")


def states(replay: dict) -> Iterator[tuple[GameState, dict | None]]:
    """Yield (state, event that led to it): first the initial state with None, then one per event."""
    from . import get_game

    check(replay)
    game = get_game(replay["game"])
    state = game.new_game(replay["num_players"], replay["config"], replay["seed"])
    yield state, None
    for index, event in enumerate(replay["events"]):
        if "verdict" in event:
            state = state.forfeit(event["seat"], Verdict(event["verdict"]))
        else:
            if state.current_player() != event["seat"]:
                raise ReplayError(f"event {index}: seat {event['seat']} acts but it is seat {state.current_player()}'s turn")
            state = state.apply_action(event["action"])
        yield state, event


def final_state(replay: dict) -> GameState:
    state = None
    for state, _ in states(replay):
        pass
    return state
