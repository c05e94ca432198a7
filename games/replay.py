"""Replay files: versioned JSON holding (game, config, seed, events), never states.

Replaying the events through the game's rules rebuilds every state, observation and the result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from .contracts import REPLAY_FORMAT, REPLAY_VERSION, Replay, ReplayEvent, is_verdict
from .core import GameState, IllegalAction, Verdict, loads_json, short_repr


class ReplayError(ValueError):
    """A replay file that is not one, is of an unknown version, or does not replay."""


def save(replay: Replay, path: str | Path) -> None:
    Path(path).write_text(json.dumps(replay, separators=(",", ":")) + "\n", encoding="utf-8")


def load(path: str | Path) -> Replay:
    try:
        replay: Replay = loads_json(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # not UTF-8, not JSON, nested too deep, NaN: all ValueErrors
        raise ReplayError(f"{path}: not a readable replay file ({exc})") from None
    try:
        check(replay)
    except ReplayError as exc:
        raise ReplayError(f"{path}: {exc}") from None
    return replay


# Each field a replay must have: its type, and how a message names it.
REQUIRED_FIELDS = {"game": (str, "a game's name"), "config": (dict, "an object"), "seed": (int, "an integer"),
                   "num_players": (int, "an integer"), "events": (list, "a list")}
VERDICTS = {verdict.value for verdict in Verdict}


def check(replay: Any) -> None:
    """ReplayError unless `replay` has every field of a replay, each of its type, and events that name a
    seat of the match (a replay file may hold anything: what it holds is shown, never a traceback)."""
    if not isinstance(replay, dict) or replay.get("format") != REPLAY_FORMAT:
        raise ReplayError("not an arena replay (missing format marker)")
    if replay.get("version") != REPLAY_VERSION:
        raise ReplayError(f"replay version {short_repr(replay.get('version'))} is not supported (this is {REPLAY_VERSION})")
    for key, (kind, named) in REQUIRED_FIELDS.items():
        if key not in replay:
            raise ReplayError(f"replay has no {key!r}")
        if not isinstance(replay[key], kind) or isinstance(replay[key], bool):
            raise ReplayError(f"replay's {key!r} is not {named}: {short_repr(replay[key])}")
    players = replay.get("players")
    if players is not None and not (isinstance(players, list) and len(players) == replay["num_players"]
                                    and all(isinstance(name, str) for name in players)):
        raise ReplayError(f"replay's 'players' is not a name for each of its {replay['num_players']} seats")
    if not isinstance(replay.get("result", {}), dict):
        raise ReplayError(f"replay's 'result' is not an object: {short_repr(replay['result'])}")
    for index, event in enumerate(replay["events"]):
        if not _is_event(event, replay["num_players"]):
            raise ReplayError(f"event {index} is not a seat's action or verdict: {short_repr(event)}")


def _is_event(event: object, num_players: int) -> bool:
    if not isinstance(event, dict) or not isinstance(event.get("seat"), int) or isinstance(event["seat"], bool):
        return False
    if not 0 <= event["seat"] < num_players:
        return False
    return event.keys() == {"seat", "action"} or (event.keys() == {"seat", "verdict"} and event["verdict"] in VERDICTS)


def states(replay: Replay) -> Iterator[tuple[GameState, ReplayEvent | None]]:
    """Yield (state, event that led to it): first the initial state with None, then one per event."""
    from . import get_game

    check(replay)
    game = get_game(replay["game"])
    state = game.new_game(replay["num_players"], replay["config"], replay["seed"])
    yield state, None
    for index, event in enumerate(replay["events"]):
        state = next_state(state, event, index)
        yield state, event


def next_state(state: GameState, event: ReplayEvent, index: int) -> GameState:
    """The state after `event`, the replay's event number `index` (checked as `check` checks it), from `state`;
    ReplayError if it cannot follow `state`."""
    if not _is_event(event, state.num_players):
        raise ReplayError(f"event {index} is not a seat's action or verdict: {short_repr(event)}")
    if is_verdict(event):
        if event["seat"] in state.failed_seats or state.is_terminal():
            raise ReplayError(f"event {index}: seat {event['seat']} fails, but it is out or the game is over")
        return state.forfeit(event["seat"], Verdict(event["verdict"]))
    if state.current_player() != event["seat"]:
        raise ReplayError(f"event {index}: seat {event['seat']} acts but it is seat {state.current_player()}'s turn")
    try:
        return state.apply_action(event["action"])
    except IllegalAction as exc:
        raise ReplayError(f"event {index}: {exc}") from None


def final_state(replay: Replay) -> GameState:
    *_, (state, _) = states(replay)
    return state
