"""Course starter for End Game. Fill in choose(); keep the rest.

Run it: python -m games match endgame mybot.py builtin:greedy
"""


def ends(board):
    """The two numbers you may take, as a dict action -> value."""
    return {"left": board[0], "right": board[-1]}


def remaining_after(board, action):
    """The board the opponent will see after you play action."""
    if action == "left":
        return board[1:]
    return board[:-1]


class Bot:
    def setup(self, info):
        self.seat = info["seat"]
        self.history = []

    def act(self, observation):
        board = observation["board"]
        if len(board) == 1:
            return observation["legal_actions"][0]
        action = self.choose(board, observation)
        self.history.append((len(board), action))
        return action

    def choose(self, board, observation):
        # TODO: your strategy here
        return "left"
