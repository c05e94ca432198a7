"""Per-turn analysis of a played Sorted! game against the exact solver."""

from __future__ import annotations

from typing import Any

from ..contracts import AnalysisRow, Replay, is_verdict
from .solver import SEATS, Solver


class TurnAnalysis(AnalysisRow):
    """Sorted!'s analysis of a turn: the turns the team still needs before and after it."""

    turn: int
    action: Any
    needed_before: int
    needed_after: int


def analyse(replay: Replay) -> list[TurnAnalysis]:
    """One row per decision: the turns still needed before and after it, and the points it lost.

    The projected score after a turn is (turns taken + turns still needed) - the deal's minimum; a turn
    that does not bring the team one turn closer raises it by one (or two, if it undoes progress).
    """
    from ..replay import states  # the replay module imports the game registry, which imports this game

    solver = Solver()
    rows = []
    previous = None
    for state, event in states(replay):
        if event is not None and not is_verdict(event):
            rows.append(_row(solver, previous, state, event["seat"], event["action"]))
        previous = state
    return rows


def _row(solver: Solver, before, after, seat: int, action: dict) -> TurnAnalysis:
    needed_before = solver.min_turns(before.cards, before.turn % SEATS)
    projected_before = before.turn + needed_before - before.min_turns()
    if action["action"] == "declare":
        needed_after = needed_before
        lost = after.team_score() - projected_before
        text = "declares sorted hands" if after.is_sorted() else f"declares unsorted hands: the team loses ({lost} points)"
    else:
        needed_after = solver.min_turns(after.cards, after.turn % SEATS)
        lost = after.turn + needed_after - after.min_turns() - projected_before
        text = f"{needed_after} more turn{'s' if needed_after != 1 else ''} needed" + (f", lost {lost}" if lost else "")
    return TurnAnalysis(step=before.step, seat=seat, text=text, points_lost=lost, verdict=None, turn=before.turn,
                        action=action, needed_before=needed_before, needed_after=needed_after)
