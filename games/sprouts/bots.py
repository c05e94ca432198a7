"""Built-in Sprouts bots: `random`, and `optimal` from the solver."""

from __future__ import annotations

from ..baseline import RandomBot
from . import solver
from .notation import parse_position


# Finding the longest game left means searching the whole game tree: done only once few lives remain.
EXACT_LENGTH_LIVES = 9
# The solver's search per decision, well inside the game's 1 s decision limit; a position not solved in
# it is played by the fallback below (the shared store makes later games wiser).
THINK_SECONDS = 0.5


class OptimalBot:
    """A winning move whenever there is one (the first listed). In a lost position, the move after which
    the longest game can still be played, leaving the opponent the most room to go wrong; while more than
    EXACT_LENGTH_LIVES lives are left, that search is too long, and the move leaving the most regions
    still playable stands in for it. That stand-in also plays any position the solver cannot settle
    within THINK_SECONDS (a large game's first moves beyond the opening book)."""

    # Its moves depend on the position alone (the solver's caches are shared, not its memory): at a table,
    # where each decision starts it afresh, it is not asked its earlier searches of up to THINK_SECONDS again.
    keeps_state = False

    def act(self, obs):
        misere = obs["misere"]
        results = [solver.components_of(parse_position(action["position"])) for action in obs["legal_actions"]]
        lives_after = sum(obs["lives"].values()) - 1  # every move costs one life
        try:
            with solver.deadline(THINK_SECONDS):
                for action, game in zip(obs["legal_actions"], results):
                    if not solver.outcome(game, misere):  # the opening book answers the first moves at once
                        return action
                if lives_after <= EXACT_LENGTH_LIVES:
                    room = [solver.game_length(game) for game in results]
                    return obs["legal_actions"][room.index(max(room))]
        except solver.SolveTimeout:
            pass
        # Counting each result's own moves would cost minutes at 10 spots (2,605 first moves): the number
        # of regions still playable after the move stands in for the room left.
        room = [sum(len(component) for component in game) for game in results]
        return obs["legal_actions"][room.index(max(room))]


BUILTIN = {"random": RandomBot, "optimal": OptimalBot}
