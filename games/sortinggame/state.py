"""One SortingGame position and the referee's rules (docs/bots/sortinggame.md states them in full).

A round is three windows, each going once round the live seats from the round's starter: the special
phase (play a special card or pass), the algorithm phase (play an algorithm card, valid or a bluff, or
pass with the penalty and an optional discard-and-replace) and the question window (question one other
seat's algorithm or pass). With Extension 1 a robbery is an extra decision within a seat's turn, before
it plays or passes: in the special phase it takes a special card, in the question window an algorithm.
"""

from __future__ import annotations

import json

from ..core import GameState
from .deck import DEFAULT_CASE, Deck
from .rules import explain_winners, judge, round_winners

CRITERION_SPOTS = ("criterion1", "criterion2")
CASE_SPOT = "case"
SPOTS = (*CRITERION_SPOTS, CASE_SPOT)
HAND_MIX = {"algorithm": 3, "special": 2}  # the deal, and what the refill restores
BLUFF_REWARD = 2
PHASES = ("special", "algorithm", "question")
# Observations carry the log of the current and the previous round (earlier rounds are in the replay).
LOG_ROUNDS_SHOWN = 2


class Note(dict):
    """A log entry: written once and never changed, so every later state shares it instead of copying."""

    def __deepcopy__(self, memo):
        return self


