"""Greedy End Game bot: always grab the bigger end."""


def act(observation):
    board = observation["board"]
    left, right = board[0], board[-1]
    if left > right:
        return "left"
    if right > left:
        return "right"
    # Tie: avoid uncovering a big number for the opponent.
    if len(board) > 2 and board[1] > board[-2]:
        return "right"
    return "left"
