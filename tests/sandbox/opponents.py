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


class CpuWatchingOpponent(SlowOpponent):
    """The greedy built-in that thinks until the sandboxed bot it faces (`watch`) has used `cpu` seconds of
    CPU since this turn began, or `patience` seconds have passed: a bot that computes between turns is
    sure to have done so however busy the host is, and an idle one waits out the patience."""

    def __init__(self, cpu: float, patience: float):
        super().__init__(patience)
        self.cpu = cpu
        self.watched = None
        # Seconds this opponent spent thinking over the match.
        self.thought = 0.0

    def watch(self, player) -> None:
        self.watched = player

    def act(self, observation):
        began = time.monotonic()
        start = self.watched._cpu_seconds()
        while (time.monotonic() - began < self.seconds
               and self.watched._cpu_seconds() - start < self.cpu):
            time.sleep(0.02)
        self.thought += time.monotonic() - began
        return self.inner.act(observation)
