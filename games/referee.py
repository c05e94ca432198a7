"""The referee: plays one match between players and records it as a replay.

The referee knows nothing of any particular game (it only uses the `GameState` interface) and nothing of
how a bot runs (it only uses the `Player` interface: in-process built-ins here, sandboxed processes and
containers in `sandbox/`). Every failure of a bot becomes a verdict on its seat and the match goes on
or ends as the game's rules for a failed seat say; the referee never hangs on a bot, that is the
player's job (deadlines), and never crashes on one.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import ExitStack, contextmanager
from typing import Any, Protocol

from .contracts import REPLAY_FORMAT, REPLAY_VERSION, Replay, ReplayEvent
from .core import ACTION_SHOWN, JSON, BotFailure, Game, GameState, IllegalAction, Verdict, short_repr


class Player(Protocol):
    """One seat's bot, however it runs."""

    name: str

    def start(self, info: dict) -> None:
        """Load the bot and call its `setup(info)`; BotFailure if it cannot."""

    def act(self, observation: dict) -> Any:
        """The bot's action for `observation`; BotFailure on timeout, crash, garbage..."""

    def close(self) -> str:
        """Stop the bot, free everything it held, and return its stderr log (truncated)."""

    # Optional: `prepare()` opens what the player runs in (a warm container) before `start`, never raising:
    # what fails is raised again by `start`. The referee prepares a match's players side by side.
    # Optional: `discard()` is `close()` for a match that ended by an exception: nothing the player ran in
    # is kept for another match (see `seated`).


@dataclasses.dataclass
class SeatResult:
    name: str
    score: float
    placing: int
    status: str
    detail: str = ""
    log: str = ""
    # Seconds the bot spent deciding (as the player measured them).
    think_time: float = 0.0
    decisions: int = 0

    def as_json(self, with_log: bool = True) -> dict:
        data = dataclasses.asdict(self)
        if not with_log:
            data.pop("log")
        return data


@dataclasses.dataclass
class MatchResult:
    game: str
    winners: list[int]
    players: list[SeatResult]
    replay: Replay
    final_state: GameState

    @property
    def cooperative(self) -> bool:
        return self.final_state.game.cooperative

    @property
    def draw(self) -> bool:
        """Several seats share first place; never in a cooperative game, where the team wins or loses as one."""
        return not self.cooperative and len(self.winners) > 1

    def as_json(self, with_logs: bool = True) -> dict:
        game = self.final_state.game
        return {
            "game": self.game,
            "cooperative": game.cooperative,
            "score_order": game.score_order.value,
            "winners": self.winners,
            "draw": self.draw,
            "players": [p.as_json(with_logs) for p in self.players],
            "steps": self.final_state.step,
        }


class InProcessPlayer:
    """A trusted built-in bot run in this process (the platform's own reference bots)."""

    def __init__(self, name: str, bot: Any, rng_seed: int | None = None):
        self.name = name
        self.bot = bot
        # Built-ins that play at random draw from this seed, so seeded matches between them repeat.
        # Sandboxed bots never get it: from it they could recover the game's own seed.
        self.rng_seed = rng_seed
        self.think_time = 0.0
        self.decisions = 0

    def start(self, info: dict) -> None:
        if hasattr(self.bot, "setup"):
            self.bot.setup({**info, "rng_seed": self.rng_seed})

    def act(self, observation: dict) -> Any:
        began = time.perf_counter()
        try:
            return self.bot.act(observation)
        except Exception as exc:  # a built-in that fails is still a verdict, not a crashed referee
            raise BotFailure(Verdict.CRASH, f"{type(exc).__name__}: {exc}") from exc
        finally:
            self.think_time += time.perf_counter() - began
            self.decisions += 1

    @property
    def keeps_state(self) -> bool:
        """Whether the bot may remember anything between its decisions (a built-in says `keeps_state = False`
        when its moves depend on the observation alone): a table started afresh tells such a bot nothing of
        its earlier decisions (games.table.Table.bot_move_afresh)."""
        return getattr(self.bot, "keeps_state", True)

    def close(self) -> str:
        return ""


@contextmanager
def seated(openers: Iterable[Callable[[], Player]]) -> Iterator[list[Player]]:
    """The players `openers` open, one per seat in seat order, for a match played in the `with` block;
    every one of them is closed when it ends, however it ends.

    This is where every match's sandboxes are opened, played and closed (the platform's runner and
    `python -m games` alike). `play_match` closes its players to read their logs; when the block ends
    by an exception instead (a seat that could not be opened, a bug of a game, an interrupt) each player
    opened is discarded: its process, container and files are removed and a warm container is not kept
    for another match.

    The seats are opened at once, each in a thread of its own: opening one is mostly waiting (on the
    Docker engine starting a container, a process starting Python), so a four-seat match whose versions
    have no warm container yet starts in about the time of its slowest seat, not of all four in turn.
    An opener must therefore not touch what belongs to its caller's thread (the platform reads its
    database rows before, see arena.matches.runner.seat_opener). If some seats fail to open, the others
    are discarded and the failure of the first in seat order is raised.
    """
    openers = list(openers)
    with ExitStack() as stack:
        yield _open_together(openers, stack)