class SortingState(GameState):
    def __init__(self, game, num_players: int, config: dict, seed: int, deck: Deck):
        super().__init__(game, num_players, config, seed)
        self.deck = deck
        algorithms, specials = deck.stacks(config["robbery"])
        self.rng.shuffle(algorithms)
        self.rng.shuffle(specials)
        self.stacks = {"algorithm": algorithms, "special": specials}  # the top card is the last one
        self.hands: list[list[str]] = [[] for _ in range(num_players)]
        self.victory: list[list[str]] = [[] for _ in range(num_players)]
        self.discarded: list[str] = []  # discarded hands and discard-and-replace cards: out of the game
        self.carried: list[str] = []  # table cards waiting for a later round's winner
        self.log: list[dict] = []
        self.round = 0
        self.starter = 0
        for seat in range(num_players):
            self._refill(seat)
        self._start_round()

    # --- the table ---------------------------------------------------------------------------
    def active_criteria(self) -> list[str]:
        return [self.spots[spot][-1]["card"] for spot in CRITERION_SPOTS if self.spots[spot]]

    def active_case(self) -> str:
        return self.deck.specials[self.spots[CASE_SPOT][-1]["card"]].case if self.spots[CASE_SPOT] else DEFAULT_CASE

    def alive(self, seat: int) -> bool:
        return seat not in self.failed_seats

    def table_cards(self) -> list[str]:
        """Every card on the table this round, in the order the winners collect them."""
        cards = [entry["card"] for spot in SPOTS for entry in self.spots[spot]]
        cards += [play["card"] for play in self.plays if play]
        return cards + self.penalties

    # --- GameState ---------------------------------------------------------------------------
    def current_player(self):
        return None if self.phase == "over" or self._forfeited else self.order[self.turn]

    def legal_actions(self):
        seat = self.current_player()
        return [] if seat is None else self._options(seat)

    def scores(self):
        return [float(len(stack)) for stack in self.victory]

    def _rules_over(self):
        return self.phase == "over"

    def _options(self, seat: int) -> list[dict]:
        hand = sorted(set(self.hands[seat]))
        options: list[dict] = []
        if self.phase == "special":
            for card in hand:
                if not self.deck.is_algorithm(card):
                    options += self._special_plays(card)
        elif self.phase == "algorithm":
            options += [{"action": "play", "card": card} for card in hand if self.deck.is_algorithm(card)]
        else:
            options += [{"action": "question", "seat": other} for other in self._questionable(seat)]
        if self.phase != "algorithm":
            options += self._robberies(seat, hand)
        options.append({"action": "pass"})
        if self.phase == "algorithm":
            options += [{"action": "pass", "discard": card} for card in hand if self.stacks[self._kind(card)]]
        return options

    def _special_plays(self, card: str) -> list[dict]:
        kind = self.deck.specials[card].kind
        if kind == "case":
            return [{"action": "play", "card": card, "spot": CASE_SPOT}]
        if kind != "criterion":
            return []
        empty = [spot for spot in CRITERION_SPOTS if not self.spots[spot]]
        # Covering is allowed only when both criterion spots are full.
        return [{"action": "play", "card": card, "spot": spot} for spot in (empty[:1] or CRITERION_SPOTS)]

    def _questionable(self, seat: int) -> list[int]:
        return [other for other, play in enumerate(self.plays)
                if other != seat and play and play["ruling"] is None and self.alive(other)]

    def _robberies(self, seat: int, hand: list[str]) -> list[dict]:
        options = []
        for card in hand:
            robbery = self.deck.specials.get(card)
            if not robbery or robbery.kind != "robbery":
                continue
            if robbery.takes == "algorithm" and self.phase == "question":
                case = self.active_case()
                options += [{"action": "rob", "card": card, "seat": other} for other, play in enumerate(self.plays)
                            if other != seat and play
                            and (robbery.requires is None
                                 or robbery.requires.holds(self.deck.algorithms[play["card"]], case))]
            elif robbery.takes != "algorithm" and self.phase == "special":
                spots = CRITERION_SPOTS if robbery.takes == "criterion" else (CASE_SPOT,)
                options += [{"action": "rob", "card": card, "spot": spot} for spot in spots
                            if self.spots[spot] and self.spots[spot][-1]["seat"] != seat]
        return options

    def _kind(self, card: str) -> str:
        return "algorithm" if self.deck.is_algorithm(card) else "special"

    # --- applying actions --------------------------------------------------------------------
    def _apply(self, action):
        seat = self.current_player()
        kind = action["action"]
        if kind == "rob":
            self._rob(seat, action)
            self._settle()  # a robbery is an extra decision: the seat keeps its turn
            return
        if kind == "play" and self.phase == "special":
            self._play_special(seat, action["card"], action["spot"])
        elif kind == "play":
            self._play_algorithm(seat, action["card"])
        elif kind == "question":
            self._question(seat, action["seat"])
        elif self.phase == "algorithm":
            self._pass_algorithm(seat, action.get("discard"))
        self.turn += 1
        self._settle()

    def _play_special(self, seat: int, card: str, spot: str) -> None:
        self.hands[seat].remove(card)
        covered = self.spots[spot][-1]["card"] if self.spots[spot] else None
        self.spots[spot].append({"card": card, "seat": seat})
        name = self.deck.specials[card].name
        text = f"seat {seat} plays '{name}' on {spot}"
        if covered:
            text += f", covering '{self.deck.specials[covered].name}'"
        self._note(seat, "special", text)

    def _play_algorithm(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        ruling = judge(self.deck, card, self.active_criteria(), self.active_case())
        # `valid` is the referee's knowledge; seats learn it only if someone questions the card.
        self.plays[seat] = {"card": card, "ruling": None, "questioned_by": None, "valid": ruling.valid}
        self._note(seat, "algorithm", f"seat {seat} plays {self.deck.algorithms[card].name}",
                   hidden={"ruling": ruling.explanation, "valid": ruling.valid})

    def _pass_algorithm(self, seat: int, discard: str | None) -> None:
        text = f"seat {seat} plays no algorithm"
        if self.victory[seat]:
            self.penalties.append(self.victory[seat].pop())
            text += " and puts a victory card into the round's pot as the penalty"
        else:
            text += " (no victory card to give as the penalty)"
        hidden = {}
        if discard is not None:
            self.hands[seat].remove(discard)
            self.discarded.append(discard)
            drawn = self._draw(self._kind(discard))
            self.hands[seat].append(drawn)
            text += f"; discards a card and draws a new {self._kind(discard)} card"
            hidden = {"discarded": discard, "drawn": drawn}
        self._note(seat, "pass", text, hidden=hidden)

    def _question(self, seat: int, other: int) -> None:
        play = self.plays[other]
        ruling = judge(self.deck, play["card"], self.active_criteria(), self.active_case())
        play["questioned_by"] = seat
        play["ruling"] = "valid" if ruling.valid else "invalid"
        giver, receiver = (seat, other) if ruling.valid else (other, seat)
        moved = self._give_victory_card(giver, receiver)
        outcome = (f"seat {giver} gives a victory card to seat {receiver}" if moved
                   else f"seat {giver} has no victory card to give to seat {receiver}")
        self._note(seat, "question", f"seat {seat} questions seat {other}: {ruling.explanation}; {outcome}",
                   ruling=play["ruling"], target=other)

    def _rob(self, seat: int, action: dict) -> None:
        robbery = self.deck.specials[action["card"]]
        self.hands[seat].remove(robbery.id)
        if "spot" in action:
            taken = self.spots[action["spot"]].pop()
            victim, card = taken["seat"], taken["card"]
            why = f"'{self.deck.specials[card].name}' is a {robbery.takes} card"
            uncovered = self.spots[action["spot"]]
            if uncovered:
                why += f"; '{self.deck.specials[uncovered[-1]['card']].name}' below it is active again"
        else:
            victim = action["seat"]
            card = self.plays[victim]["card"]
            self.plays[victim] = None
            algorithm = self.deck.algorithms[card]
            why = (f"{robbery.requires.finding(algorithm, self.active_case())}" if robbery.requires
                   else f"{algorithm.name} is an algorithm card")
        self.victory[seat] += [robbery.id, card]
        self._note(seat, "robbery", f"seat {seat} robs seat {victim}'s {self.deck.card(card).name} "
                                   f"with '{robbery.name}': {why}; both cards go to seat {seat}'s victory stack")

    # --- turns and rounds --------------------------------------------------------------------
    def _settle(self) -> None:
        """Move the turn to the next seat that has a decision, through phases and rounds."""
        while self.phase != "over":
            if self.turn >= len(self.order):
                if self.phase == "question":
                    self._finish_round()
                    continue
                self.phase = PHASES[PHASES.index(self.phase) + 1]
                self.turn = 0
                continue
            seat = self.order[self.turn]
            # Seats are asked only when they have a choice; in the algorithm phase passing always is one.
            if self.alive(seat) and (self.phase == "algorithm" or len(self._options(seat)) > 1):
                return
            self.turn += 1

    def _start_round(self) -> None:
        self.round += 1
        self.order = [seat for offset in range(self.num_players)
                      if self.alive(seat := (self.starter + offset) % self.num_players)]
        self.phase = "special"
        self.turn = 0
        self._clear_table()
        self._settle()

    def _clear_table(self) -> None:
        self.spots = {spot: [] for spot in SPOTS}
        self.plays: list[dict | None] = [None] * self.num_players
        self.penalties: list[str] = []

    def _finish_round(self) -> None:
        case, case_played = self.active_case(), bool(self.spots[CASE_SPOT])
        contenders = {seat: play["card"] for seat in self.order
                      if (play := self.plays[seat]) and play["ruling"] != "invalid" and self.alive(seat)}
        bluffs = {seat: judge(self.deck, play["card"], self.active_criteria(), case).explanation
                  for seat, play in enumerate(self.plays)
                  if play and play["ruling"] is None and not play["valid"] and self.alive(seat)}
        pot = self.carried + self.table_cards()
        self._clear_table()
        winners = round_winners(self.deck, contenders, case)
        if winners:
            # Ruling: equal shares in turn order; a remainder waits on the table for the next winner.
            share = len(pot) // len(winners)
            for index, seat in enumerate(winners):
                self.victory[seat] += pot[index * share:(index + 1) * share]
            self.carried = pot[share * len(winners):]
            split = (f"seat {winners[0]} takes {len(pot)} card(s)" if len(winners) == 1 else
                     f"{len(pot)} card(s) shared, {share} each" + (f", {len(self.carried)} carried to the next round"
                                                                   if self.carried else ""))
            text = f"round {self.round}: {explain_winners(self.deck, contenders, winners, case, case_played)}; {split}"
        else:
            self.carried = pot
            text = f"round {self.round}: no algorithm stands, no winner; {len(pot)} card(s) wait for the next round's winner"
        self._note(None, "round", text, winners=winners)
        for seat, explanation in bluffs.items():
            drawn = [card for card in (self._draw(self._larger_stack()) for _ in range(BLUFF_REWARD)) if card]
            self.victory[seat] += drawn
            self._note(seat, "bluff", f"nobody questioned seat {seat}'s card and {explanation}; "
                                      f"seat {seat} draws {len(drawn)} card(s) to its victory stack")
        for seat in self.order:
            if self.alive(seat):
                self._refill(seat)
        if not self.stacks["algorithm"] or not self.stacks["special"] or self.round >= self.config["max_rounds"]:
            self.phase = "over"
            reason = "a stack is empty" if self.round < self.config["max_rounds"] else "the round limit is reached"
            self._note(None, "end", f"the game ends after round {self.round}: {reason}")
            return
        self.starter = next(seat for offset in range(1, self.num_players + 1)
                            if self.alive(seat := (self.starter + offset) % self.num_players))
        self._start_round()

    def _refill(self, seat: int) -> None:
        """Draw back to the deal's mix (3 algorithms, 2 specials): 5 cards with at least one of each kind."""
        for kind, wanted in HAND_MIX.items():
            while sum(self._kind(card) == kind for card in self.hands[seat]) < wanted and self.stacks[kind]:
                self.hands[seat].append(self._draw(kind))

    def _draw(self, kind: str) -> str | None:
        return self.stacks[kind].pop() if self.stacks[kind] else None

    def _larger_stack(self) -> str:
        return "algorithm" if len(self.stacks["algorithm"]) >= len(self.stacks["special"]) else "special"

    def _give_victory_card(self, giver: int, receiver: int) -> bool:
        """The giver's top victory card (the last it won) goes to the receiver; False if it has none."""
        if not self.victory[giver]:
            return False
        self.victory[receiver].append(self.victory[giver].pop())
        return True

    def _note(self, seat: int | None, event: str, text: str, hidden: dict | None = None, **public) -> None:
        self.log.append(Note(round=self.round, step=self.step, seat=seat, event=event, text=text,
                             **public, **({"hidden": hidden} if hidden else {})))

    def hidden_variant(self, seat, rng):
        """The other seats' hands and both stacks dealt again from the same cards, kind by kind (each hand
        keeps how many algorithm and special cards it holds)."""
        others = [other for other in range(self.num_players) if other != seat]
        variant = self.clone()
        for kind, stack in self.stacks.items():
            pool = [card for other in others for card in self.hands[other] if self._kind(card) == kind] + stack
            rng.shuffle(pool)
            for other in others:
                size = sum(self._kind(card) == kind for card in self.hands[other])
                variant.hands[other] = [card for card in variant.hands[other] if self._kind(card) != kind] + pool[:size]
                del pool[:size]
            variant.stacks[kind] = pool
        return variant

    # --- failures ----------------------------------------------------------------------------
    def _drop_seat(self, seat: int) -> bool:
        """Three or more seats play on: the failed seat's hand is discarded, its algorithm on the table
        stays in the pot but cannot win, and its victory stack stays (it places last anyway)."""
        if self.num_players < 3:
            return False
        self.discarded += self.hands[seat]
        self.hands[seat] = []
        if self.plays[seat]:
            self.plays[seat]["ruling"] = "withdrawn"
        self._note(seat, "failure", f"seat {seat} is out: its hand is discarded")
        self._settle()
        return True

    # --- views -------------------------------------------------------------------------------
    def _observe(self, seat: int) -> dict:
        full = seat == -1
        view = {
            "round": self.round,
            "phase": self.phase,
            "starter": self.starter,
            "to_move": self.current_player(),
            "robbery": self.config["robbery"],
            "active": {"criteria": self.active_criteria(), "case": self.active_case(),
                       "case_played": bool(self.spots[CASE_SPOT])},
            "spots": {spot: [dict(entry) for entry in self.spots[spot]] for spot in SPOTS},
            "plays": [self._play_view(play, full) for play in self.plays],
            "penalties": len(self.penalties),
            "carried": len(self.carried),
            "stacks": {kind: len(stack) for kind, stack in self.stacks.items()},
            "discarded": len(self.discarded),
            "hand_sizes": [len(hand) for hand in self.hands],
            "victory_sizes": [len(stack) for stack in self.victory],
            "failed": self.failed_seats,
            "log": [self._log_view(entry, full) for entry in self.log if entry["round"] > self.round - LOG_ROUNDS_SHOWN],
            "cards": self.deck.catalogue,
            "complexity_order": self.deck.complexity_order,
        }
        if full:
            view.update(hands=[sorted(hand) for hand in self.hands], victory=[list(s) for s in self.victory],
                        stack_cards={kind: list(stack) for kind, stack in self.stacks.items()},
                        discarded_cards=list(self.discarded), carried_cards=list(self.carried),
                        penalty_cards=list(self.penalties))
        else:
            view.update(hand=sorted(self.hands[seat]), victory=list(self.victory[seat]))
        # A JSON round trip: bots may mutate what they get (the catalogue and notes are shared), and it
        # proves the view is JSON; much faster than a deep copy.
        return json.loads(json.dumps(view))

    def _public(self, view):
        """Every seat's view but for its own hand and victory stack (the others see only their sizes)."""
        return {key: value for key, value in view.items() if key not in ("hand", "victory")}

    def _action_label(self, view, action):
        names = {card_id: card["name"] for card_id, card in view["cards"].items()}
        kind = action["action"]
        if kind == "play" and "spot" in action:
            covered = view["spots"][action["spot"]]
            covering = f", covering '{names[covered[-1]['card']]}'" if covered else ""
            return f"play '{names[action['card']]}' on {action['spot']}{covering}"
        if kind == "play":
            return f"play {names[action['card']]}"
        if kind == "question":
            return f"question seat {action['seat']}'s {names[view['plays'][action['seat']]['card']]}"
        if kind == "rob":
            taken = view["spots"][action["spot"]][-1] if "spot" in action else {**view["plays"][action["seat"]],
                                                                                "seat": action["seat"]}
            where = f" from {action['spot']}" if "spot" in action else ""
            return f"rob seat {taken['seat']}'s {names[taken['card']]}{where} with '{names[action['card']]}'"
        if "discard" in action:
            return f"play no algorithm and discard {names[action['discard']]} for a new card"
        return {"algorithm": "play no algorithm", "special": "play no special card"}.get(view["phase"],
                                                                                         "question no one")

    @staticmethod
    def _play_view(play: dict | None, full: bool) -> dict | None:
        if play is None:
            return None
        shown = {key: play[key] for key in ("card", "ruling", "questioned_by")}
        if full:
            shown["valid"] = play["valid"]
        return shown

    @staticmethod
    def _log_view(entry: dict, full: bool) -> dict:
        return dict(entry) if full else {key: value for key, value in entry.items() if key != "hidden"}

