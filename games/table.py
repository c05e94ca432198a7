"""A table: a game in progress that people and bots play one decision at a time.

A table is its facts: the game, its options, the seed, who sits where (a person or a bot), the events so far
(each seat's actions and verdicts, exactly as a replay keeps them) and when the turn on move began. The
position is rebuilt from them by the replay's own rules (`replay.states`), so a table is kept anywhere as
JSON (`to_json`) and taken up again exactly (`Table.from_json`) after any restart. No process belongs to it:

- a person's move (`human_move`) names the turn it answers, the number of events it saw: a move for a turn
  that is over (a second tab, a double click) is refused (`StaleTurn`) by this compare-and-set, and an
  illegal move is refused (`IllegalAction`) with nothing recorded, so the person picks again;
- a bot decides (`bot_move`) through the same Player interface and the same check as in any match
  (`referee.bot_decision`): a sandboxed bot plays at a person's table as it plays a match, its fault is its
  verdict, and its time is its player's limits (the person's time limit never applies to it);
- a bot whose process is not kept between its moves (the platform's: no process belongs to a table) decides
  by `bot_move_afresh`: started as a match starts it, then told the game so far exactly as a match would have
  told it (`seat_observations`: its own seat's earlier observations, in order), so a bot that keeps state
  between decisions plays at a table as it plays a match;
- a bot whose process a holder keeps between its moves (the platform's, sandbox/holder.py) decides by
  `bot_move_kept`: the table tells the holder where the seat stands (`seat_history`: how many decisions it
  recorded and digests of the events before the last of them and before this one), and the holder asks
  its kept bot this decision only when that bot was last asked exactly where the table recorded the
  seat's last decision; otherwise (no process kept, a restart, a decision recorded elsewhere) it starts
  the bot afresh and tells it the game so far once, as `bot_move_afresh` does, then keeps it;
- a person has `move_seconds` per move (None: no limit). A move after the deadline, or `expire` called once
  it has passed, ends the seat with the verdict `timeout`, as a bot's time running out does; the game then
  goes on or ends as its rules for a failed seat say. `leave` does the same when a person leaves the table.

Spectators get `public_view(delay)`: the game's public view (no hidden card, no seed, no seat's own
observation), optionally as it was `delay` events ago while the game is played.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import time
from collections.abc import Callable, Mapping
from typing import Protocol, TypeGuard

from . import replay as replays
from .contracts import ActionEvent, Replay, ReplayEvent, VerdictEvent, is_verdict
from .core import JSON, BotFailure, Game, GameState, MoveChoice, Verdict, short_repr
from .referee import Player, bot_decision, replay_record, setup_info

# A person's time per move unless the table says otherwise: generous, for people new to the game.
DEFAULT_MOVE_SECONDS = 300.0
# The longest a table may give a person per move (one day, for a correspondence game).
MAX_MOVE_SECONDS = 86_400.0


# What `to_json` writes and `from_json` reads.
TABLE_FIELDS = ("game", "config", "seed", "seats", "move_seconds", "events", "details", "turn_started")


class TableError(ValueError):
    """A request the table refuses, saying why (nothing is recorded)."""


class TableOver(TableError):
    """The game at this table is over."""


class StaleTurn(TableError):
    """A move for a turn that is no longer the table's: another move (or a verdict) came first."""


class NotYourTurn(TableError):
    """A move by a seat that is not on move, or by a person for a bot's seat (or the other way round)."""


class MoveTooLate(TableError):
    """A person's move after the deadline: the seat has lost on time (its verdict is recorded)."""


@dataclasses.dataclass(frozen=True)
class Seat:
    """Who plays a seat: a person (`human`), or a bot the caller runs (a built-in, a file, a sandbox)."""

    name: str
    human: bool = False


@dataclasses.dataclass(frozen=True)
class SeatHistory:
    """Where a bot's seat stands at a table: what a process kept between its decisions must have been told
    to decide this one as in a match (`Table.seat_history`)."""

    seat: int
    # The seat's decisions recorded so far (its actions; a verdict ends a seat).
    told: int
    # Digests (`Table.digest`) of the table's events before the seat's last recorded decision ("" before its
    # first), and before this one.
    previous: str
    position: str


