"""Built-in Sprouts bots: `random`, and `optimal` from the solver."""

from __future__ import annotations

from ..baseline import RandomBot
from . import solver
from .notation import named_moves, parse_position


# Finding the longest game left means searching the whole game tree: done only once few lives remain.
EXACT_LENGTH_LIVES = 9


class OptimalBot:
    """A winning move whenever there is one (the first listed). In a lost position, the move after which
    the longest game can still be played, leaving the opponent the most room to go wrong; while more than
    EXACT_LENGTH_LIVES lives are left, that search is too long, and the move leaving the opponent the
    most moves to choose from stands in for it."""

    def act(self, obs):
        misere = obs["misere"]
        results = [solver.components_of(parse_position(action["position"])) for action in obs["legal_actions"]]
        for action, game in zip(obs["legal_actions"], results):
            if not solver.mover_wins(game, misere):
                return action
        lives_after = sum(obs["lives"].values()) - 1  # every move costs one life
        if lives_after <= EXACT_LENGTH_LIVES:
            room = [solver.game_length(game) for game in results]
        else:
            room = [len(named_moves(parse_position(action["position"]))) for action in obs["legal_actions"]]
        return obs["legal_actions"][room.index(max(room))]


BUILTIN = {"random": RandomBot, "optimal": OptimalBot}
