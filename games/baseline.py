"""Baseline bots every game can offer, whatever its rules."""

from __future__ import annotations

import random


class RandomBot:
    """Any legal action, at random (from `rng_seed` when the referee gives one, so seeded matches repeat)."""

    rng = random.Random()

    def setup(self, info):
        self.rng = random.Random(info.get("rng_seed"))

    def act(self, obs):
        return self.rng.choice(obs["legal_actions"])
