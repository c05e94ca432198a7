"""A complete Sorted! bot: it works out what it can about its own hand, then fetches a misplaced card.

Play it as the whole team:  python -m games match sorted docs/bots/examples/sorted_example.py
"""

from collections import Counter


class Bot:
    def setup(self, info):
        self.seat = info["seat"]
        print(f"seat {self.seat}")  # prints go to your log, never to the referee

    def own_cards(self, obs):
        """My cards as far as I know them (None = unknown): every card that entered my hand by a swap was
        in someone else's hand just before, where I saw it; the history tells me its value."""
        known = list(obs["hands"][self.seat])  # turned cards (beginner tip) are shown, the rest is None
        for entry in obs["history"]:
            if entry["action"] == "swap" and entry["seat"] == self.seat:
                known[entry["mine"] - 1] = entry["took"]
            elif entry["action"] == "swap" and entry["other"] == self.seat:
                known[entry["theirs"] - 1] = entry["gave"]
        return known

    def act(self, obs):
        known = self.own_cards(obs)
        # Four copies of each value: what I cannot see anywhere is in my hand.
        unseen = Counter({value: 4 for value in (1, 2, 3, 4)})
        for seat, hand in enumerate(obs["hands"]):
            if seat != self.seat:
                unseen.subtract(hand)
        unseen.subtract(card for card in known if card is not None)
        misplaced = [(seat, pos + 1, card) for seat, hand in enumerate(obs["hands"]) if seat != self.seat
                     for pos, card in enumerate(hand) if card != pos + 1]
        if not misplaced and all(card == pos + 1 for pos, card in enumerate(known)):
            return {"action": "declare"}
        # Fetch a card I see out of place into my position where it belongs, if that position surely holds
        # something else: I know its card, or no copy of the wanted value can be in my hand.
        for seat, pos, card in misplaced:
            mine = known[card - 1]
            if mine is not None and mine != card or mine is None and unseen[card] == 0:
                return {"action": "swap", "mine": card, "seat": seat, "theirs": pos}
        # Give a card of mine I know is out of place to a seat whose position for it holds a wrong card.
        for pos, card in enumerate(known):
            for seat, theirs, wrong in misplaced:
                if card is not None and card != pos + 1 and theirs == card:
                    return {"action": "swap", "mine": pos + 1, "seat": seat, "theirs": theirs}
        # Otherwise look at one of my unknown cards: swap it with a card that belongs where it lies.
        # If mine was right already the cards are equal and nothing changes; if not, mine is now right.
        for pos, card in enumerate(known):
            if card is None:
                for seat, hand in enumerate(obs["hands"]):
                    if seat != self.seat and hand[pos] == pos + 1:
                        return {"action": "swap", "mine": pos + 1, "seat": seat, "theirs": pos + 1}
        # Take a misplaced card in exchange for my right one, so that a partner can see it and fix it.
        for seat, theirs, wrong in misplaced:
            if known[theirs - 1] == theirs:
                return {"action": "swap", "mine": theirs, "seat": seat, "theirs": theirs}
        # Nothing better: fetch a misplaced card I see anyway, or make the first swap on offer.
        if misplaced:
            seat, pos, card = misplaced[0]
            return {"action": "swap", "mine": card, "seat": seat, "theirs": pos}
        return next(action for action in obs["legal_actions"] if action["action"] == "swap")
