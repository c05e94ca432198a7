"""The shared game interface every game implements.

A game is a `Game` (rules, configuration, built-in bots) and a `GameState` (one position). States are
immutable from the outside: `apply_action` returns a new state. All chance comes from the state's own
`random.Random`, seeded at setup and copied with the state, so (game, config, seed, actions) replays a
match exactly. Out-of-turn decisions (a challenge window, say) are ordinary decisions of whichever seat
`current_player()` names; several phases per round and running scores are the game's own state.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import json
import math
import operator
import random
import reprlib
from abc import ABC, abstractmethod
from array import array
from itertools import accumulate
from typing import Any, ClassVar

from .contracts import AnalysisRow, GameInfo, Replay

JSON = Any


class Verdict(str, enum.Enum):
    """How a seat's bot ended the match: `ok`, or the way it failed."""

    OK = "ok"
    TIMEOUT = "timeout"
    CRASH = "crash"
    MEMORY = "memory"
    ILLEGAL = "illegal"
    PROTOCOL = "protocol"


class IllegalAction(ValueError):
    """An action that is not among the current legal actions."""


class ConfigError(ValueError):
    """A game configuration that the game does not accept."""


def check_int_option(name: str, value, low: int, high: int) -> None:
    """ConfigError unless `value` is an integer (not a bool) from `low` to `high`.

    Every numeric option has such a bound, so that no configuration makes a match or its analysis outgrow
    the time limits; Game.configure checks it before any state is built."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ConfigError(f"{name} must be an integer from {low} to {high}, not {short_repr(value)}")


class _BoundedRepr(reprlib.Repr):
    """reprlib's repr, six levels and twenty items of each container deep at most: a value nested 200,000
    deep or a list of a million numbers is shown in a line's time, never by the recursion a repr needs."""

    def __init__(self):
        super().__init__()
        self.maxlevel = 6
        self.maxlist = self.maxtuple = self.maxset = self.maxfrozenset = self.maxdict = 20
        self.maxstring = self.maxother = self.maxlong = 200

    def repr_int(self, value, level):
        try:
            return super().repr_int(value, level)
        except ValueError:  # more digits than Python prints (sys.get_int_max_str_digits)
            return f"<an integer of {value.bit_length()} bits>"


_SHORT_REPR = _BoundedRepr()


def short_repr(value, limit: int = 60) -> str:
    """repr(value) cut to `limit` characters: error messages stay readable whatever the input held (any
    value at all: nested past the recursion limit, huge, or with a `__repr__` that raises)."""
    return cut(_SHORT_REPR.repr(value), limit)


def cut(text: str, limit: int) -> str:
    """`text`, or its first `limit` - 3 characters and "..." if it is longer."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class BotFailure(Exception):
    """A bot failed: raised by players, turned into a verdict on its seat by the referee."""

    def __init__(self, verdict: Verdict, message: str):
        super().__init__(f"{verdict.value}: {message}")
        self.verdict = Verdict(verdict)
        self.message = message


def canonical(value: JSON) -> str:
    """A JSON value's canonical text, so that equal actions compare equal whatever their key order."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


# JSON nested deeper than this is refused before anything recursive (json.dumps, a deck check) touches it.
MAX_JSON_DEPTH = 64


class JSONTooDeep(ValueError):
    """JSON nested deeper than MAX_JSON_DEPTH."""

    def __init__(self, limit: int = MAX_JSON_DEPTH):
        super().__init__(f"JSON nested more than {limit} levels deep")


def nests_deeper_than(value: object, limit: int) -> bool:
    """Whether `value` nests lists (tuples) and objects more than `limit` levels, found without recursion.

    It stops at the first level past `limit`: a value that contains itself (which only a bot run in this
    process can return) is answered too."""
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (list, tuple, dict)):
            if depth >= limit:
                return True
            pending.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def check_json_depth(value: JSON, limit: int = MAX_JSON_DEPTH) -> JSON:
    """`value` itself, or JSONTooDeep if it nests more than `limit` levels."""
    if nests_deeper_than(value, limit):
        raise JSONTooDeep(limit)
    return value


