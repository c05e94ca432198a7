"""Closes its own input after its first answer: the next message finds nobody reading."""
import os

answered = False


def act(observation):
    global answered
    if answered:
        raise AssertionError("the second message cannot reach a bot whose input is closed")
    answered = True
    os.close(0)
    return observation["legal_actions"][0]
