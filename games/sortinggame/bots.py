"""Built-in SortingGame bots: `random`, `honest` and `shrewd` (bluffs and questions from the deck data).

They judge cards with the referee's own rules (rules.py) on the deck named in the setup config.
"""

from __future__ import annotations

import random

from .deck import load_deck
from .rules import is_valid, time_of, valid_in_hand


class DeckBot:
    """Common ground: the seeded rng, the match's deck and the table read from an observation."""

    rng = random.Random()
    deck = None

    def setup(self, info):
        self.rng = random.Random(info.get("rng_seed"))
        self.deck = load_deck(info["config"].get("deck"))

    def _deck(self):
        if self.deck is None:  # act() without setup(): the standard deck
            self.deck = load_deck()
        return self.deck

    def valid_cards(self, obs, criteria=None, case=None) -> list[str]:
        """This hand's algorithm cards valid for the criteria and case (default: the active ones), fastest first."""
        criteria = obs["active"]["criteria"] if criteria is None else criteria
        return valid_in_hand(self._deck(), obs["hand"], criteria, case or obs["active"]["case"])

    def outpaced_share(self, card: str | None, criteria: list[str], case: str) -> float:
        """The share of the deck's algorithm cards that are valid and faster than `card` (1.0 for no card)."""
        if card is None:
            return 1.0
        deck = self._deck()
        mine = time_of(deck, card, case)
        total = sum(algorithm.copies for algorithm in deck.algorithms.values())
        faster = sum(algorithm.copies for algorithm in deck.algorithms.values()
                     if algorithm.value(case) < mine and is_valid(deck, algorithm.id, criteria, case))
        return faster / total

    def best_special(self, obs) -> dict:
        """The special-phase option that leaves this hand's best valid card least outpaced (pass on a tie)."""
        deck = self._deck()

        def outcome(action):
            criteria, case = list(obs["active"]["criteria"]), obs["active"]["case"]
            if action["action"] == "play" and deck.specials[action["card"]].kind == "case":
                case = deck.specials[action["card"]].case
            elif action["action"] == "play":
                top = obs["spots"][action["spot"]]
                if top:
                    criteria.remove(top[-1]["card"])
                criteria.append(action["card"])
            best = self.valid_cards(obs, criteria=criteria, case=case)
            return self.outpaced_share(best[0] if best else None, criteria, case)

        plays = [action for action in obs["legal_actions"] if action["action"] in ("play", "pass")]
        return min(plays, key=lambda action: (outcome(action), action["action"] != "pass"))

    def slowest_discard(self, obs) -> dict:
        """Passing: discard the algorithm card with the slowest worst case, if one can be replaced."""
        deck = self._deck()
        discards = [a for a in obs["legal_actions"] if a.get("discard") and deck.is_algorithm(a["discard"])]
        if not discards:
            return {"action": "pass"}
        return max(discards, key=lambda a: (time_of(deck, a["discard"], "worst"), a["discard"]))


class RandomBot(DeckBot):
    """Any legal action, uniformly at random (from `rng_seed` when given, so seeded matches repeat)."""

    def act(self, obs):
        return self.rng.choice(obs["legal_actions"])


class HonestBot(DeckBot):
    """Plays its fastest valid algorithm (or passes, discarding its slowest), never questions, robs when it can;
    its special card is the one that best suits its hand."""

    def act(self, obs):
        robberies = [a for a in obs["legal_actions"] if a["action"] == "rob"]
        if robberies:
            return robberies[0]
        if obs["phase"] == "special":
            return self.best_special(obs)
        if obs["phase"] == "algorithm":
            valid = self.valid_cards(obs)
            return {"action": "play", "card": valid[0]} if valid else self.slowest_discard(obs)
        return {"action": "pass"}


