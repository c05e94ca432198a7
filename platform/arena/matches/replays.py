"""A finished match's replay prepared for viewing: every step's table, the move, the decision the seat
faced, and the solver's analysis."""

from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from games import Game, get_game
from games import replay as replays
from games.contracts import UNSETTLED, AnalysisRow, Replay, ReplayEvent, is_verdict, seat_names
from games.core import GameState


def streams_analysis(game: Game) -> bool:
    """Whether the game's analysis comes move by move (`analyse_move`), after the page is shown, rather
    than whole with the frames: Sprouts, whose first moves may take the solver seconds each."""
    return game.info().streams_analysis


def replay_view(replay: Replay, seat: int | None = None) -> dict[str, Any]:
    """Frames for each state of the replay, seen by `seat` (None: the full view), with per-move analysis
    (none here when the game streams it: see move_analysis)."""
    game = get_game(replay["game"])
    streamed = streams_analysis(game)
    analysis = {} if streamed else {row["step"]: row for row in game.analyse(replay) or []}
    players = seat_names(replay)
    points_lost: list[float] = [0] * replay["num_players"]
    frames: list[dict[str, Any]] = []
    previous = None
    for state, event in replays.states(replay):
        view = state.full_view() if seat is None else state.observation(seat)
        frames.append({
            "step": len(frames),
            "round": view.get("round"),
            "text": game.render(state, seat),
            "view": view,
            "event": _describe(game, previous, event, analysis, players, points_lost, seat),
        })
        previous = state
    return {
        "game": game.name,
        "title": game.title,
        "players": players,
        "num_players": replay["num_players"],
        "seat": seat,
        "frames": frames,
        "result": replay.get("result", {}),
        "has_analysis": bool(analysis) or streamed,
        "streamed_analysis": streamed,
        "points_lost": points_lost if any(row["points_lost"] is not None for row in analysis.values()) else None,
    }


# A finished match's replay never changes: its views are kept until this only to bound the cache's memory.
FINISHED_VIEW_SECONDS = 24 * 3600


def finished_view(match, seat: int | None, *, compacted: bool = False) -> dict[str, Any]:
    """replay_view (or its compact form) of a finished match, worked out once and then read from the cache.
    The match's replay is read only then (it may come deferred); the key has the finish time too, so that
    a database made anew never meets another one's views."""
    return kept_view(f"{match.pk}:{match.finished_at.timestamp()}", lambda: match.replay, seat, compacted=compacted)


def kept_view(name: str, read_replay: Callable[[], Replay], seat: int | None, *,
              compacted: bool = False) -> dict[str, Any]:
    """replay_view of a replay that never changes any more (a finished match's, a finished table's), named
    `name` in the cache, worked out once from `read_replay()`."""
    key = f"replay-view:{name}:{seat}:{'compact' if compacted else 'full'}"

    def work_out() -> dict[str, Any]:
        view = replay_view(read_replay(), seat)
        return compact(view) if compacted else view

    return cache.get_or_set(key, work_out, FINISHED_VIEW_SECONDS)


def move_analysis(match, step: int) -> AnalysisRow:
    """The analysis of move `step` of a finished match whose game streams its analysis (kept_move_analysis)."""
    return kept_move_analysis(f"{match.pk}:{match.finished_at.timestamp()}", lambda: match.replay, step)


def kept_move_analysis(name: str, read_replay: Callable[[], Replay], step: int) -> AnalysisRow:
    """The analysis of move `step` of the finished replay named `name` (see kept_view), for a game that streams
    its analysis. A settled row is kept as long as the views; a row the solver could not settle in time is
    not, so that asking again continues the search (what it solved is in the solver's own store)."""
    key = f"move-analysis:{name}:{step}"
    row: AnalysisRow | None = cache.get(key)
    if row is None:
        replay = read_replay()
        row = get_game(replay["game"]).analyse_move(replay, step)
        if row is None:  # the callers ask only games that stream their analysis, which answer every move
            raise LookupError(f"{replay['game']} gives no analysis move by move")
        if row["verdict"] != UNSETTLED:
            cache.set(key, row, FINISHED_VIEW_SECONDS)
    return row


def _describe(game: Game, before: GameState | None, event: ReplayEvent | None, analysis: dict[int, AnalysisRow],
              players: list[str], points_lost: list[float], viewer: int | None) -> dict[str, Any] | None:
    if event is None or before is None:
        return None
    seat = event["seat"]
    if is_verdict(event):
        return {"seat": seat, "verdict": event["verdict"], "text": f"{players[seat]} is out: {event['verdict']}"}
    row = analysis.get(before.step)
    if row and row["points_lost"] is not None:
        points_lost[seat] += row["points_lost"]
    if viewer is not None and seat != viewer:
        # The analysis of another seat's decision may name its hidden cards ("a better card was in hand").
        row = None
    return {
        "seat": seat,
        "action": event["action"],
        "text": f"{players[seat]} {game.describe_action(before, event['action'])}",
        "analysis": row,
        # Another seat's options would show its hand: a seat's view has the decisions of that seat only.
        "decision": _decision(game, before, event["action"]) if viewer in (None, seat) else None,
    }


def _decision(game: Game, before: GameState, chosen: Any) -> dict[str, Any]:
    """The choice the acting seat faced: each legal action described, and which one it took."""
    options = before.legal_actions()
    return {"options": [game.describe_action(before, action) for action in options],
            "chosen": options.index(chosen) if chosen in options else None}


def compact(view: dict[str, Any]) -> dict[str, Any]:
    """The replay_view for the browser, without repeating what every frame repeats.

    A key with the same value in every frame (SortingGame's card catalogue) is sent once in `fixed`. A
    list that grows step by step (a round's history, a log) is sent in `logs` as segments, each the list
    at its longest; a frame keeps only [segment, length] in `lengths`, and a list that starts afresh (a
    new round) starts a new segment. The viewer rebuilds each frame's view exactly; a 900-step Crazy-KING
    game shrinks from megabytes to a few hundred kilobytes.
    """
    views = [frame["view"] for frame in view["frames"]]
    keys = set(views[0]).intersection(*views[1:])
    fixed = {key: views[0][key] for key in keys if all(other[key] == views[0][key] for other in views[1:])}
    listed = sorted(key for key in keys - set(fixed) if all(isinstance(other[key], list) for other in views))
    logs, positions = {}, {}
    for key in listed:
        segments, where = _segments([other[key] for other in views])
        if len(segments) * 2 <= len(views):  # worth it only where lists mostly grow (not hand sizes)
            logs[key], positions[key] = segments, where
    frames = []
    for index, frame in enumerate(view["frames"]):
        kept = {key: value for key, value in frame["view"].items() if key not in fixed and key not in logs}
        frames.append({**frame, "view": kept, "lengths": {key: positions[key][index] for key in logs}})
    return {**view, "frames": frames, "fixed": fixed, "logs": logs}


def _segments(values: list[list]) -> tuple[list[list], list[list[int]]]:
    """Split successive lists into runs where each extends the one before; ([longest of each run], [[run,
    length] per value])."""
    segments: list[list] = []
    positions = []
    previous = None
    for value in values:
        if previous is None or value[:len(previous)] != previous:
            segments.append(value)
        else:
            segments[-1] = value
        positions.append([len(segments) - 1, len(value)])
        previous = value
    return segments, positions
