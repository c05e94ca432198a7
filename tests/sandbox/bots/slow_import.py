"""Takes far longer to import than the setup limit allows."""
import time

time.sleep(3600)


def act(observation):
    return observation["legal_actions"][0]