@dataclasses.dataclass(frozen=True)
class Checkpoint:
    """A table's events and the position they led to (`Table.checkpoint`): a state is never changed in place
    (each move makes a new one), so it stays the position after exactly these events."""

    events: list[ReplayEvent]
    state: GameState
    # The digests of the events' prefixes computed so far (`Table.digest`), a table's with them spares.
    digests: list[str]


class KeptPlayer(Player, Protocol):
    """A Player whose process may be kept between a seat's decisions (sandbox/holder.py's `HeldPlayer`): told
    where the seat stands before `act`, and how to catch up if its process was not kept."""

    def follow(self, history: SeatHistory, setup: dict, earlier: Callable[[], list[dict]]) -> None:
        """Before `act`: where the seat stands, its setup, and its earlier observations (computed if called)."""


def catching_up_detail(message: str, number: int, count: int) -> str:
    """The detail of a bot's fault while it was told again its earlier decisions at a table."""
    return (f"{message} (when told again its decision {number} of {count}: a table starts its bots afresh for "
            "each decision unless their process is kept)")


def check_move_seconds(value: object) -> float | None:
    """`value` as a person's time per move (None: no limit), or TableError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 < value <= MAX_MOVE_SECONDS:
        raise TableError(f"the time per move must be a number of seconds above 0 and at most {MAX_MOVE_SECONDS:g}, "
                         f"or none, not {short_repr(value)}")
    return float(value)


class Table:
    """A game in progress; see the module's docstring. Open one with `Table.open`, or `Table.from_json`."""

    def __init__(self, game: Game, seats: list[Seat], state: GameState, *, move_seconds: float | None,
                 events: list[ReplayEvent], details: list[str], turn_started: float):
        self.game, self.seats, self.state = game, list(seats), state
        self.move_seconds = check_move_seconds(move_seconds)
        self.events, self.details, self.turn_started = events, details, turn_started
        # digest(n) for n = 0, 1, ... as far as computed: events are only ever appended, so they stay true.
        self._digests = [""]

    @classmethod
    def open(cls, game: Game, seats: list[Seat], *, config: dict | None = None, seed: int = 0,
             move_seconds: float | None = DEFAULT_MOVE_SECONDS, now: float | None = None) -> "Table":
        """A new table for `game` with one seat per entry of `seats` (ConfigError for a count or options the
        game does not take, TableError for a time per move out of bounds)."""
        state = game.new_game(len(seats), config, seed)
        return cls(game, seats, state, move_seconds=move_seconds, events=[], details=[""] * len(seats),
                   turn_started=_now(now))

    # --- facts -------------------------------------------------------------------------------------------
    def to_json(self) -> dict:
        """Everything the table is, as JSON (a copy: changing it changes nothing here): keep it anywhere;
        `from_json` rebuilds the same table."""
        return {
            "game": self.game.name,
            "config": self.state.config,
            "seed": self.state.seed,
            "seats": [dataclasses.asdict(seat) for seat in self.seats],
            "move_seconds": self.move_seconds,
            "events": [dict(event) for event in self.events],
            "details": list(self.details),
            "turn_started": self.turn_started,
        }

    @classmethod
    def from_json(cls, data: dict, known: "Checkpoint | None" = None) -> "Table":
        """The table `data` (from `to_json`) describes, its position rebuilt by replaying its events; TableError
        for data that is not a table or does not replay.

        `known`, a `checkpoint()` of this table taken earlier (a process's cache), spares replaying the events
        it has seen when they begin `data`'s (same game, options, seed and seats): only the later ones are
        replayed, so taking a table up again after each move costs that move, not the whole game."""
        if not isinstance(data, dict) or not set(TABLE_FIELDS) <= set(data):
            raise TableError(f"not a table: a table is an object with {', '.join(TABLE_FIELDS)}")
        seats, details, started = data["seats"], data["details"], data["turn_started"]
        if not (isinstance(seats, list) and all(isinstance(seat, dict) and seat.keys() == {"name", "human"}
                                                and isinstance(seat["name"], str) and isinstance(seat["human"], bool)
                                                for seat in seats)):
            raise TableError("not a table: its seats are not each a name and whether a person plays it")
        if not (isinstance(details, list) and len(details) == len(seats) and all(isinstance(d, str) for d in details)):
            raise TableError("not a table: a detail for each seat is missing")
        if isinstance(started, bool) or not isinstance(started, (int, float)) or not math.isfinite(started):
            raise TableError(f"not a table: its turn began at {short_repr(started)}, not at a time")
        facts: Replay = {"format": replays.REPLAY_FORMAT, "version": replays.REPLAY_VERSION, "game": data["game"],
                         "config": data["config"], "seed": data["seed"], "num_players": len(seats),
                         "events": data["events"]}
        try:
            state, known_used = cls._replayed(facts, known)
        except (KeyError, ValueError) as exc:  # ReplayError, ConfigError and unknown games (KeyError)
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            raise TableError(f"not a table that replays: {message}") from None
        table = cls(state.game, [Seat(**seat) for seat in seats], state, move_seconds=data["move_seconds"],
                    events=list(data["events"]), details=list(details), turn_started=float(started))
        if known_used and known is not None:
            table._digests = list(known.digests)
        return table

    @staticmethod
    def _replayed(facts: Replay, known: "Checkpoint | None") -> tuple[GameState, bool]:
        """The position `facts` lead to, and whether it was replayed from `known`."""
        events = facts["events"]
        if known is None or not isinstance(events, list) or len(events) < len(known.events) \
                or (known.state.game.name, known.state.config, known.state.seed, known.state.num_players) \
                != (facts["game"], facts["config"], facts["seed"], facts["num_players"]) \
                or events[:len(known.events)] != known.events:
            return replays.final_state(facts), False
        state = known.state
        for index in range(len(known.events), len(events)):
            state = replays.next_state(state, events[index], index)
        return state, True

    def checkpoint(self) -> "Checkpoint":
        """The table's events and position now, for `from_json(..., known=)` (a copy: changing the table
        later changes nothing in it)."""
        return Checkpoint(events=list(self.events), state=self.state, digests=list(self._digests))

    def digest(self, count: int) -> str:
        """A digest of the table's first `count` events ("" for none): equal digests, equal events. A chain
        (each the hash of the one before and of its event), so a table taken up from a checkpoint hashes only
        the events after it."""
        for index in range(len(self._digests) - 1, count):
            event = json.dumps(self.events[index], sort_keys=True, separators=(",", ":"))
            self._digests.append(hashlib.sha256(f"{self._digests[index]}\n{event}".encode()).hexdigest())
        return self._digests[count]

    def replay(self) -> Replay:
        """The game so far as a replay, like any match's (`python -m games replay` shows it with its analysis)."""
        return replay_record(self.state, self.state.config, [seat.name for seat in self.seats], self.events)

    # --- where the game is ---------------------------------------------------------------------------------
    @property
    def turn(self) -> int:
        """The number of events so far: what a move names to be taken for this turn and no other."""
        return len(self.events)

    @property
    def over(self) -> bool:
        return self.state.is_terminal()

    @property
    def seat_on_move(self) -> int | None:
        return self.state.current_player()

    @property
    def deadline(self) -> float | None:
        """When the person on move loses on time; None when a bot is on move, the game is over or the table
        has no time limit."""
        seat = self.seat_on_move
        if seat is None or self.move_seconds is None or not self.seats[seat].human:
            return None
        return self.turn_started + self.move_seconds

    def choices(self, seat: int) -> list[MoveChoice]:
        """`seat`'s legal moves as labelled choices (none when it is not on move), from its own view only."""
        return self.state.move_choices(seat)

    def public_view(self, delay: int = 0) -> dict:
        """What anyone may see: the public view of the position `delay` events ago (never before the start)
        while the game is played, and of the final position once it is over, with the table's seats."""
        if isinstance(delay, bool) or not isinstance(delay, int) or delay < 0:
            raise TableError(f"a delay is a number of moves from 0 up, not {short_repr(delay)}")
        shown = self.turn if self.over else max(0, self.turn - delay)
        view = (self.state if shown == self.turn else self._state_after(shown)).public_view()
        view.update(turn=shown, seats=[dataclasses.asdict(seat) for seat in self.seats])
        if self.over:
            view["winners"] = self.state.winners()
        return view

    def _state_after(self, count: int) -> GameState:
        facts = self.replay()
        facts["events"] = self.events[:count]
        return replays.final_state(facts)

    # --- moves ---------------------------------------------------------------------------------------------
    def human_move(self, seat: int, turn: int, action: object, now: float | None = None) -> JSON:
        """Play a person's `action` for `seat` at `turn`; the game's own action it was taken as.

        Refused, with nothing recorded: TableOver, StaleTurn (the turn is over), NotYourTurn, IllegalAction.
        MoveTooLate when the seat's time had run out: that verdict is recorded."""
        now = _now(now)
        self._check_move(seat, turn, human=True)
        if self._out_of_time(now):
            self.expire(now)
            raise MoveTooLate(f"seat {seat} had {self.move_seconds:g} s for its move: it has lost on time")
        action = self.state.legal_action(action)
        self._record_action(seat, action, now)
        return action

    def bot_move(self, player: Player, now: float | None = None) -> JSON | None:
        """Let `player`, the bot of the seat on move, decide as in any match; its action, or None when it
        failed (its verdict is recorded, as the referee records it)."""
        seat = self._check_move(self.seat_on_move, self.turn, human=False)
        try:
            action = bot_decision(player, self.state)
        except BotFailure as failure:
            self._fail(seat, failure.verdict, failure.message, _now(now))
            return None
        self._record_action(seat, action, _now(now))
        return action

    def bot_move_afresh(self, player: Player, now: float | None = None) -> JSON | None:
        """`bot_move` for a bot started afresh for this decision (`player` not started yet): the bot sees
        the same calls as at this point of a match, so what it keeps between its decisions (a count of the
        cards gone, an opening book, a search tree) is what a match would have given it.

        It is started (`start_bot`), then asked again, in order, for each decision its seat took at this
        table (`seat_observations`), its answers discarded: the table's recorded actions stand, whatever
        a bot that does not repeat itself answers now, and an answer is not even judged. Then it decides
        this turn. Each call is timed by the player as in a match (the per-decision limit, the overage
        drawn from one bank), so a bot within its limits in a match is within them here however long the
        game, and a bot that stalls is stopped as in a match. A fault at any point (a crash, a timeout, a
        broken protocol, while catching up or not) is its verdict, recorded at this turn. A built-in that
        keeps no state between decisions is asked this decision only. Its action, or None when it failed."""
        seat = self._check_move(self.seat_on_move, self.turn, human=False)
        self.start_bot(seat, player, now)
        if seat in self.state.failed_seats:
            return None
        # Only a trusted built-in may say it remembers nothing (InProcessPlayer.keeps_state); a sandboxed
        # bot is always told.
        earlier = self.seat_observations(seat) if getattr(player, "keeps_state", True) else []
        for number, observation in enumerate(earlier, 1):
            try:
                player.act(observation)
            except BotFailure as failure:
                self._fail(seat, failure.verdict, catching_up_detail(failure.message, number, len(earlier)),
                           _now(now))
                return None
        return self.bot_move(player, now)

    def bot_move_kept(self, player: KeptPlayer, now: float | None = None) -> JSON | None:
        """`bot_move` for a bot whose process may have been kept since its last decision at this table (see
        the module's docstring): `player` is told where the seat stands (`seat_history`), its setup and how
        to get the seat's earlier observations should it have to start afresh and catch up (only then are
        they computed), then decides as in `bot_move`: a fault at any point (its setup, catching up, this
        decision) is its verdict, recorded at this turn. Its action, or None when it failed."""
        seat = self._check_move(self.seat_on_move, self.turn, human=False)
        player.follow(self.seat_history(seat), setup_info(self.game, self.state, seat),
                      lambda: self.seat_observations(seat))
        return self.bot_move(player, now)

    def seat_history(self, seat: int) -> SeatHistory:
        """Where `seat` stands now (a `SeatHistory`): its decisions recorded so far, and digests of the events
        before the last of them and now."""
        mine = [index for index, event in enumerate(self.events) if event["seat"] == seat and not is_verdict(event)]
        return SeatHistory(seat=seat, told=len(mine), previous=self.digest(mine[-1]) if mine else "",
                           position=self.digest(self.turn))

    def seat_observations(self, seat: int) -> list[dict]:
        """What `seat` was asked to decide on so far, in order: its observation before each of its actions,
        exactly what a match sends its bot (its own view only, never another seat's)."""
        observations: list[dict] = []
        before: GameState | None = None
        for state, event in replays.states(self.replay()):
            if event is not None and before is not None and event["seat"] == seat and not is_verdict(event):
                observations.append(before.observation(seat))
            before = state
        return observations

    def start_bot(self, seat: int, player: Player, now: float | None = None) -> None:
        """Start `seat`'s bot (its `setup`) as the referee does; a bot that cannot start gets its verdict."""
        if self.seats[seat].human or self.over or seat in self.state.failed_seats:
            return
        try:
            player.start(setup_info(self.game, self.state, seat))
        except BotFailure as failure:
            self._fail(seat, failure.verdict, failure.message, _now(now))

    def play_bots(self, players: Mapping[int, Player], now: float | None = None) -> None:
        """Let the bots decide while one of them is on move: until a person's turn or the end of the game."""
        while not self.over and (seat := self.seat_on_move) is not None and not self.seats[seat].human:
            self.bot_move(players[seat], now)

    def expire(self, now: float | None = None) -> bool:
        """End the turn of the person on move with the verdict `timeout` if their time has run out (a
        scheduler calls this; the table keeps no timer). True if it did."""
        now = _now(now)
        seat = self.seat_on_move
        if seat is None or not self._out_of_time(now):
            return False
        self._fail(seat, Verdict.TIMEOUT, f"no move within {self.move_seconds:g} s", now)
        return True

    def leave(self, seat: int, now: float | None = None) -> None:
        """A person leaves the table for good: the seat ends as if its time had run out (verdict `timeout`)."""
        if not _is_index(seat, len(self.seats)) or not self.seats[seat].human:
            raise NotYourTurn(f"seat {short_repr(seat)} is not a person's seat at this table")
        if self.over or seat in self.state.failed_seats:
            return
        self._fail(seat, Verdict.TIMEOUT, "left the table", _now(now))

    def _check_move(self, seat: object, turn: object, human: bool) -> int:
        """`seat` if it may move at `turn` (a person's move or a bot's, as `human` says), or TableError."""
        if self.over:
            raise TableOver("the game at this table is over")
        if not _is_index(turn, self.turn + 1) or turn != self.turn:
            raise StaleTurn(f"that move was for turn {short_repr(turn)}, but the table is at turn {self.turn}")
        if not _is_index(seat, len(self.seats)) or seat != self.seat_on_move:
            raise NotYourTurn(f"it is seat {self.seat_on_move}'s move, not seat {short_repr(seat)}'s")
        if self.seats[seat].human is not human:
            raise NotYourTurn(f"seat {seat} is played by {'a person' if self.seats[seat].human else 'a bot'}")
        return seat

    def _out_of_time(self, now: float) -> bool:
        deadline = self.deadline
        return deadline is not None and now > deadline

    def _record_action(self, seat: int, action: JSON, now: float) -> None:
        self.state = self.state.apply_action(action)
        self.events.append(ActionEvent(seat=seat, action=action))
        self.turn_started = now

    def _fail(self, seat: int, verdict: Verdict, detail: str, now: float) -> None:
        self.state = self.state.forfeit(seat, verdict)
        self.events.append(VerdictEvent(seat=seat, verdict=Verdict(verdict).value))
        self.details[seat] = detail
        self.turn_started = now


def _is_index(value: object, size: int) -> TypeGuard[int]:
    """Whether `value` is an int (not a bool) from 0 to `size` - 1: a seat or a turn sent from outside."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < size


def _now(now: float | None) -> float:
    """The table's clock: wall-clock seconds, which a table kept across restarts can compare (a caller may
    give its own, as tests do)."""
    return time.time() if now is None else float(now)
