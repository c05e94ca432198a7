"""Takes SECONDS in setup (sleeping), then plays at once."""
import time

SECONDS = 1.5


def setup(info):
    time.sleep(SECONDS)


def act(observation):
    return observation["legal_actions"][0]