def _open_together(openers: list[Callable[[], Player]], stack: ExitStack) -> list[Player]:
    if len(openers) < 2:
        players = [open_player() for open_player in openers]
        for player in players:
            stack.push(_closer(player))
        return players
    pool = ThreadPoolExecutor(max_workers=len(openers), thread_name_prefix="seat")
    futures = [pool.submit(open_player) for open_player in openers]
    try:
        wait(futures)
    finally:
        # Interrupted while waiting too: the seats still opening are waited for, and every seat that
        # opened is closed with the stack.
        pool.shutdown(wait=True)
        for future in futures:
            if future.exception() is None:
                stack.push(_closer(future.result()))
    failure = next((error for error in map(Future.exception, futures) if error is not None), None)
    if failure is not None:
        raise failure
    return [future.result() for future in futures]


def _closer(player: Player) -> Callable[..., bool]:
    """An exit callback for `player` (as ExitStack.push takes them): close it, or discard it on an exception."""
    def leave(error_type, error, traceback) -> bool:
        if error_type is None:
            player.close()
        else:
            getattr(player, "discard", player.close)()
        return False  # the exception goes on
    return leave


def setup_info(game: Game, state: GameState, seat: int) -> dict:
    return {
        "game": game.name,
        "seat": seat,
        "num_players": state.num_players,
        "config": state.config,
        "time_limits": dict(game.time_limits),
    }


def _prepare(players: list[Player]) -> None:
    """Let the players that open a sandbox ahead of their start do it at the same time: each seat's
    container starts in parallel instead of one after the other, while the bots still start (and their
    setup is timed) one by one as before."""
    preparing = [player.prepare for player in players if hasattr(player, "prepare")]
    if len(preparing) > 1:
        with ThreadPoolExecutor(len(preparing)) as executor:
            for _ in executor.map(lambda prepare: prepare(), preparing):
                pass


def play_match(
    game: Game,
    players: list[Player],
    *,
    config: dict | None = None,
    seed: int = 0,
    on_step: Callable[[GameState, int, Any, GameState], None] | None = None,
) -> MatchResult:
    """Play one match to its end and return the result with its replay.

    `on_step(before, seat, action, after)` is called after every applied action (for live displays). The
    players are closed at the end (their logs are part of the result); opened with `seated`, they are
    closed too when the match ends by an exception.
    """
    state = game.new_game(len(players), config, seed)
    initial = state
    events: list[ReplayEvent] = []
    details = [""] * len(players)

    def fail(seat: int, failure: BotFailure) -> None:
        nonlocal state
        details[seat] = failure.message
        events.append({"seat": seat, "verdict": failure.verdict.value})
        state = state.forfeit(seat, failure.verdict)

    _prepare(players)
    for number, player in enumerate(players):
        try:
            player.start(setup_info(game, state, number))
        except BotFailure as failure:
            fail(number, failure)
            if state.is_terminal():
                break

    while not state.is_terminal():
        seat = state.current_player()
        assert seat is not None, "a game that is not over has a seat to move"
        try:
            action = bot_decision(players[seat], state)
        except BotFailure as failure:
            fail(seat, failure)
            continue
        before = state
        state = state.apply_action(action)
        events.append({"seat": seat, "action": action})
        if on_step:
            on_step(before, seat, action, state)

    logs = [player.close() for player in players]
    ranking = state.ranking()
    scores = state.scores()
    statuses = seat_statuses(state)
    seats = [
        SeatResult(
            name=player.name,
            score=scores[seat],
            placing=ranking[seat],
            status=statuses[seat],
            detail=details[seat],
            log=logs[seat],
            think_time=round(getattr(player, "think_time", 0.0), 6),
            decisions=getattr(player, "decisions", 0),
        )
        for seat, player in enumerate(players)
    ]
    replay = replay_record(state, initial.config, [player.name for player in players], events)
    return MatchResult(game.name, state.winners(), seats, replay, state)


def bot_decision(player: Player, state: GameState) -> JSON:
    """What `player`, the bot of the seat on move in `state`, decides: the game's own legal action equal to
    what the bot returned (never the bot's value), or BotFailure: the player's own (timeout, crash...), or
    ILLEGAL for anything but a legal action. Every bot decision is taken here, in a match or at a table."""
    seat = state.current_player()
    assert seat is not None, "a bot decides only when its seat is on move"
    proposed = player.act(state.observation(seat))
    try:
        return state.legal_action(proposed)
    except IllegalAction:
        raise BotFailure(Verdict.ILLEGAL, f"returned {short_repr(proposed, ACTION_SHOWN)}, not one of "
                                          "legal_actions") from None


def seat_statuses(state: GameState) -> list[str]:
    """Each seat's status: `ok`, or the verdict it failed with."""
    verdicts = {seat: verdict.value for seat, verdict in state.failures}
    return [verdicts.get(seat, Verdict.OK.value) for seat in range(state.num_players)]


def replay_record(state: GameState, config: dict, names: list[str], events: list[ReplayEvent]) -> Replay:
    """The replay of a game that reached `state` from `config` and `state.seed` by `events` (each seat's
    actions and verdicts), played by the seats `names`: what a match and a table alike keep."""
    return {
        "format": REPLAY_FORMAT,
        "version": REPLAY_VERSION,
        "game": state.game.name,
        "config": config,
        "seed": state.seed,
        "num_players": state.num_players,
        "players": list(names),
        "events": events,
        "result": {
            "winners": state.winners(),
            "scores": state.scores(),
            "placings": state.ranking(),
            "statuses": seat_statuses(state),
        },
    }
