"""Rulings from the deck data: is an algorithm valid for the active cards, who wins a round, and why.

The referee and the built-in bots share these functions, so a bot's judgement is the referee's.
"""

from __future__ import annotations

import dataclasses

from .deck import DEFAULT_CASE, Deck


@dataclasses.dataclass(frozen=True)
class Ruling:
    valid: bool
    explanation: str


def judge(deck: Deck, algorithm_id: str, criteria: list[str], case: str) -> Ruling:
    """Whether the algorithm meets every active criterion under the active case, explained from the deck."""
    algorithm = deck.algorithms[algorithm_id]
    met, failed = [], []
    for criterion_id in criteria:
        requirement = deck.specials[criterion_id].requires
        reason = f"the active card '{deck.specials[criterion_id].name}' requires {requirement.demand(case)}"
        if requirement.holds(algorithm, case):
            met.append(f"{reason}, and {requirement.finding(algorithm, case)}")
        else:
            failed.append(f"{reason}, but {requirement.finding(algorithm, case)}")
    if failed:
        return Ruling(False, f"{algorithm.name} is not valid: " + "; ".join(failed))
    if not met:
        return Ruling(True, f"{algorithm.name} is valid: no criterion card is active")
    return Ruling(True, f"{algorithm.name} is valid: " + "; ".join(met))


def is_valid(deck: Deck, algorithm_id: str, criteria: list[str], case: str) -> bool:
    return all(deck.specials[c].requires.holds(deck.algorithms[algorithm_id], case) for c in criteria)


def time_of(deck: Deck, algorithm_id: str, case: str):
    return deck.algorithms[algorithm_id].value(case)


def valid_in_hand(deck: Deck, hand: list[str], criteria: list[str], case: str) -> list[str]:
    """The hand's distinct algorithm cards valid for the criteria under the case, fastest first."""
    cards = [card for card in set(hand) if deck.is_algorithm(card) and is_valid(deck, card, criteria, case)]
    return sorted(cards, key=lambda card: (time_of(deck, card, case), card))


def round_winners(deck: Deck, contenders: dict[int, str], case: str) -> list[int]:
    """The seats whose algorithm has the best (smallest) time class under `case`; ties all win."""
    if not contenders:
        return []
    best = min(time_of(deck, card, case) for card in contenders.values())
    return [seat for seat, card in contenders.items() if time_of(deck, card, case) == best]


def case_words(case: str, from_card: bool) -> str:
    return f"the {case} case" + ("" if from_card else f" (no case card: {DEFAULT_CASE} by default)")


def explain_winners(deck: Deck, contenders: dict[int, str], winners: list[int], case: str, from_card: bool) -> str:
    """Why these seats win: each contender's time under the active case, best first."""
    ranked = sorted(contenders.items(), key=lambda item: time_of(deck, item[1], case))
    times = ", ".join(f"seat {seat} {deck.algorithms[card].name} {time_of(deck, card, case).tight()}" for seat, card in ranked)
    who = " and ".join(f"seat {seat}" for seat in winners)
    verb = "tie for" if len(winners) > 1 else "has"
    return f"under {case_words(case, from_card)}: {times}; {who} {verb} the best time"
