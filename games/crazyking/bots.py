"""Built-in Crazy-KING bots: the baselines students measure theirs against."""

from __future__ import annotations

from collections import Counter

from ..baseline import RandomBot
from . import cards
from .cards import ACE, JACK, KING, QUEEN


def most_held_suit(hand: list[str]) -> str:
    """The suit the hand holds most of, KINGs aside (they match anything); ties go to the first in SUITS."""
    counts = Counter(cards.suit(card) for card in hand if cards.rank(card) != KING)
    return max(cards.SUITS, key=lambda suit: counts[suit])


def name_suit(action, suit: str):
    """`action` with `suit` named, if it plays a KING (the one choice that comes with it)."""
    return {**action, "suit": suit} if isinstance(action, dict) and "suit" in action else action


class MostSuitBot:
    """The seed's own policy: the first card it may play, and for a KING the suit it holds most of.

    It answers a JACK or QUEEN with a KING whenever it holds one (the seed's "unless he has a KING").
    """

    def act(self, obs):
        first = obs["legal_actions"][0]
        if first == "pass":
            return first
        rest = [card for card in obs["hand"] if card != first["play"]]
        return name_suit(first, most_held_suit(rest))


class TacticianBot:
    """Sheds costly cards, keeps its KINGs as wild cards, and aims JACKs, QUEENs and ACEs at the leader.

    Each playable card gets a score: its points (what it would cost if someone else went out), the
    cards it leaves in its suit (so the bot can follow again), a bonus for action cards that hold back
    an opponent about to go out, and a penalty for spending a KING while other cards can be played.
    """

    def act(self, obs):
        legal = obs["legal_actions"]
        if obs["pending"]:
            # A KING that blocks a QUEEN saves two cards and a turn; against a JACK only when short of cards.
            blocking = [action for action in legal if action != "pass"]
            if blocking and (obs["pending"] == QUEEN or len(obs["hand"]) <= 3):
                return self._with_suit(blocking[0], obs)
            return "pass"
        best = max(legal, key=lambda action: self._value(action["play"], obs))
        return self._with_suit(best, obs)

    def _with_suit(self, action, obs):
        rest = [card for card in obs["hand"] if card != action["play"]]
        return name_suit(action, most_held_suit(rest) if rest else cards.suit(action["play"]))

    def _value(self, card: str, obs) -> float:
        hand, seat = obs["hand"], obs["seat"]
        rank = cards.rank(card)
        rest = [other for other in hand if other != card]
        if not rest:
            return 1000.0  # going out wins the round
        same_suit = sum(1 for other in rest if cards.suit(other) == cards.suit(card) and cards.rank(other) != KING)
        value = cards.points(card) + 4.0 * same_suit
        if rank == KING:
            value -= 40.0
        threat = _threat(obs)
        following = _next_active(obs, seat, obs["direction"])
        preceding = _next_active(obs, seat, -obs["direction"])
        if rank in (JACK, QUEEN):
            value += threat[following] * (2.0 if rank == QUEEN else 1.0)
        if rank == ACE and preceding != following:
            value += threat[following] - threat[preceding]
        return value


def _threat(obs) -> list[float]:
    """How urgently each opponent must be held back: the fewer cards it holds, the more."""
    return [
        0.0 if seat == obs["seat"] or not active or size == 0 else 30.0 / size
        for seat, (active, size) in enumerate(zip(obs["active"], obs["hand_sizes"]))
    ]


def _next_active(obs, seat: int, direction: int) -> int:
    count = len(obs["active"])
    following = (seat + direction) % count
    while not obs["active"][following]:
        following = (following + direction) % count
    return following


BUILTIN = {"random": RandomBot, "most-suit": MostSuitBot, "tactician": TacticianBot}
