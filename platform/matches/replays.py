"""A finished match's replay prepared for viewing: every step's table, the move, and the solver's analysis."""

from games import get_game
from games import replay as replays


def replay_view(replay: dict, seat: int | None = None) -> dict:
    """Frames for each state of the replay, seen by `seat` (None: the full view), with per-move analysis."""
    game = get_game(replay["game"])
    analysis = {row["step"]: row for row in game.analyse(replay) or []}
    players = replay.get("players") or [f"seat {s}" for s in range(replay["num_players"])]
    points_lost = [0] * replay["num_players"]
    frames = []
    previous = None
    for state, event in replays.states(replay):
        frames.append({
            "step": len(frames),
            "text": game.render(state, seat),
            "view": state.full_view() if seat is None else state.observation(seat),
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
        "has_analysis": bool(analysis),
        "points_lost": points_lost if any("points_lost" in row for row in analysis.values()) else None,
    }


def _describe(game, before, event, analysis, players, points_lost, viewer) -> dict | None:
    if event is None:
        return None
    seat = event["seat"]
    if "verdict" in event:
        return {"seat": seat, "verdict": event["verdict"], "text": f"{players[seat]} is out: {event['verdict']}"}
    row = analysis.get(before.step)
    if row and "points_lost" in row:
        points_lost[seat] += row["points_lost"]
    if viewer is not None and seat != viewer:
        # The analysis of another seat's decision may name its hidden cards ("a better card was in hand").
        row = None
    return {
        "seat": seat,
        "action": event["action"],
        "text": f"{players[seat]} {game.describe_action(before, event['action'])}",
        "analysis": row,
    }
