"""A complete Crazy-KING bot: shed the costliest card, keep KINGs for when nothing else fits.

Play it offline:  python -m games match crazyking docs/bots/examples/crazyking_example.py builtin:random builtin:most-suit
"""

POINTS = {"K": 30, "A": 10, "Q": 10, "J": 10}


def points(card):
    rank = card[:-1]
    return POINTS.get(rank) or int(rank)


class Bot:
    def setup(self, info):
        self.seat = info["seat"]
        print(f"seat {self.seat} of {info['num_players']}")  # prints go to your log, never to the referee

    def act(self, observation):
        legal = observation["legal_actions"]
        if observation["pending"]:
            # A JACK or QUEEN is aimed at us: the legal actions are our KINGs (if any) and "pass".
            # Answer a QUEEN with a KING (no two extra cards); take a JACK's skip and keep the KING.
            if observation["pending"] == "Q" and legal[0] != "pass":
                return self.name_suit(legal[0], observation["hand"])
            return "pass"
        plain = [action for action in legal if action["play"][:-1] != "K"]
        if plain:
            return max(plain, key=lambda action: points(action["play"]))
        return self.name_suit(legal[0], observation["hand"])

    def name_suit(self, king_action, hand):
        """The KING action naming the suit we hold most of (the KING itself aside)."""
        rest = [card for card in hand if card != king_action["play"]]
        counts = {suit: sum(card.endswith(suit) for card in rest) for suit in "SHDC"}
        return {"play": king_action["play"], "suit": max(counts, key=counts.get)}
