"""One Sorted! position and the rules that move it on (docs/bots/sorted.md states them in full).

Cards are kept as one list of 16 values, index seat * 4 + position (positions 0-based inside; 1 to 4 in
actions and documents, as in the rule book). Turn t belongs to seat t mod 4; the turn number goes on
counting over the turns of a seat whose bot failed (they pass), so scores stay comparable.
"""

from __future__ import annotations

from ..core import GameState
from . import solver
from .solver import CARDS, DECLARE, HAND, SEATS, swap_action


class SortedState(GameState):
    def __init__(self, game, num_players, config, seed):
        super().__init__(game, num_players, config, seed)
        if config["deal"] is not None:
            self.initial = solver.parse_deal(config["deal"])
        else:
            deck = list(solver.SORTED)
            self.rng.shuffle(deck)
            self.initial = tuple(deck)
        self.cards = list(self.initial)
        # Beginner tip: True where a card entered its own position and was turned toward its holder.
        self.turned = [False] * CARDS
        self.turn = 0
        self.declared_at: int | None = None
        # Public record of every turn: who swapped which positions (the values are added per viewer).
        self.history: list[dict] = []
        self._min_turns: int | None = None

    # --- GameState -------------------------------------------------------------------------------
    def current_player(self):
        return None if self.is_terminal() else self.turn % SEATS

    def legal_actions(self):
        if self.is_terminal():
            return []
        mover = self.turn % SEATS
        swaps = [swap_action(mine, seat, theirs) for mine in range(1, HAND + 1)
                 for seat in range(SEATS) if seat != mover for theirs in range(1, HAND + 1)]
        return [dict(DECLARE)] + swaps

    def _rules_over(self):
        return self.declared_at is not None or self.turn >= self.config["max_turns"]

    def _team_won(self):
        return self.declared_at is not None and self.is_sorted()

    def is_sorted(self) -> bool:
        return tuple(self.cards) == solver.SORTED

    def min_turns(self) -> int:
        """The fewest turns in which the initial deal could have been sorted (seat 0 first)."""
        if self._min_turns is None:
            self._min_turns = solver.Solver().min_turns(self.initial, 0)
        return self._min_turns

    def team_score(self) -> int | None:
        """The team's score once the game is over (lower is better), None while it is played."""
        if not self.is_terminal():
            return None
        if self._team_won():
            return self.declared_at - self.min_turns()
        return self.config["max_turns"]

    def scores(self):
        score = self.team_score()
        return [float(score or 0)] * self.num_players

    def _apply(self, action):
        mover = self.turn % SEATS
        if action["action"] == "declare":
            self.history.append({"turn": self.turn, "seat": mover, "action": "declare"})
            self.declared_at = self.turn
            return
        mine = mover * HAND + action["mine"] - 1
        theirs = action["seat"] * HAND + action["theirs"] - 1
        self.history.append({"turn": self.turn, "seat": mover, "action": "swap", "mine": action["mine"],
                             "other": action["seat"], "theirs": action["theirs"],
                             "gave": self.cards[mine], "took": self.cards[theirs]})
        self.cards[mine], self.cards[theirs] = self.cards[theirs], self.cards[mine]
        for index in (mine, theirs):
            self.turned[index] = self.config["beginner_tip"] and self.cards[index] == index % HAND + 1
        self._next_turn()

    def _drop_seat(self, seat):
        """A failed seat's hand stays on the table; its turns pass (and count) from now on."""
        if self.current_player() == seat:
            self.history.append({"turn": self.turn, "seat": seat, "action": "skipped"})
            self._next_turn()
        return True

    def _next_turn(self) -> None:
        self.turn += 1
        while not self._rules_over() and self.turn % SEATS in self.failed_seats:
            self.history.append({"turn": self.turn, "seat": self.turn % SEATS, "action": "skipped"})
            self.turn += 1

    def hidden_variant(self, seat, rng):
        """The same game but for the order of `seat`'s cards that no swap has touched since the deal (and
        so that it never saw): the deal had them in another order, and everything else is the same."""
        if self.is_terminal():
            return None
        touched = set()
        for entry in self.history:
            if entry["action"] == "swap":
                touched.add(entry["seat"] * HAND + entry["mine"] - 1)
                touched.add(entry["other"] * HAND + entry["theirs"] - 1)
        unseen = [index for index in range(seat * HAND, seat * HAND + HAND) if index not in touched]
        values = [self.cards[index] for index in unseen]
        rng.shuffle(values)
        variant = self.clone()
        initial = list(self.initial)
        for index, value in zip(unseen, values):
            variant.cards[index] = initial[index] = value
        variant.initial = tuple(initial)
        variant._min_turns = None
        return variant

    # --- what a seat sees ----------------------------------------------------------------------------
    def _public(self, view):
        """What every seat sees: no card's value but those turned toward their holder, since each seat
        sees every hand but its own, until a declare lays them all face up."""
        if view["over"]:
            return view
        hands = [[card if face else None for card, face in zip(cards, turned)]
                 for cards, turned in zip(view["hands"], view["turned"])]
        history = [{**entry, "gave": None, "took": None} if entry["action"] == "swap" else entry
                   for entry in view["history"]]
        return {**view, "hands": hands, "history": history}

    def _action_label(self, view, action):
        if action["action"] == "declare":
            return "declare that every hand is sorted (ends the game)"
        mover = view["seat"]
        mine = view["hands"][mover][action["mine"] - 1]
        theirs = view["hands"][action["seat"]][action["theirs"] - 1]
        return (f"swap your {ORDINALS[action['mine']]} card ({'?' if mine is None else mine}) with seat "
                f"{action['seat']}'s {ORDINALS[action['theirs']]} card ({theirs})")

    def _observe(self, seat):
        full = seat < 0 or self.is_terminal()  # a declare lays every hand face up
        hands = []
        for holder in range(SEATS):
            cards = self.cards[holder * HAND : holder * HAND + HAND]
            if not full and holder == seat:
                turned = self.turned[holder * HAND : holder * HAND + HAND]
                cards = [card if face else None for card, face in zip(cards, turned)]
            hands.append(cards)
        view = {
            "hands": hands,
            "turned": [self.turned[holder * HAND : holder * HAND + HAND] for holder in range(SEATS)],
            "turn": self.turn,
            "to_move": self.current_player(),
            "max_turns": self.config["max_turns"],
            "beginner_tip": self.config["beginner_tip"],
            "history": [_seen(entry, None if full else seat) for entry in self.history],
            "over": self.is_terminal(),
            "won": self._team_won(),
            "team_score": self.team_score(),
        }
        if full:
            view["initial"] = [list(self.initial[h * HAND : h * HAND + HAND]) for h in range(SEATS)]
        return view


ORDINALS = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}


def _seen(entry: dict, seat: int | None) -> dict:
    """A history entry as `seat` saw it: a card is shown only if it was not in that seat's own hand."""
    entry = dict(entry)
    if entry["action"] == "swap" and seat is not None:
        if entry["seat"] == seat:
            entry["gave"] = None
        if entry["other"] == seat:
            entry["took"] = None
    return entry
