"""`python -m games play`: a person plays at a table in the terminal, against built-ins, bot files or each other.

The person sees their own seat's view only and picks a move from the numbered list of its labelled choices
(`GameState.move_choices`); whatever else they type is refused and they are asked again. The table
(games/table.py) judges every move, keeps the time per move and records the game, which ends as a replay
like any match's.
"""

from __future__ import annotations

import os
import random
import select
import time
from collections.abc import Mapping
from typing import BinaryIO, TextIO

from .core import MoveChoice
from .referee import Player
from .table import MoveTooLate, Table

# The longest line a person's answer may be; anything longer is refused whole (and read no further than
# needed to find its end), so pasting a book into the prompt costs nothing.
MAX_LINE_BYTES = 1_000


class EndOfInput(Exception):
    """The person's input ended (Ctrl-D, a closed pipe): they have left the table."""


class OutOfTime(Exception):
    """The person's time per move ran out while the terminal waited for their answer."""


class LineReader:
    """Lines typed into a binary stream (stdin), each read within a deadline and at most MAX_LINE_BYTES long.

    `read_line` returns the line's text, or None for a line that is too long or is not UTF-8 (the caller
    asks again); raises EndOfInput at the end of the input and OutOfTime at the deadline."""

    def __init__(self, stream: BinaryIO):
        self.fd = stream.fileno()
        self.pending = b""  # bytes read past the last line returned
        self.refused = ""  # why the last line was refused

    def read_line(self, deadline: float | None) -> str | None:
        line, too_long = b"", False
        while True:
            end = self.pending.find(b"\n")
            if end >= 0:
                line, self.pending = line + self.pending[:end], self.pending[end + 1:]
                return self._text(line, too_long)
            if too_long:
                self.pending = b""
            else:
                line, self.pending = line + self.pending, b""
                if len(line) > MAX_LINE_BYTES:
                    too_long, line = True, b""
            chunk = self._read(deadline)
            if not chunk:
                if line and not too_long:
                    return self._text(line, False)  # a last line without its newline
                raise EndOfInput
            self.pending = chunk

    def _read(self, deadline: float | None) -> bytes:
        if deadline is not None:
            ready, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.time()))
            if not ready:
                raise OutOfTime
        return os.read(self.fd, 65_536)

    def _text(self, line: bytes, too_long: bool) -> str | None:
        if too_long or len(line) > MAX_LINE_BYTES:
            self.refused = f"that line is longer than {MAX_LINE_BYTES} characters"
            return None
        try:
            return line.decode("utf-8").strip()
        except UnicodeDecodeError:
            self.refused = "that line is not UTF-8 text"
            return None


def pick(choices: list[MoveChoice], answer: str) -> MoveChoice | None:
    """The choice `answer` names: its number in the list, or its label (case aside); None if none."""
    if answer.isdigit() and len(answer) <= 6 and 1 <= int(answer) <= len(choices):
        return choices[int(answer) - 1]
    folded = answer.casefold()
    return next((choice for choice in choices if choice.label.casefold() == folded), None)


def play_to_the_end(table: Table, players: Mapping[int, Player], reader: LineReader, out: TextIO) -> None:
    """Play the game at `table` to its end: the people at this terminal through `reader`, each bot seat
    through its player in `players` (started first, as in any match); every verdict is told as it falls."""
    for seat, player in players.items():
        table.start_bot(seat, player)
    told = _tell_verdicts(table, 0, out)
    while not table.over:
        seat = table.seat_on_move
        if table.seats[seat].human:
            human_turn(table, reader, out)
        else:
            before = table.state
            action = table.bot_move(players[seat])
            line = None if action is None else move_line(table, before, seat, action)
            if line:
                print(line, file=out)
        told = _tell_verdicts(table, told, out)


def _tell_verdicts(table: Table, told: int, out: TextIO) -> int:
    """Print the verdicts among the events after the first `told`; the number of events now."""
    for event in table.events[told:]:
        if "verdict" in event:
            seat, detail = event["seat"], table.details[event["seat"]]
            print(f"seat {seat} ({table.seats[seat].name}) is out: {event['verdict']}"
                  + (f" ({detail})" if detail else ""), file=out)
    return len(table.events)


def human_turn(table: Table, reader: LineReader, out: TextIO) -> None:
    """Show the person on move their view and choices, and play the move they pick: asked again after any
    answer that is not a choice; the seat loses on time at the deadline, or leaves at the end of input."""
    seat = table.seat_on_move
    print(f"\nseat {seat} ({table.seats[seat].name}), your move. What you see:", file=out)
    print(_indent(table.game.render(table.state, seat)), file=out)
    choices = table.choices(seat)
    _show_choices(choices, out)
    while True:
        deadline = table.deadline
        left = "" if deadline is None else f" ({max(0, round(deadline - time.time()))} s left)"
        print(f"your choice, 1 to {len(choices)}{left}: ", end="", file=out, flush=True)
        try:
            answer = reader.read_line(deadline)
        except OutOfTime:
            table.expire()
            print(f"\ntime is up: seat {seat} loses on time", file=out)
            return
        except EndOfInput:
            table.leave(seat)
            print(f"\nend of input: seat {seat} leaves the table and loses", file=out)
            return
        if answer is None:
            print(f"{reader.refused}; type the number of a move", file=out)
            continue
        if not answer:
            _show_choices(choices, out)
            continue
        choice = pick(choices, answer)
        if choice is None:
            shown = answer if len(answer) <= 40 else answer[:37] + "..."
            print(f"{shown!r} is not one of the moves: type a number from 1 to {len(choices)}", file=out)
            continue
        try:
            table.human_move(seat, table.turn, choice.action)
        except MoveTooLate:  # typed as the clock ran out: the table has recorded the verdict
            print(f"time is up: seat {seat} loses on time", file=out)
            return
        print(f"seat {seat}: {choice.label}", file=out)
        return


def move_line(table: Table, before, seat: int, action) -> str | None:
    """A bot's move as the people at the table may read it: the game's description of it when the game
    hides nothing from any of them, else None (the description may name a card one of them may not see;
    their own view, shown at their turn, tells what they may know of the moves)."""
    people = [other for other, sitter in enumerate(table.seats) if sitter.human]
    if all(before.hidden_variant(person, random.Random(0)) is None for person in people):
        return f"seat {seat} ({table.seats[seat].name}) {table.game.describe_action(before, action)}"
    return None


def _show_choices(choices: list[MoveChoice], out: TextIO) -> None:
    width = len(str(len(choices)))
    for number, choice in enumerate(choices, start=1):
        print(f"  {number:>{width}}. {choice.label}", file=out)


def _indent(text: str) -> str:
    return "\n".join("      " + line for line in text.splitlines())
