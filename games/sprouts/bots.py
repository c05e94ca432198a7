"""Built-in Sprouts bots: `random`, and `optimal` from the solver."""

from __future__ import annotations

from ..baseline import RandomBot
from . import solver
from .notation import parse_position


class OptimalBot:
    """A winning move whenever there is one (the first listed); in a lost position, the move after which
    the most moves can still be played, to leave the opponent the longest game to go wrong in."""

    def act(self, obs):
        misere = obs["misere"]
        results = [solver.components_of(parse_position(action["position"])) for action in obs["legal_actions"]]
        for action, game in zip(obs["legal_actions"], results):
            if not solver.mover_wins(game, misere):
                return action
        lengths = [solver.game_length(game) for game in results]
        return obs["legal_actions"][lengths.index(max(lengths))]


BUILTIN = {"random": RandomBot, "optimal": OptimalBot}