# The bytes that shape JSON's nesting once its escapes are gone: quotes (strings) and brackets.
_NOT_STRUCTURE = bytes(byte for byte in range(256) if byte not in b'"[]{}')
# Brackets as bits (an opening one 1), packed eight to a byte; then, for each such byte, the change of depth
# over its eight brackets and the deepest it reaches within them, as signed bytes (0xff is -1 to array("b")).
_BRACKET_BITS = bytes.maketrans(b"[]{}", b"1010")


def _steps(byte: int) -> list[int]:
    return list(accumulate(1 if byte >> bit & 1 else -1 for bit in range(7, -1, -1)))


_BLOCK_CHANGE = bytes(_steps(byte)[-1] & 0xFF for byte in range(256))
_BLOCK_DEEPEST = bytes(max(_steps(byte)) & 0xFF for byte in range(256))


def _deepest(brackets: bytes) -> int:
    """The most brackets open at once in `brackets` (opening and closing ones only), with eight of them
    read per step at C speed: a step per bracket cost 20-40 ms a mebibyte."""
    # Padded to whole bytes with closing brackets, which deepen nothing.
    bits = (brackets + b"]" * (-len(brackets) % 8)).translate(_BRACKET_BITS)
    blocks = int(bits, 2).to_bytes(len(bits) // 8, "big")
    depth_before = accumulate(array("b", blocks.translate(_BLOCK_CHANGE)), initial=0)
    return max(map(operator.add, depth_before, array("b", blocks.translate(_BLOCK_DEEPEST))), default=0)


def text_nests_deeper_than(text: str, limit: int) -> bool:
    """Whether the JSON `text` nests more than `limit` levels, read from its brackets before any parser
    recurses into them (json.loads recurses once per level, and a line nested 200,000 deep is one bad
    bot's work). Exact for JSON; for a text that is not, never less than the depth a parser reaches before
    it stops at the first fault.

    One pass of C-speed byte operations per step, so its cost grows with the text's length alone (a
    regular expression for a string literal rescanned the rest of the text from every quote of an
    unclosed one: `"x` + `\\"` x 16,000 cost 0.7 s; tests/games/test_games_linear_checks.py). UTF-8
    keeps every byte of a non-ASCII character above 0x7f, so the ASCII quotes, backslashes and brackets
    read alike in bytes; a lone surrogate passes through as bytes that are none of them."""
    data = text.encode("utf-8", "surrogatepass")
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    # Escapes, as JSON reads them: each run of backslashes pairs from its start, then an escaped quote.
    # A backslash outside a string is where a parser stops, so what this makes of the rest cannot lower
    # the depth counted before it.
    data = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    # Two quotes side by side are an empty string or one string's end and the next one's start: either
    # way nothing outside strings lies between them. Then every other piece between quotes is outside a
    # string (the last one of an unclosed string is where a parser stops, and is dropped with the string).
    outside = b"".join(data.replace(b'""', b"").split(b'"')[::2])
    if outside.count(b"[") + outside.count(b"{") <= limit:
        return False
    return _deepest(outside) > limit


def _not_json_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999: a JSON number, but read as Infinity, which JSON cannot write back
        raise ValueError(f"{cut(text, 40)} is too large a number")
    return value


def loads_json(text: str, limit: int = MAX_JSON_DEPTH) -> JSON:
    """json.loads for text from outside: JSONTooDeep (a ValueError like every other refusal) for JSON
    nested more than `limit` levels, found before parsing, and a ValueError for NaN and Infinity, which
    Python's json reads (also as a number too large for a float, 1e999) but JSON (and PostgreSQL's
    jsonb) does not have."""
    if text_nests_deeper_than(text, limit):
        raise JSONTooDeep(limit)
    return json.loads(text, parse_constant=_not_json_constant, parse_float=_finite_float)


class ScoreOrder(str, enum.Enum):
    """Which way scores rank seats: most games count points won, some (Sorted!) count a cost."""

    HIGHER_IS_BETTER = "higher_is_better"
    LOWER_IS_BETTER = "lower_is_better"


def placings(scores: list[float], failed: list[int] | None = None,
             order: ScoreOrder = ScoreOrder.HIGHER_IS_BETTER) -> list[int]:
    """1-based placing of each seat: the better score (by `order`) places better, equal scores share a placing.

    Seats in `failed` (in the order they failed) place below every seat still playing; the one that
    failed first places last.
    """
    failed = list(failed or [])
    alive = [s for s in range(len(scores)) if s not in failed]
    sign = 1 if ScoreOrder(order) is ScoreOrder.HIGHER_IS_BETTER else -1
    result = [0] * len(scores)
    for seat in alive:
        result[seat] = 1 + sum(1 for other in alive if sign * scores[other] > sign * scores[seat])
    for position, seat in enumerate(reversed(failed)):
        result[seat] = len(alive) + 1 + position
    return result


class GameState(ABC):
    """One position of a game. Subclasses implement the underscored hooks; never mutate a shared state."""

    game: "Game"

    def __init__(self, game: "Game", num_players: int, config: dict, seed: int):
        self.game = game
        self.num_players = num_players
        self.config = config
        self.seed = seed
        self.rng = random.Random(seed)
        self.step = 0
        # Seats whose bot failed, in the order they failed, with the verdict.
        self.failures: list[tuple[int, Verdict]] = []
        # Set when a failure leaves too few seats to play on (forfeit): the game is over whatever its rules say.
        self._ended_by_failure = False

    # --- what every game defines -------------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int | None:
        """The seat whose decision it is, or None when the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[JSON]:
        """The actions the current seat may take, as JSON values (empty when terminal)."""

    @abstractmethod
    def _observe(self, seat: int) -> dict:
        """What `seat` may see: never another seat's hidden information."""

    @abstractmethod
    def _apply(self, action: JSON) -> None:
        """Apply a legal action to this (already copied) state."""

    @abstractmethod
    def scores(self) -> list[float]:
        """Each seat's score so far (the final score once terminal)."""

    @abstractmethod
    def _rules_over(self) -> bool:
        """True when the game ended by its own rules."""

    @abstractmethod
    def _public(self, view: dict) -> dict:
        """What anyone may see of this position (a spectator, a tournament's stream), made from `view` alone:
        one seat's `_observe(seat)`, with what only that seat sees taken out or masked.

        Read nothing from `self`: the shared conformance test checks that every seat's view gives the same
        public view, which then holds only what every seat sees (no hidden card, no seat's own view)."""

    @abstractmethod
    def _action_label(self, view: dict, action: JSON) -> str:
        """A person's short reading of `action`, one of the legal actions in `view` (the observation of the
        seat on move), made from `view` alone, so that it says nothing that seat may not see. Labels of
        one position's legal actions must differ (the conformance test checks it): a person picks by them."""

    def _drop_seat(self, seat: int) -> bool:
        """Take a failed seat out of play; return True if the game can go on without it.

        Two-player games end (the default): the other seat wins. Multiplayer games override this to
        skip the seat from now on, as their docs state.
        """
        return False

    def hidden_variant(self, seat: int, rng: random.Random) -> "GameState | None":
        """A copy of this state that differs at most in what `seat` may not see (its hidden cards redrawn
        with `rng`), or None when nothing is hidden from `seat`. The shared conformance test checks that
        `seat`'s observation is the same in both: games with hidden information override this."""
        return None

    def full_view(self) -> dict:
        """Everything, hidden information included: for replays, referees and instructors."""
        return self._observe(-1)

    def picture(self) -> dict:
        """What a person's page draws beside a view (a seat's or the public one), public like the position it
        shows and too costly for every bot's observation: Sprouts' drawing. Nothing for most games."""
        return {}

    # --- shared machinery ----------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self._forfeited or self._rules_over()

    @property
    def _forfeited(self) -> bool:
        return self._ended_by_failure

    @property
    def failed_seats(self) -> list[int]:
        return [seat for seat, _ in self.failures]

    def observation(self, seat: int) -> dict:
        """The JSON object sent to `seat`'s bot; `legal_actions` is filled when it is that seat's turn."""
        obs = self._observe(seat)
        obs["game"] = self.game.name
        obs["seat"] = seat
        obs["step"] = self.step
        obs["legal_actions"] = self.legal_actions() if self.current_player() == seat else []
        return obs

    def move_choices(self, seat: int) -> list["MoveChoice"]:
        """`seat`'s legal actions as labelled choices a person can read and pick, in the order of
        `legal_actions`; empty when it is not `seat`'s turn."""
        if self.current_player() != seat:
            return []
        view = self.observation(seat)
        return [MoveChoice(self._action_label(view, action), action) for action in view["legal_actions"]]

    def public_view(self) -> dict:
        """What anyone may see of this position: no hidden card, no seed, no seat's own observation.

        The game's `_public` makes it from seat 0's view (any seat's gives the same, as the conformance test
        checks); what the referee knows publicly is added: whose turn it is, whether the game is over, and
        the seats out of the game with their verdicts."""
        view = self._public(self._observe(0))
        view.update(game=self.game.name, step=self.step, to_move=self.current_player(), over=self.is_terminal(),
                    failures=[[seat, verdict.value] for seat, verdict in self.failures])
        return view

    def legal_action(self, action: object) -> JSON:
        """The game's own legal action equal to `action` (the same JSON, whatever the key order), or
        IllegalAction saying why not.

        Every game's legality check is this one, and `action` is whatever a bot sent or returned: nested
        past any depth, huge, NaN, not JSON at all. It never raises anything but IllegalAction, and what it
        returns is the game's value, never the bot's: that is what the state applies and the replay keeps.
        """
        if self.is_terminal():
            raise IllegalAction("the game is over")
        key = _canonical_or_none(action)
        if key is not None:
            for legal in self.legal_actions():
                if canonical(legal) == key:
                    return legal
        shown = short_repr(action, ACTION_SHOWN) if key is None else cut(key, ACTION_SHOWN)
        raise IllegalAction(f"{shown} is not a legal action for seat {self.current_player()}; "
                            f"legal: {canonical(self.legal_actions())}")

    def is_legal(self, action: object) -> bool:
        try:
            self.legal_action(action)
        except IllegalAction:
            return False
        return True

    def apply_action(self, action: object) -> "GameState":
        """A new state after the current seat takes `action`; IllegalAction if it is not legal."""
        legal = self.legal_action(action)
        new = self.clone()
        new._apply(legal)
        new.step += 1
        return new

    def forfeit(self, seat: int, verdict: Verdict) -> "GameState":
        """A new state in which `seat` failed with `verdict` and is out of the game."""
        new = self.clone()
        new.failures.append((seat, Verdict(verdict)))
        alive = new.num_players - len(new.failures)
        if alive < 2 or not new._drop_seat(seat):
            new._ended_by_failure = True
        return new

    def ranking(self) -> list[int]:
        """1-based placing of each seat (ties share a placing; failed seats last)."""
        return placings(self.scores(), self.failed_seats, self.game.score_order)

    def winners(self) -> list[int]:
        """The seats placed first; in a cooperative game the team's seats if it won, else none."""
        if self.game.cooperative and not self._team_won():
            return []
        ranks = self.ranking()
        return [seat for seat, rank in enumerate(ranks) if rank == 1]

    def _team_won(self) -> bool:
        """Cooperative games only: True once the team has won by the rules (Game.new_game refuses a
        cooperative game whose state does not say)."""
        return False

    def clone(self) -> "GameState":
        return copy.deepcopy(self)

    def __deepcopy__(self, memo):
        # The game object is shared, immutable configuration: never copy it.
        memo[id(self.game)] = self.game
        # Every action copies the state: copy the generator through its state tuple, in C, rather than
        # let deepcopy walk its 625 numbers one by one (most of a card game's step time otherwise).
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        memo[id(self.rng)] = rng
        cls = self.__class__
        new = cls.__new__(cls)
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            setattr(new, key, copy.deepcopy(value, memo))
        return new


@dataclasses.dataclass(frozen=True)
class MoveChoice:
    """One legal action as a person picks it: the game's label for it, and the action itself."""

    label: str
    action: JSON


# The longest reading of a refused action in an error message.
ACTION_SHOWN = 200


def _canonical_or_none(value: object) -> str | None:
    """canonical(value), or None for a value that is no JSON: nested too deep for json.dumps to recurse
    into, a set, a number too long to print, keys that are not text..."""
    if nests_deeper_than(value, MAX_JSON_DEPTH):
        return None
    try:
        return canonical(value)
    except (TypeError, ValueError):
        return None


class Game(ABC):
    """A game's rules: its name, player counts, configuration, built-in bots and analysis."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    default_players: ClassVar[int] = 2
    # A cooperative game seats one team: every seat gets the team's score, and the seats still playing
    # share the placing. Placings, the referee's result and the platform read these two facts from here.
    cooperative: ClassVar[bool] = False
    score_order: ClassVar[ScoreOrder] = ScoreOrder.HIGHER_IS_BETTER
    # The best score a game can end with, where there is one (a cooperative team's perfect game); else None.
    perfect_score: ClassVar[float | None] = None
    # Time limits in seconds, per game: load+setup, per decision, and the bank a bot may overdraw from.
    time_limits: ClassVar[dict] = {"setup": 5.0, "decision": 1.0, "bank": 10.0}

    def configure(self, overrides: dict | None = None) -> dict:
        """The full configuration: defaults with `overrides` applied and checked (ConfigError)."""
        config = dict(self.default_config())
        unknown = set(overrides or {}) - set(config)
        if unknown:
            raise ConfigError(f"{self.name}: unknown option(s) {sorted(unknown)}; known: {sorted(config)}")
        config.update(overrides or {})
        self.check_config(config)
        return config

    def default_config(self) -> dict:
        return {}

    def check_config(self, config: dict) -> None:
        """Raise ConfigError for a configuration the rules do not allow."""

    def new_game(self, num_players: int | None = None, config: dict | None = None, seed: int = 0) -> GameState:
        """The initial state for `num_players` seats, all chance drawn from `seed`."""
        num_players = self.default_players if num_players is None else num_players
        if not self.min_players <= num_players <= self.max_players:
            raise ConfigError(
                f"{self.name} is played by {self.min_players} to {self.max_players} players, not {num_players}"
            )
        state = self._initial_state(num_players, self.configure(config), seed)
        if self.cooperative and type(state)._team_won is GameState._team_won:
            raise TypeError(f"{self.name} is cooperative: its state must say when the team has won (_team_won)")
        return state

    @abstractmethod
    def _initial_state(self, num_players: int, config: dict, seed: int) -> GameState:
        """Build the first state (deal, board...) from the checked config and the seed."""

    def builtin_bots(self) -> dict[str, type]:
        """Built-in bot classes by name (`builtin:NAME`); each instance has `act(obs)`, maybe `setup(info)`."""
        return {}

    def analyse(self, replay: Replay) -> list[AnalysisRow] | None:
        """Per-decision analysis of a played game against the solver, or None if the game has none."""
        return None

    def analyse_move(self, replay: Replay, step: int) -> AnalysisRow | None:
        """The analysis of decision `step` alone, or None: this game has none move by move (it sends its
        analysis whole, with `analyse`, or has none). An optional hook: a game whose solver takes seconds a
        move (Sprouts) overrides it, answering a row (IndexError past the end), and a viewer then asks for
        its analysis move by move (GameInfo.streams_analysis says so)."""
        return None

    def info(self) -> GameInfo:
        """What the platform reads of this game."""
        return GameInfo(
            name=self.name, title=self.title, min_players=self.min_players, max_players=self.max_players,
            default_players=self.default_players, cooperative=self.cooperative,
            lower_is_better=self.score_order == ScoreOrder.LOWER_IS_BETTER, perfect_score=self.perfect_score,
            builtin_bots=tuple(sorted(self.builtin_bots())),
            has_analysis=type(self).analyse is not Game.analyse,
            streams_analysis=type(self).analyse_move is not Game.analyse_move,
        )

    def describe_action(self, state: GameState, action: JSON) -> str:
        """A short human reading of `action` taken in `state`."""
        return canonical(action)

    def render(self, state: GameState, seat: int | None = None) -> str:
        """A text display of the table, from `seat`'s view or the full view."""
        view = state.full_view() if seat is None else state.observation(seat)
        return json.dumps(view, indent=1)
