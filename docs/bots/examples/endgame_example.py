"""An End Game bot that looks two moves ahead: take the end that leaves the opponent the worse choice.

Try it: python -m games match endgame docs/bots/examples/endgame_example.py builtin:greedy
"""


class Bot:
    def setup(self, info):
        # info: {"game": "endgame", "seat": 0 or 1, "num_players": 2, "config": {...}, "time_limits": {...}}
        self.seat = info["seat"]
        print(f"playing seat {self.seat}")  # prints go to your log, never to the referee

    def act(self, observation):
        board = observation["board"]
        if len(board) == 1:
            return observation["legal_actions"][0]

        def worst_reply(rest):
            # The opponent then takes the larger end of what we leave.
            return max(rest[0], rest[-1])

        left = board[0] - worst_reply(board[1:])
        right = board[-1] - worst_reply(board[:-1])
        return "left" if left >= right else "right"
