"""Cards as short strings: rank then suit, e.g. "10H", "KS", "AC" (what observations and actions use)."""

from __future__ import annotations

SUITS = ("S", "H", "D", "C")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}

KING, QUEEN, JACK, ACE = "K", "Q", "J", "A"
# The cards aimed at the next seat, by the names the rules give them.
EFFECT_NAMES = {JACK: "JACK", QUEEN: "QUEEN"}
ACTION_POINTS = {KING: 30, QUEEN: 10, JACK: 10, ACE: 10}

DECK = tuple(rank + suit for suit in SUITS for rank in RANKS)
_ORDER = {card: index for index, card in enumerate(DECK)}


def rank(card: str) -> str:
    return card[:-1]


def suit(card: str) -> str:
    return card[-1]


def points(card: str) -> int:
    """What the card costs its holder when another player wins the round."""
    return ACTION_POINTS.get(rank(card)) or int(rank(card))


def hand_points(cards) -> int:
    return sum(points(card) for card in cards)


def matches(card: str, top_card: str, suit_to_follow: str) -> bool:
    """May `card` be played on `top_card` when `suit_to_follow` is asked (the top card's suit or a named one)?"""
    return rank(card) == KING or suit(card) == suit_to_follow or rank(card) == rank(top_card)


def sort_cards(cards) -> list[str]:
    """Cards in deck order (by suit, then rank), as hands are kept and shown."""
    return sorted(cards, key=_ORDER.__getitem__)


def show(card: str) -> str:
    """The seed's display of a card, e.g. [10|♥]."""
    return f"[{rank(card)}|{SUIT_SYMBOLS[suit(card)]}]"
