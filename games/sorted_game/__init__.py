"""Sorted!: four seats sort sixteen cards they hold facing away, in as few turns as the deal allows (seed 001).

The rules as implemented, every ruling and the score are in docs/bots/sorted.md.
"""

from __future__ import annotations

from ..core import ConfigError, Game, ScoreOrder
from . import bots, solver
from .solver import DECLARE, HAND, SEATS, DealError, swap_action
from .state import ORDINALS, SortedState
MAX_TURNS_RANGE = (12, 1000)  # every deal can be sorted within 12 turns


class Sorted(Game):
    name = "sorted"
    title = "Sorted!"
    min_players = max_players = default_players = SEATS
    cooperative = True
    score_order = ScoreOrder.LOWER_IS_BETTER
    perfect_score = 0  # the declare on the fewest turns the deal allows
    time_limits = {"setup": 5.0, "decision": 1.0, "bank": 10.0}

    def default_config(self):
        return {"max_turns": 40, "beginner_tip": False, "deal": None}

    def check_config(self, config):
        low, high = MAX_TURNS_RANGE
        turns = config["max_turns"]
        if not isinstance(turns, int) or isinstance(turns, bool) or not low <= turns <= high:
            raise ConfigError(f"max_turns must be an integer from {low} to {high}, not {turns!r}")
        if not isinstance(config["beginner_tip"], bool):
            raise ConfigError("beginner_tip must be true or false")
        if config["deal"] is not None:
            if not isinstance(config["deal"], str):
                raise ConfigError('deal must be null (a seeded deal) or text such as "2143/1234/3412/4321"')
            try:
                solver.parse_deal(config["deal"])
            except DealError as exc:
                raise ConfigError(str(exc)) from exc

    def _initial_state(self, num_players, config, seed):
        return SortedState(self, num_players, config, seed)

    def builtin_bots(self):
        return dict(bots.BUILTIN)

    def describe_action(self, state, action):
        if action["action"] == "declare":
            return "declares: " + ("every hand is sorted, the team wins" if state.is_sorted() else
                                   "the hands are not sorted, the team loses")
        mover = state.current_player()
        mine = state.cards[mover * HAND + action["mine"] - 1]
        theirs = state.cards[action["seat"] * HAND + action["theirs"] - 1]
        text = (f"swaps its {ORDINALS[action['mine']]} card ({mine}) with seat {action['seat']}'s "
                f"{ORDINALS[action['theirs']]} card ({theirs})")
        return text + (": equal cards, a pass" if mine == theirs else "")

    def render(self, state, seat=None):
        view = state.full_view() if seat is None else state.observation(seat)
        lines = []
        for holder, cards in enumerate(view["hands"]):
            shown = " ".join(_card(card, turned) for card, turned in zip(cards, view["turned"][holder]))
            lines.append(f"seat {holder}{' (you)' if holder == seat else '':<6} {shown}")
        if view["over"]:
            result = "won" if view["won"] else "lost"
            lines.append(f"game over at turn {view['turn']}: {result}, team score {view['team_score']} (lower is better)")
        else:
            lines.append(f"turn {view['turn']} of at most {view['max_turns']}: seat {view['to_move']} to move")
        return "\n".join(lines)

    def analyse(self, replay):
        """After each turn, the turns the team still needs under optimal play; a wasted turn loses a point."""
        from .analysis import analyse

        return analyse(replay)


def _card(card, turned: bool) -> str:
    """A card as the table shows it: `?` when held facing away from the viewer, `*` when turned to its holder."""
    return ("?" if card is None else str(card)) + ("*" if turned else " ")


GAME = Sorted()

__all__ = ["DECLARE", "GAME", "Sorted", "swap_action"]
