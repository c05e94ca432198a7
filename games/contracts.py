"""What crosses from the games to the platform, typed once here: the replay a match leaves, a row of a
game's analysis, and what the platform reads of a game.

The replay and the analysis rows are JSON (stored in the database, served to the browser, written to
files), so they are TypedDicts: the JSON is the value, with nothing to convert, and a replay stored by any
earlier version of the referee loads as it is. mypy checks the modules that build and read them (see
[tool.mypy] in pyproject.toml and tests/test_types.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

if TYPE_CHECKING:  # only mypy reads it (annotations are not evaluated): no dependency at run time
    from typing_extensions import TypeIs

REPLAY_FORMAT: Literal["arena-replay"] = "arena-replay"
REPLAY_VERSION: Literal[1] = 1


class ActionEvent(TypedDict):
    """A seat acted: `action` is the game's own value of it (JSON)."""

    seat: int
    action: Any


class VerdictEvent(TypedDict):
    """A seat's bot failed (a games.core.Verdict value) and is out."""

    seat: int
    verdict: str


ReplayEvent = ActionEvent | VerdictEvent


def is_verdict(event: ReplayEvent) -> TypeIs[VerdictEvent]:
    """Whether `event` is a seat failing rather than acting (an event is exactly one of the two)."""
    return "verdict" in event


class ReplayResult(TypedDict):
    """How the match ended, seat by seat: as the referee saw it, kept for pages that do not replay it."""

    winners: list[int]
    scores: list[float]
    placings: list[int]
    statuses: list[str]


class Replay(TypedDict):
    """A match as (game, config, seed, events): replaying the events through the rules rebuilds every state.

    The referee writes every key; a replay file written by hand may lack `players` and `result`
    (games.replay.check says which keys must be there)."""

    format: Literal["arena-replay"]
    version: Literal[1]
    game: str
    config: dict[str, Any]
    seed: int
    num_players: int
    # A name for each seat: the bots' specs, or on the platform their labels ("ada/mine").
    players: NotRequired[list[str]]
    events: list[ReplayEvent]
    result: NotRequired[ReplayResult]


def actions(replay: Replay) -> list[Any]:
    """The actions of the replay, in the order they were taken (the seats' failures left out)."""
    return [event["action"] for event in replay["events"] if not is_verdict(event)]


def seat_names(replay: Replay) -> list[str]:
    """The replay's name for each seat, "seat N" where it names none."""
    return replay.get("players") or [f"seat {seat}" for seat in range(replay["num_players"])]


class AnalysisRow(TypedDict):
    """The analysis of one decision of a played game (Game.analyse, Game.analyse_move).

    Every game's row has these keys; a game adds its own for its viewer (End Game's best_value, Sprouts'
    winning_moves...), which the platform passes on without reading."""

    step: int  # the step of the state the decision was made in (0: the first decision)
    seat: int
    text: str  # the analysis in a few words
    # What the decision cost against optimal play, in the game's points; None where the game counts none.
    points_lost: float | None
    # The solver's word on the decision where the game gives one (Sprouts: one of the four below); else None.
    verdict: str | None


# A decision's verdict in a game won or lost outright: made in a won position, it kept the win or threw it
# away; or it was made in a lost position; or the solver could not settle it in its time (asking again may).
KEEPS_WIN = "keeps_win"
THROWS_WIN = "throws_win"
LOST_POSITION = "lost_position"
UNSETTLED = "unsettled"


@dataclass(frozen=True)
class GameInfo:
    """What the platform reads of a game (Game.info()): the facts its pages, API, ladders and grading
    branch on, read here rather than probed with getattr."""

    name: str
    title: str
    min_players: int
    max_players: int
    default_players: int
    # One team in every seat: ranked by its average score, never rated.
    cooperative: bool
    lower_is_better: bool
    perfect_score: float | None
    builtin_bots: tuple[str, ...]
    # Its replays come with an analysis (Game.analyse) ...
    has_analysis: bool
    # ... sent move by move after the page is shown (Game.analyse_move), not whole with the frames.
    streams_analysis: bool
