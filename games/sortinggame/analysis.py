"""Replay analysis and text display: every ruling in words, and whether a better card was in hand."""

from __future__ import annotations

from ..contracts import AnalysisRow, Replay, is_verdict
from .rules import case_words, judge, time_of, valid_in_hand
from .state import SPOTS, SortingState

OWN_EVENTS = ("special", "algorithm", "pass", "question", "robbery")
CONSEQUENCES = ("round", "bluff", "end")


def analyse(replay: Replay) -> list[AnalysisRow]:
    """One entry per decision: what was done, every ruling it caused (from the deck data) and, in the
    algorithm phase, the best valid card the seat held and whether it was better than its choice."""
    from ..replay import states  # the replay module imports the game registry, which imports this game

    rows = []
    previous = None
    for state, event in states(replay):
        if event is not None and not is_verdict(event):
            rows.append(_decision(previous, state, event["seat"], event["action"]))
        previous = state
    return rows


def _decision(before: SortingState, after: SortingState, seat: int, action: dict) -> AnalysisRow:
    notes = after.log[len(before.log):]
    rulings = [note["text"] for note in notes]
    rulings += [note["hidden"]["ruling"] for note in notes if "ruling" in note.get("hidden", {})]
    row = {"step": before.step, "seat": seat, "round": before.round, "phase": before.phase, "action": action,
           "rulings": rulings, "points_lost": None, "verdict": None}
    # The seat's own note tells its play, pass (with the penalty), question or robbery with the ruling.
    own = [note["text"] for note in notes if note["event"] in OWN_EVENTS and note["seat"] == seat][:1]
    text = own or [f"seat {seat} {describe_action(before, action)}"]
    if before.phase == "algorithm" and action["action"] in ("play", "pass"):
        row.update(_algorithm_choice(before, seat, action.get("card") if action["action"] == "play" else None))
        text.append(row["explanation"])
    text += [note["text"] for note in notes if note["event"] in CONSEQUENCES]
    row["text"] = "; ".join(text)
    return row


def _algorithm_choice(state: SortingState, seat: int, played: str | None) -> dict:
    deck, criteria, case = state.deck, state.active_criteria(), state.active_case()
    valid = valid_in_hand(deck, state.hands[seat], criteria, case)
    best = valid[0] if valid else None
    ruling = judge(deck, played, criteria, case) if played else None
    better = best is not None and (ruling is None or not ruling.valid
                                   or time_of(deck, best, case) < time_of(deck, played, case))
    parts = [ruling.explanation] if ruling else []
    if better:
        parts.append(f"a better card was in hand: {deck.algorithms[best].name}, valid with "
                     f"{time_of(deck, best, case).tight()} under {case_words(case, bool(state.spots['case']))}")
    elif best is None:
        parts.append("no valid card was in hand")
    else:
        parts.append("no better card was in hand")
    return {"valid": ruling.valid if ruling else None, "best_valid_card": best, "better_in_hand": better,
            "explanation": "; ".join(parts)}


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
