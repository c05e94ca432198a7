"""The bot's side of the protocol, read as what it is: untrusted bytes.

Whatever a bot writes onto its protocol channel (any descriptor the harness holds is reachable from the
bot's own process) comes here, one line at a time, and leaves as exactly one of two things: a checked
`Reply`, or a `ProtocolViolation` whose message its owner can read. Nothing else is raised, whatever the
line holds: nesting 200,000 levels deep, numbers of a million digits, NaN, bytes that are not UTF-8, a
field of the wrong type. The format itself is in docs/bot-protocol.md.

What a bot sends may also end up in its match's record (the log and the verdict's detail): `storable_text`
makes such text something PostgreSQL stores, as a bot's action never reaches the replay at all (the game's
own equal action does, see games.core.GameState.legal_action).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Literal

from games.core import JSON, MAX_JSON_DEPTH, JSONTooDeep, Verdict, cut, loads_json, short_repr

PROTOCOL_VERSION = 1

ReplyType = Literal["ready", "action", "error"]
# Every field of each message the harness sends, no more and no fewer.
FIELDS: dict[str, frozenset[str]] = {
    "ready": frozenset({"v", "seq", "type"}),
    "action": frozenset({"v", "seq", "type", "action"}),
    "error": frozenset({"v", "seq", "type", "kind", "error"}),
}
# An error message's `kind`, and the verdict it earns.
ERROR_VERDICTS = {"crash": Verdict.CRASH, "memory": Verdict.MEMORY, "illegal": Verdict.ILLEGAL}
# How much of an offending line a verdict quotes.
QUOTED_BYTES = 200


class ProtocolViolation(ValueError):
    """A line the protocol does not allow; the message says why, to the bot's owner."""


@dataclasses.dataclass(frozen=True)
class Reply:
    """A well-formed message from the bot: the answer to message `seq` (each field of its type)."""

    seq: int
    type: ReplyType
    # "action" only: the bot's action, any JSON value (the game judges whether it is legal).
    action: JSON = None
    # "error" only: how the bot failed, and its traceback.
    kind: str = ""
    error: str = ""

    @property
    def verdict(self) -> Verdict:
        """The verdict an error message earns."""
        return ERROR_VERDICTS[self.kind]


def read_reply(line: bytes, seq: int, expected: ReplyType) -> Reply | None:
    """The bot's `expected` answer (or its error) to message `seq`, from one line without its newline;
    None for a late answer to an earlier message, which is never this one's; ProtocolViolation otherwise."""
    reply = parse_reply(line)
    if reply.seq < seq:
        return None
    if reply.seq != seq:
        raise ProtocolViolation(f"answered message {reply.seq} while message {seq} was pending")
    if reply.type not in (expected, "error"):
        raise ProtocolViolation(f"sent a {reply.type!r} message where a {expected!r} was due")
    return reply


def parse_reply(line: bytes) -> Reply:
    """One line as a message of the protocol, every field checked; ProtocolViolation if it is none."""
    message = _parse_json(line)
    if not isinstance(message, dict):
        raise ProtocolViolation(f"sent a line that is not a JSON object: {quote_line(line)}")
    version = message.get("v")
    # `type(...) is int`, as true and false are ints to Python (True == 1) but not to JSON.
    if type(version) is not int or version != PROTOCOL_VERSION:  # noqa: E721
        raise ProtocolViolation(f"sent a message without \"v\": {PROTOCOL_VERSION}: {quote_line(line)}")
    seq = message.get("seq")
    if type(seq) is not int or seq < 0:  # noqa: E721
        raise ProtocolViolation(f"sent a message whose \"seq\" is not a message number: {short_repr(seq)}")
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise ProtocolViolation(f"sent a message of unknown type {short_repr(kind)}; the types are "
                                f"{', '.join(FIELDS)}")
    missing = sorted(FIELDS[kind] - message.keys())
    if missing:
        raise ProtocolViolation(f"sent a message of type {kind!r} without {', '.join(map(repr, missing))}")
    unknown = sorted(message.keys() - FIELDS[kind])
    if unknown:
        raise ProtocolViolation(f"sent a message of type {kind!r} with unknown field(s) {short_repr(unknown)}")
    if kind == "error":
        return _error_reply(seq, message)
    return Reply(seq=seq, type=kind, action=message.get("action"))


def _error_reply(seq: int, message: dict) -> Reply:
    kind, error = message["kind"], message["error"]
    if not isinstance(kind, str) or kind not in ERROR_VERDICTS:
        raise ProtocolViolation(f"sent an error message of unknown kind {short_repr(kind)}; the kinds are "
                                f"{', '.join(ERROR_VERDICTS)}")
    if not isinstance(error, str):
        raise ProtocolViolation(f"sent an error message whose \"error\" is not text: {short_repr(error)}")
    return Reply(seq=seq, type="error", kind=kind, error=error)


def _parse_json(line: bytes) -> JSON:
    try:
        text = line.decode("utf-8")  # never json's guess at UTF-16 or UTF-32: the protocol is UTF-8
    except UnicodeDecodeError as error:
        raise ProtocolViolation(f"sent a line that is not UTF-8 (byte {error.start}): {quote_line(line)}") from None
    try:
        return loads_json(text)
    except JSONTooDeep:
        raise ProtocolViolation(f"sent a line nested more than {MAX_JSON_DEPTH} levels deep: "
                                f"{quote_line(line)}") from None
    except ValueError as error:  # not JSON; NaN or Infinity; an integer too long to read
        raise ProtocolViolation(f"sent a line that is not JSON ({cut(str(error), 120)}): "
                                f"{quote_line(line)}") from None


def quote_line(line: bytes) -> str:
    """`line` as a message quotes it: its first QUOTED_BYTES bytes, readable whatever they are."""
    return repr(line[:QUOTED_BYTES]) + ("..." if len(line) > QUOTED_BYTES else "")


# What PostgreSQL cannot store in text: NUL, and (in UTF-8 at all) a surrogate not part of a pair.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable_text(text: str) -> str:
    """`text` with every character PostgreSQL cannot store as text (NUL, a lone surrogate) replaced by
    U+FFFD: a bot's log and its tracebacks may hold anything it printed or raised."""
    return _UNSTORABLE.sub("\ufffd", text)
