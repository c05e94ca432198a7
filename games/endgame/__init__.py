"""End Game: take a number from either end of a list; the larger sum wins (seed 004)."""

from __future__ import annotations

from ..contracts import actions
from ..core import ConfigError, Game, GameState, check_int_option
from . import bots, solver

MOVES = list(solver.MOVES)
# A match is one decision per number: 500 decisions at the 1 s decision limit fit the platform's 600 s match
# deadline, and the solver's full table for the analysis stays small (5,000 numbers took 5 s and 200 MB).
MAX_LENGTH = 500
# Numbers stay exact in every JSON reader (within ±2^53) even summed over a whole board.
MAX_ABS_VALUE = 10**12


class EndGameState(GameState):
    def __init__(self, game: Game, num_players: int, config: dict, seed: int):
        super().__init__(game, num_players, config, seed)
        if config["board"] is not None:
            self.initial_board = [int(x) for x in config["board"]]
        else:
            low, high = config["min_value"], config["max_value"]
            self.initial_board = [self.rng.randint(low, high) for _ in range(config["length"])]
        # The remaining board is initial_board[left : right]; keeping offsets lets bots see original
        # positions, which the parity strategy needs.
        self.left = 0
        self.right = len(self.initial_board)
        self.points = [0, 0]
        self.moves: list[str] = []

    @property
    def board(self) -> list[int]:
        return self.initial_board[self.left : self.right]

    def current_player(self):
        return None if self.is_terminal() else len(self.moves) % 2

    def legal_actions(self):
        return list(MOVES) if not self.is_terminal() else []

    def _rules_over(self):
        return self.left >= self.right

    def _observe(self, seat):
        return {
            "board": self.board,
            "offset": self.left,
            "initial_length": len(self.initial_board),
            "scores": list(self.points),
            "to_move": self.current_player(),
            "moves": list(self.moves),
        }

    def _public(self, view):
        return view  # nothing is hidden: the board, the scores and the moves are on the table

    def _action_label(self, view, action):
        board = view["board"]
        return f"take {board[0] if action == 'left' else board[-1]} from the {action} end"

    def _apply(self, action):
        seat = len(self.moves) % 2
        if action == "left":
            self.points[seat] += self.initial_board[self.left]
            self.left += 1
        else:
            self.right -= 1
            self.points[seat] += self.initial_board[self.right]
        self.moves.append(action)

    def scores(self):
        return list(self.points)


class EndGame(Game):
    name = "endgame"
    title = "End Game"
    time_limits = {"setup": 5.0, "decision": 1.0, "bank": 10.0}

    def default_config(self):
        return {"length": 20, "min_value": -10, "max_value": 50, "board": None}

    def check_config(self, config):
        board = config["board"]
        if board is not None:
            if isinstance(board, str):
                raise ConfigError("board must be a list of integers (use parse_board for text)")
            if not isinstance(board, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in board):
                raise ConfigError("board must be a list of integers")
            check_int_option("the board's length", len(board), 1, MAX_LENGTH)
            if any(abs(x) > MAX_ABS_VALUE for x in board):
                raise ConfigError(f"board numbers must be from {-MAX_ABS_VALUE} to {MAX_ABS_VALUE}")
            return
        check_int_option("length", config["length"], 1, MAX_LENGTH)
        for option in ("min_value", "max_value"):
            check_int_option(option, config[option], -MAX_ABS_VALUE, MAX_ABS_VALUE)
        if config["min_value"] > config["max_value"]:
            raise ConfigError("min_value must not exceed max_value")

    def _initial_state(self, num_players, config, seed):
        return EndGameState(self, num_players, config, seed)

    def builtin_bots(self):
        return dict(bots.BUILTIN)

    def analyse(self, replay):
        state = self.new_game(replay["num_players"], replay["config"], replay["seed"])
        return solver.analyse_moves(state.initial_board, actions(replay))

    def describe_action(self, state, action):
        value = state.initial_board[state.left if action == "left" else state.right - 1]
        return f"takes {value} from the {action}"

    def render(self, state, seat=None):
        shown = " ".join(str(x) for x in state.board) or "(empty)"
        return f"board: {shown}   scores: {state.points[0]} - {state.points[1]}"


def parse_board(text: str) -> list[int]:
    """A board given as text: integers separated by spaces or commas."""
    try:
        return [int(part) for part in text.replace(",", " ").split()]
    except ValueError as exc:
        raise ConfigError(f"a board is integers separated by spaces or commas, not {text!r}") from exc


GAME = EndGame()
