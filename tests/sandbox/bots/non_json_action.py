"""Answers with a Python value that has no JSON form."""


def act(observation):
    return set(observation["legal_actions"])