class ShrewdBot(DeckBot):
    """Questions exactly the invalid cards (the most threatening first), robs the strongest opponent, and
    bluffs when the expected gain beats honest play, given how often each opponent has caught a bluff."""

    def __init__(self):
        self.chances: dict[int, int] = {}  # seat -> finished rounds with another seat's invalid card on the table
        self.catches: dict[int, int] = {}  # seat -> of those, rounds in which it questioned an invalid card
        self.learned: set[int] = set()

    def act(self, obs):
        self._learn(obs)
        robberies = [a for a in obs["legal_actions"] if a["action"] == "rob"]
        if robberies:
            return self._best_robbery(obs, robberies)
        if obs["phase"] == "special":
            return self.best_special(obs)
        if obs["phase"] == "algorithm":
            return self._algorithm(obs)
        return self._question(obs)

    def _learn(self, obs) -> None:
        """From each finished round in the log: who had an invalid card to catch, and who caught one."""
        rounds: dict[int, list[dict]] = {}
        for entry in obs["log"]:
            rounds.setdefault(entry["round"], []).append(entry)
        for number, entries in rounds.items():
            if number in self.learned or not any(entry["event"] == "round" for entry in entries):
                continue
            self.learned.add(number)
            caught = [entry for entry in entries if entry["event"] == "question" and entry["ruling"] == "invalid"]
            bluffers = {entry["target"] for entry in caught} | {e["seat"] for e in entries if e["event"] == "bluff"}
            catchers = {entry["seat"] for entry in caught}
            for seat in range(len(obs["hand_sizes"])):
                if seat != obs["seat"] and bluffers - {seat}:
                    self.chances[seat] = self.chances.get(seat, 0) + 1
                    self.catches[seat] = self.catches.get(seat, 0) + (seat in catchers)

    def catch_rate(self, seat: int) -> float:
        # Laplace's rule: an opponent never yet tested catches a bluff half the time.
        return (self.catches.get(seat, 0) + 1) / (self.chances.get(seat, 0) + 2)

    def _win_chance(self, obs, card: str) -> float:
        """Chance that `card` wins: none if a valid card on the table is faster, else the chance that
        every seat still to play holds nothing valid and faster."""
        deck, case, criteria = self._deck(), obs["active"]["case"], obs["active"]["criteria"]
        mine = time_of(deck, card, case)
        for play in obs["plays"]:
            if play and play["ruling"] != "invalid" and is_valid(deck, play["card"], criteria, case) \
                    and time_of(deck, play["card"], case) < mine:
                return 0.0
        to_play = sum(1 for seat, play in enumerate(obs["plays"])
                      if play is None and seat != obs["seat"] and seat not in obs["failed"])
        # Each seat holds 3 algorithm cards: it beats us if any of them is valid and faster.
        per_card = self.outpaced_share(card, criteria, case)
        return (1 - per_card) ** (3 * to_play)

    def _algorithm(self, obs) -> dict:
        deck, case = self._deck(), obs["active"]["case"]
        # The cards the round's winner will take: those on the table, this card, and about one more.
        pot = len([p for p in obs["plays"] if p]) + obs["penalties"] + obs["carried"] + 2 \
            + sum(len(entries) for entries in obs["spots"].values())
        own_card_at_stake = 1 if obs["victory"] else 0
        choices = [(-own_card_at_stake, self.slowest_discard(obs))]
        valid = self.valid_cards(obs)
        if valid:
            choices.append((self._win_chance(obs, valid[0]) * pot, {"action": "play", "card": valid[0]}))
        bluffs = sorted((card for card in set(obs["hand"]) if deck.is_algorithm(card) and card not in valid),
                        key=lambda card: (time_of(deck, card, case), card))
        if bluffs:
            unseen = 1.0  # the chance that no opponent questions the bluff
            for seat in range(len(obs["hand_sizes"])):
                if seat != obs["seat"] and seat not in obs["failed"]:
                    unseen *= 1 - self.catch_rate(seat)
            gain = unseen * (self._win_chance(obs, bluffs[0]) * pot + 2) - (1 - unseen) * own_card_at_stake
            choices.append((gain, {"action": "play", "card": bluffs[0]}))
        return max(choices, key=lambda choice: choice[0])[1]

    def _question(self, obs) -> dict:
        deck, case, criteria = self._deck(), obs["active"]["case"], obs["active"]["criteria"]
        invalid = [a for a in obs["legal_actions"] if a["action"] == "question"
                   and not is_valid(deck, obs["plays"][a["seat"]]["card"], criteria, case)]
        if not invalid:
            return {"action": "pass"}
        return min(invalid, key=lambda a: (time_of(deck, obs["plays"][a["seat"]]["card"], case), a["seat"]))

    def _best_robbery(self, obs, robberies: list[dict]) -> dict:
        """Take the fastest opponent algorithm still in contention; in the special phase, any card."""
        deck, case = self._deck(), obs["active"]["case"]
        takes_algorithm = [action for action in robberies if "seat" in action]
        if not takes_algorithm:
            return robberies[0]

        def threat(action):
            play = obs["plays"][action["seat"]]
            return play["ruling"] == "invalid", time_of(deck, play["card"], case), action["seat"]

        return min(takes_algorithm, key=threat)


BUILTIN = {"random": RandomBot, "honest": HonestBot, "shrewd": ShrewdBot}
