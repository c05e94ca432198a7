"""Sprouts on Dan Hoey's boundary-list notation, played with the seed's card procedures (seed 002).

Normal play: the last player to move wins. Misere play: the last player to move loses.
"""

from __future__ import annotations

from ..contracts import AnalysisRow, Replay, actions
from ..core import ConfigError, Game, GameState
from . import bots, drawing, solver
from .notation import (
    NotationError, Position, format_position, initial_position, named_moves, parse_position, spot_lives,
)
from .wgosa import read_wgosa, write_wgosa

# Classroom games go up to 10 spots. Their first moves cannot be solved within a page's wait (bench/
# sprouts_solver.py), so the analysis is given a time per move (ANALYSIS_SECONDS) and says "not settled"
# past it; every position solved meanwhile is kept in the shared store and answers at once next time.
MAX_SPOTS = 10
ANALYSIS_SECONDS = 1.5  # with the position set-up around it, an answer within 2 s


class SproutsState(GameState):
    def __init__(self, game, num_players, config, seed):
        super().__init__(game, num_players, config, seed)
        self.position: Position = initial_position(config["spots"])
        self.moves: list[str] = []
        self._named = None
        self._labelled = None  # the drawing's embedding (drawing.py), kept up only once a full view asked for it

    def _named_moves(self):
        if self._named is None:
            self._named = named_moves(self.position)
        return self._named

    def current_player(self):
        return None if self.is_terminal() else len(self.moves) % 2

    def legal_actions(self):
        if self._forfeited:
            return []
        return [move_action(name, move) for name, move in self._named_moves()]

    def _rules_over(self):
        return not self._named_moves()

    def _observe(self, seat):
        view = {
            **position_view(self.position),
            "spots": self.config["spots"],
            "misere": self.config["misere"],
            "to_move": self.current_player(),
            "moves": list(self.moves),
        }
        if seat == -1:  # the full view (replays): the picture too, which bots have no use for
            view["drawing"] = drawing.svg(self._drawing(), last_move=len(self.moves) or None)
            view["region_fills"] = [drawing.region_fill(index) for index in range(len(self.position))]
        return view

    def picture(self):
        """The drawing as the replay shows it, and the region (numbered as the drawing's and the card view's
        rows) each legal move draws its line through: a person picking a move sees where it goes."""
        return {"drawing": drawing.svg(self._drawing(), last_move=len(self.moves) or None),
                "region_fills": [drawing.region_fill(index) for index in range(len(self.position))],
                "move_regions": {} if self.is_terminal() else {name: move.region + 1 for name, move in self._named_moves()}}

    def _drawing(self):
        if self._labelled is None:
            labelled, position = drawing.labelled_start(self.config["spots"]), initial_position(self.config["spots"])
            for number, name in enumerate(self.moves, start=1):
                move = dict(named_moves(position))[name]
                labelled, position = drawing.apply_move(labelled, move, number), move.result
            self._labelled = labelled
        return self._labelled

    def _apply(self, action):
        move = dict(self._named_moves())[action["move"]]
        self.position = move.result
        self.moves.append(action["move"])
        self._named = None
        if self._labelled is not None:
            self._labelled = drawing.apply_move(self._labelled, move, len(self.moves))

    def _public(self, view):
        return view  # nothing is hidden: the drawing and the moves are on the table

    def _action_label(self, view, action):
        return move_words(action)

    def scores(self):
        if self._forfeited or not self._rules_over():
            return [0, 0]
        last_mover = (len(self.moves) - 1) % 2
        winner = 1 - last_mover if self.config["misere"] else last_mover
        return [1 if seat == winner else 0 for seat in range(2)]


def move_action(name: str, move) -> dict:
    """A move as bots see and return it: its WGOSA text, its parts, and the position it leads to."""
    return {
        "move": name,
        "kind": move.kind,
        "spots": sorted(move.spots),
        "new_spot": move.new_spot,
        "position": format_position(move.result),
    }


def move_words(action: dict) -> str:
    """A move in words, for a person choosing it and for a replay alike: its notation, the line and the effect."""
    low, high = action["spots"]
    effect = "joining two boundaries" if action["kind"] == "join" else "dividing a region"
    return f"{action['move']}: a line from {low} to {high} through the new spot {action['new_spot']}, {effect}"


def position_view(position: Position) -> dict:
    """The position as the notation's text and as JSON (rows of stacks of cards) with every spot's lives."""
    lives = spot_lives(position)
    return {
        "position": format_position(position),
        "rows": [[list(stack) for stack in row] for row in position],
        "lives": {str(spot): lives[spot] for spot in sorted(lives)},
    }


class Sprouts(Game):
    name = "sprouts"
    title = "Sprouts"
    time_limits = {"setup": 5.0, "decision": 1.0, "bank": 10.0}

    def default_config(self):
        return {"spots": 5, "misere": False}

    def check_config(self, config):
        spots = config["spots"]
        if not isinstance(spots, int) or isinstance(spots, bool) or not 1 <= spots <= MAX_SPOTS:
            raise ConfigError(f"spots must be an integer from 1 to {MAX_SPOTS} (larger games cannot be analysed "
                              f"within the time limits), not {spots!r}")
        if not isinstance(config["misere"], bool):
            raise ConfigError(f"misere must be true or false, not {config['misere']!r}")

    def _initial_state(self, num_players, config, seed):
        return SproutsState(self, num_players, config, seed)

    def builtin_bots(self):
        return dict(bots.BUILTIN)

    def analyse(self, replay):
        config, names = self._played(replay)
        return solver.analyse_moves(initial_position(config["spots"]), names, config["misere"], ANALYSIS_SECONDS)

    def analyse_move(self, replay: Replay, step: int, seconds: float = ANALYSIS_SECONDS) -> AnalysisRow:
        """The analysis of move `step` alone (0: the first), for a viewer that streams it in move by move."""
        config, names = self._played(replay)
        if not 0 <= step < len(names):
            raise IndexError(f"this game has {len(names)} moves: no move {step}")
        # Each action carries the position it led to: the positions before and after move `step` without
        # replaying the moves before it or listing the moves of the one before (a 10-spot start has 2,605).
        played = actions(replay)
        position = parse_position(played[step - 1]["position"]) if step else initial_position(config["spots"])
        return solver.analyse_move(position, names[step], step, config["misere"], seconds,
                                   result=parse_position(played[step]["position"]))

    def _played(self, replay):
        return self.configure(replay["config"]), [action["move"] for action in actions(replay)]

    def describe_action(self, state, action):
        return move_words(action)

    def render(self, state, seat=None):
        return render_position(state.position)


def render_position(position: Position) -> str:
    """One line per row (region), its stacks (boundaries) in brackets, then the live spots."""
    lives = spot_lives(position)
    lines = [f"  region {index + 1}: " + "  ".join(f"[{' '.join(map(str, stack))}]" for stack in row)
             for index, row in enumerate(position)]
    alive = ", ".join(f"{spot}:{lives[spot]}" for spot in sorted(lives) if lives[spot])
    return "\n".join([format_position(position), *lines, f"  live spots (spot:lives): {alive or 'none'}"])


GAME = Sprouts()

__all__ = ["GAME", "MAX_SPOTS", "NotationError", "parse_position", "read_wgosa", "write_wgosa"]
