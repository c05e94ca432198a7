"""End Game: take the end that leaves the opponent the smaller best reply (one move of lookahead)."""


class Bot:
    def setup(self, info):
        self.seat = info["seat"]

    def act(self, observation):
        board = observation["board"]
        if len(board) <= 2:
            return "left" if board[0] >= board[-1] else "right"
        after_left = board[0] - max(board[1], board[-1])
        after_right = board[-1] - max(board[0], board[-2])
        return "left" if after_left >= after_right else "right"
