"""End Game: take the larger end."""


def act(observation):
    board = observation["board"]
    return "left" if board[0] >= board[-1] else "right"
