"""A Sprouts bot that looks one move ahead: it prefers a move after which the opponent has no move
(normal play: that wins) or, in misere play, avoids such a move while it can; otherwise it leaves the
opponent as few moves as it can in normal play and as many as it can in misere play.

Try it: python -m games match sprouts docs/bots/examples/sprouts_example.py builtin:random --config '{"spots": 3}'
"""


def count_moves(position):
    """How many lines can be drawn in `position` (Hoey's notation), by the lives of its spots alone:
    two live spots in one region, or one spot with two lives, make a move possible there."""
    rows = [[stack.split(",") for stack in row.split(";")] for row in position.split("/")]
    cards = [card for row in rows for stack in row for card in stack]
    lives = {}
    for card in set(cards):
        copies = cards.count(card)
        alone = any(stack == [card] for row in rows for stack in row)
        lives[card] = 3 if alone else (2 if copies == 1 else 3 - copies)
    pairs = 0
    for row in rows:
        alive = sorted({card for stack in row for card in stack if lives[card] > 0})
        pairs += len(alive) * (len(alive) - 1) // 2 + sum(1 for card in alive if lives[card] >= 2)
    return pairs


class Bot:
    def setup(self, info):
        # info: {"game": "sprouts", "seat": 0 or 1, "num_players": 2, "config": {"spots": 5, "misere": false}, ...}
        print(f"playing seat {info['seat']}, config {info['config']}")  # prints go to your log

    def act(self, observation):
        misere = observation["misere"]
        actions = observation["legal_actions"]
        # Each action carries the position it leads to, in the same notation as observation["position"].
        room = [count_moves(action["position"]) for action in actions]
        if misere:
            best = max(range(len(actions)), key=lambda i: (room[i] > 0, room[i]))
        else:
            best = min(range(len(actions)), key=lambda i: room[i])
        return actions[best]
