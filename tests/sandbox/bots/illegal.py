"""Answers with an action that is never legal."""


class Bot:
    def act(self, observation):
        return "middle"
