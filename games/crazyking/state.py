"""Crazy-KING's referee: one position of a match and the rules that move it on.

A seat decides which card to play, and how to take a JACK or QUEEN aimed at it (answer with a KING, or
"pass" and take the effect). Draws, and the pass when two draws bring no playable card, are taken by the
referee itself right after the decision that led to them. docs/bots/crazyking.md states every rule.
"""

from __future__ import annotations


from ..core import GameState
from . import cards
from .cards import ACE, JACK, KING, QUEEN

HAND_SIZE = 7
PASS = "pass"


class _RoundOver(Exception):
    """The draw pile ran out for the last time allowed: the round stops at once, whatever was under way."""


class CrazyKingState(GameState):
    def __init__(self, game, num_players, config, seed):
        super().__init__(game, num_players, config, seed)
        self.scores_so_far = [0] * num_players
        self.active = [True] * num_players
        self.round_number = 0
        # Public results of the finished rounds, and the public events of the round being played. Both are
        # tuples of never-mutated dicts, replaced rather than appended to, so copies of a state share them.
        self.past_rounds: tuple[dict, ...] = ()
        self.history: tuple[dict, ...] = ()
        self.game_over = False
        self._deal(starter=self.rng.randrange(num_players))

    def __deepcopy__(self, memo):
        # The histories are immutable: share them, so a copy costs the same however long the round has run.
        memo[id(self.history)] = self.history
        memo[id(self.past_rounds)] = self.past_rounds
        return super().__deepcopy__(memo)

    # --- the interface ---------------------------------------------------------------------------
    def current_player(self):
        return None if self.is_terminal() else self.turn

    def legal_actions(self):
        if self.is_terminal():
            return []
        hand = self.hands[self.turn]
        if self.pending:
            return [action for card in hand if cards.rank(card) == KING for action in _plays(card)] + [PASS]
        candidates = [self.drawn_card] if self.drawn_card else hand
        return [
            action
            for card in candidates
            if cards.matches(card, self.top_card, self.suit_to_follow)
            for action in _plays(card)
        ]

    def scores(self):
        return list(self.scores_so_far)

    def _rules_over(self):
        return self.game_over

    @property
    def top_card(self) -> str:
        return self.discard_pile[-1]

    def _observe(self, seat):
        full = seat < 0
        view = {
            "round": self.round_number,
            "turn": self.current_player(),
            "pending": self.pending,
            "drawn_card": self.drawn_card if full or seat == self.turn else None,
            "top_card": self.top_card,
            "suit": self.suit_to_follow,
            "direction": self.direction,
            "hand_sizes": [len(hand) for hand in self.hands],
            "scores": list(self.scores_so_far),
            "active": list(self.active),
            "draw_pile": len(self.draw_pile),
            "discard_pile": len(self.discard_pile),
            "run_outs": self.run_outs,
            "history": [dict(event) for event in self.history],
            "rounds": [dict(result, hand_totals=list(result["hand_totals"])) for result in self.past_rounds],
            "target_score": self.config["target_score"],
            "max_rounds": self.config["max_rounds"],
            "max_run_outs": self.config["max_run_outs"],
        }
        if full:
            view["hands"] = [list(hand) for hand in self.hands]
            view["hand_totals"] = [cards.hand_points(hand) for hand in self.hands]
            view["draw_pile_cards"] = list(self.draw_pile)
            view["discard_pile_cards"] = list(self.discard_pile)
        else:
            view["hand"] = list(self.hands[seat])
            view["hand_total"] = cards.hand_points(self.hands[seat])
        return view

    def _public(self, view):
        """Every seat's view but for its own cards (and the card it just drew, if it is on turn)."""
        public = {key: value for key, value in view.items() if key not in ("hand", "hand_total")}
        public["drawn_card"] = None
        return public

    def _action_label(self, view, action):
        effect = cards.EFFECT_NAMES.get(view["pending"])
        if action == PASS:
            return f"pass: take the {effect}" + (" (skip and draw two)" if view["pending"] == QUEEN else " (skip)")
        card = action["play"]
        label = f"play {cards.show(card)}" + (" (the card you drew)" if card == view["drawn_card"] else "")
        if "suit" in action:
            label += f" and name {cards.SUIT_SYMBOLS[action['suit']]} ({cards.SUIT_NAMES[action['suit']]})"
        if effect:
            label += f" against the {effect}"
        if len(view["hand"]) == 1:
            label += ": your last card"
        return label

    def _apply(self, action):
        seat = self.turn
        self._run_round(lambda: self._decide(seat, action))

    def _drop_seat(self, seat):
        """The failed seat's hand is shuffled into the draw pile; its turn, or its answer, passes on."""
        self.active[seat] = False
        self.draw_pile.extend(self.hands[seat])
        self.hands[seat] = []
        self.rng.shuffle(self.draw_pile)
        self._record("dropped", seat)
        if seat == self.turn:
            self.pending = None
            self.drawn_card = None
            self._run_round(lambda: self._start_turn(self._next_seat(seat)))
        return True

    def hidden_variant(self, seat, rng):
        """The other seats' cards and the draw pile dealt again from the same cards (each hand keeps its
        size; a card the seat on turn just drew stays, since it must be played)."""
        others = [other for other in range(self.num_players) if other != seat]
        pool = [card for other in others for card in self.hands[other] if card != self.drawn_card] + self.draw_pile
        rng.shuffle(pool)
        variant = self.clone()
        for other in others:
            kept = [card for card in self.hands[other] if card == self.drawn_card]
            size = len(self.hands[other]) - len(kept)
            variant.hands[other] = cards.sort_cards(kept + pool[:size])
            del pool[:size]
        variant.draw_pile = pool
        return variant

    # --- one decision and what follows it --------------------------------------------------------
    def _run_round(self, play) -> None:
        """Run `play` (a decision and the automatic steps after it); end the round if the pile runs out."""
        try:
            play()
        except _RoundOver:
            self._end_round(self._lowest_hand(), "run-outs")

    def _decide(self, seat, action) -> None:
        if action == PASS:
            effect, self.pending = self.pending, None
            self._suffer(seat, effect)
            self._start_turn(self._next_seat(seat))
            return
        card = action["play"]
        self.hands[seat].remove(card)
        self.discard_pile.append(card)
        self.suit_to_follow = action.get("suit", cards.suit(card))
        self.drawn_card = None
        self.pending = None
        self._record("play", seat, card=card, suit=self.suit_to_follow)
        if not self.hands[seat]:
            self._end_round(seat, "empty hand")
            return
        if cards.rank(card) == ACE:
            self.direction = -self.direction
        if cards.rank(card) in (JACK, QUEEN):
            self.pending = cards.rank(card)
        self._start_turn(self._next_seat(seat))

    def _start_turn(self, seat) -> None:
        """Give `seat` its turn; a seat with nothing to play draws and passes, and the turn moves on,
        until some seat has a decision to make."""
        while True:
            self.turn = seat
            # A JACK's or QUEEN's target always decides, even with no KING to answer ("pass" only):
            # were it asked only when holding one, the count of decisions would tell the others so.
            if self.pending or any(cards.matches(card, self.top_card, self.suit_to_follow) for card in self.hands[seat]):
                return
            for _ in range(2):
                drawn = self._draw(seat)
                if drawn and cards.matches(drawn, self.top_card, self.suit_to_follow):
                    self.drawn_card = drawn
                    return
            self._record("pass", seat)
            seat = self._next_seat(seat)

    def _suffer(self, seat, effect) -> None:
        """`seat` takes the JACK's or QUEEN's effect: it loses its turn, and draws two for a QUEEN."""
        self._record("skip", seat, card=effect)
        if effect == QUEEN:
            for _ in range(2):
                self._draw(seat)

    # --- piles -------------------------------------------------------------------------------------
    def _draw(self, seat) -> str | None:
        """Move the draw pile's top card to `seat`'s hand (None if the pile is empty even after a refill)."""
        if not self.draw_pile:
            self._run_out()
        if not self.draw_pile:
            return None
        card = self.draw_pile.pop()
        self.hands[seat] = cards.sort_cards(self.hands[seat] + [card])
        self._record("draw", seat)
        if not self.draw_pile:
            self._run_out()
        return card

    def _run_out(self) -> None:
        """The draw pile is empty: count it; the last allowed time ends the round, else refill it."""
        self.run_outs += 1
        if self.run_outs >= self.config["max_run_outs"]:
            self._record("run_out", None, count=self.run_outs, reshuffled=0)
            raise _RoundOver
        self.draw_pile = self.discard_pile[:-1]
        self.discard_pile = self.discard_pile[-1:]
        self.rng.shuffle(self.draw_pile)
        self._record("run_out", None, count=self.run_outs, reshuffled=len(self.draw_pile))

    # --- rounds --------------------------------------------------------------------------------------
    def _deal(self, starter: int) -> None:
        self.round_number += 1
        seats = [seat for seat in range(self.num_players) if self.active[seat]]
        deck = list(cards.DECK)
        self.rng.shuffle(deck)
        self.hands = [[] for _ in range(self.num_players)]
        for seat in seats:
            self.hands[seat] = cards.sort_cards(deck[-HAND_SIZE:])
            del deck[-HAND_SIZE:]
        # The first discard is nobody's play: it sets the card and suit to match and has no other effect.
        self.discard_pile = [deck.pop()]
        self.draw_pile = deck
        self.suit_to_follow = cards.suit(self.top_card)
        self.direction = 1
        self.run_outs = 0
        self.pending = None
        self.drawn_card = None
        self.history = ()
        self.turn = starter
        self._record("start", starter, card=self.top_card)
        self._run_round(lambda: self._start_turn(starter))

    def _end_round(self, winner: int, reason: str) -> None:
        others = [seat for seat in range(self.num_players) if self.active[seat] and seat != winner]
        gained = sum(cards.hand_points(self.hands[seat]) for seat in others)
        self.scores_so_far[winner] += gained
        result = {
            "round": self.round_number,
            "winner": winner,
            "points": gained,
            "reason": reason,
            "hand_totals": [cards.hand_points(hand) for hand in self.hands],
        }
        self.past_rounds += (result,)
        reached = self.scores_so_far[winner] >= self.config["target_score"]
        if reached or self.round_number >= self.config["max_rounds"]:
            self.game_over = True
            self.pending = None
            self.drawn_card = None
            return
        self._deal(starter=winner)

    def _lowest_hand(self) -> int:
        """The round's winner when the pile ran out: the lowest hand total; ties go to whoever plays soonest."""
        order = self._play_order(self.turn)
        return min(order, key=lambda seat: (cards.hand_points(self.hands[seat]), order.index(seat)))

    # --- seats -------------------------------------------------------------------------------------
    def _next_seat(self, seat: int) -> int:
        following = (seat + self.direction) % self.num_players
        while not self.active[following]:
            following = (following + self.direction) % self.num_players
        return following

    def _play_order(self, first: int) -> list[int]:
        """Active seats in the order of play, starting at `first` (which is active)."""
        order = [first]
        while (following := self._next_seat(order[-1])) != first:
            order.append(following)
        return order

    def _record(self, event: str, seat: int | None, **details) -> None:
        entry = {"event": event, **({} if seat is None else {"seat": seat}), **details}
        self.history += (entry,)


def _plays(card: str) -> list:
    """The actions that play `card`: a KING names the next suit, any other card just goes down."""
    if cards.rank(card) == KING:
        return [{"play": card, "suit": suit} for suit in cards.SUITS]
    return [{"play": card}]
