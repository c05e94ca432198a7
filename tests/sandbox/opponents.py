"""Opponents for sandboxed bots in the sandbox tests."""

from __future__ import annotations

import time

from games import get_game
from games.bots import builtin_player


class SlowOpponent:
    """A legal opponent (the greedy built-in) that thinks for `seconds` per move: time a bot could compute in."""

    def __init__(self, seconds: float):
        self.name = "slow greedy"
        self.seconds = seconds
        self.inner = builtin_player(get_game("endgame"), "greedy")

    def start(self, info):
        self.inner.start(info)

    def act(self, observation):
        time.sleep(self.seconds)
        return self.inner.act(observation)

    def close(self):
        return ""
