"""Replay analysis and text display: every ruling in words, and whether a better card was in hand."""

from __future__ import annotations

import itertools
from typing import TypedDict, cast

from ..contracts import AnalysisRow, Replay, is_verdict
from .rules import case_words, judge, time_of, valid_in_hand
from .state import SPOTS, SortingState

OWN_EVENTS = ("special", "algorithm", "pass", "question", "robbery")
CONSEQUENCES = ("round", "bluff", "end")


class AlgorithmChoice(TypedDict, total=False):
    """In the algorithm phase (only): was the card played (None: no card) valid, and was a better one in hand."""

    valid: bool | None
    best_valid_card: str | None
    better_in_hand: bool
    explanation: str


class SortingDecision(AnalysisRow, AlgorithmChoice, total=False):
    """A decision's row: the contract's keys, the rulings it caused, and its algorithm choice when it made one
    (the viewer shows `explanation` where there is one)."""

    round: int
    phase: str
    action: dict
    rulings: list[str]


def analyse(replay: Replay) -> list[SortingDecision]:
    """One entry per decision: what was done, every ruling it caused (from the deck data) and, in the
    algorithm phase, the best valid card the seat held and whether it was better than its choice."""
    from ..replay import states  # the replay module imports the game registry, which imports this game

    positions = [(cast(SortingState, state), event) for state, event in states(replay)]
    return [_decision(before, after, event["seat"], event["action"])
            for (before, _), (after, event) in itertools.pairwise(positions)
            if event is not None and not is_verdict(event)]


def _decision(before: SortingState, after: SortingState, seat: int, action: dict) -> SortingDecision:
    notes = after.log[len(before.log):]
    rulings = [note["text"] for note in notes]
    rulings += [note["hidden"]["ruling"] for note in notes if "ruling" in note.get("hidden", {})]
    # The seat's own note tells its play, pass (with the penalty), question or robbery with the ruling.
    own = [note["text"] for note in notes if note["event"] in OWN_EVENTS and note["seat"] == seat][:1]
    text = own or [f"seat {seat} {describe_action(before, action)}"]
    choice = None
    if before.phase == "algorithm" and action["action"] in ("play", "pass"):
        choice = _algorithm_choice(before, seat, action.get("card") if action["action"] == "play" else None)
        text.append(choice["explanation"])
    text += [note["text"] for note in notes if note["event"] in CONSEQUENCES]
    row = SortingDecision(step=before.step, seat=seat, text="; ".join(text), points_lost=None, verdict=None,
                          round=before.round, phase=before.phase, action=action, rulings=rulings)
    if choice is not None:
        row.update(choice)
    return row


def _algorithm_choice(state: SortingState, seat: int, played: str | None) -> AlgorithmChoice:
    deck, criteria, case = state.deck, state.active_criteria(), state.active_case()
    valid = valid_in_hand(deck, state.hands[seat], criteria, case)
    best = valid[0] if valid else None
    ruling = judge(deck, played, criteria, case) if played is not None else None
    parts = [ruling.explanation] if ruling else []
    if best is None:
        better = False
        parts.append("no valid card was in hand")
    else:
        better = (played is None or ruling is None or not ruling.valid
                  or time_of(deck, best, case) < time_of(deck, played, case))
        parts.append(f"a better card was in hand: {deck.algorithms[best].name}, valid with "
                     f"{time_of(deck, best, case).tight()} under {case_words(case, bool(state.spots['case']))}"
                     if better else "no better card was in hand")
    return AlgorithmChoice(valid=ruling.valid if ruling else None, best_valid_card=best, better_in_hand=better,
                           explanation="; ".join(parts))


def describe_action(state: SortingState, action: dict) -> str:
    deck = state.deck
    kind = action["action"]
    if kind == "play" and "spot" in action:
        top = state.spots[action["spot"]]
        covering = f", covering '{deck.specials[top[-1]['card']].name}'" if top else ""
        return f"plays '{deck.specials[action['card']].name}' on {action['spot']}{covering}"
    if kind == "play":
        return f"plays {deck.algorithms[action['card']].name}"
    if kind == "question":
        return f"questions seat {action['seat']}'s {deck.algorithms[state.plays[action['seat']]['card']].name}"
    if kind == "rob":
        taken = state.spots[action["spot"]][-1] if "spot" in action else {**state.plays[action["seat"]], "seat": action["seat"]}
        return f"robs seat {taken['seat']}'s {deck.card(taken['card']).name} with '{deck.specials[action['card']].name}'"
    if state.phase == "algorithm":
        discard = action.get("discard")
        return "plays no algorithm" + (f" and discards {deck.card(discard).name}" if discard else "")
    return "plays no special card" if state.phase == "special" else "questions no one"


def render(state: SortingState, seat: int | None = None) -> str:
    """The table as text: the full view, or only what `seat` may see."""
    deck = state.deck
    view = state.full_view() if seat is None else state.observation(seat)
    lines = [f"round {view['round']}, {view['phase']} phase, to move: {view['to_move']}; "
             f"judged: {case_words(view['active']['case'], view['active']['case_played'])}; "
             f"stacks: {view['stacks']['algorithm']} algorithm, {view['stacks']['special']} special"]
    for spot in SPOTS:
        cards = [f"'{deck.card(entry['card']).name}' (seat {entry['seat']})" for entry in view["spots"][spot]]
        lines.append(f"  {spot}: " + (" covered by ".join(cards) if cards else "-"))
    for player in range(state.num_players):
        play = view["plays"][player]
        shown = "-" if play is None else deck.algorithms[play["card"]].name + (
            f" [questioned by seat {play['questioned_by']}: {play['ruling']}]" if play["questioned_by"] is not None
            else f" [{play['ruling']}]" if play["ruling"] else "")
        if seat is None:
            hand = ", ".join(view["hands"][player])
        elif player == seat:
            hand = ", ".join(view["hand"])
        else:
            hand = f"{view['hand_sizes'][player]} cards"
        out = " (out)" if player in view["failed"] else ""
        lines.append(f"  seat {player}{out}: played {shown}; victory {view['victory_sizes'][player]}; hand: {hand}")
    if view["penalties"] or view["carried"]:
        lines.append(f"  pot: {view['penalties']} penalty card(s), {view['carried']} carried card(s)")
    if view["log"]:
        lines.append(f"  last: {view['log'][-1]['text']}")
    return "\n".join(lines)
