"""Raises on its first decision."""


def act(observation):
    raise ValueError("the bot has a bug")
