"""Watching a match while it is played: what the worker writes for spectators, and what they are sent.

The worker does not write per move (a Crazy-KING match makes hundreds of decisions a second): `Spectators`,
the referee's on_step hook, keeps the last few positions in memory and at most every
ARENA_SPECTATOR_INTERVAL_SECONDS writes one row (MatchProgress, one statement) with the public view of the
position `match.spectator_delay` moves ago, then wakes the match's live streams (arena.core.live). Only the
game's public view is ever written (`GameState.public_view`: no hidden card, no seed, no seat's observation),
so nothing a stream reads can reveal more, and a delayed tournament's row never holds a position younger
than its delay allows. When the game is over its last position is written whole: a match shorter than the
interval costs that one statement (the page draws the starting position itself).

`snapshot` is what a match's stream sends: its status, and the position spectators may see.
"""

from __future__ import annotations

import logging
import time
from collections import deque

from django.conf import settings
from django.db import DatabaseError
from games import GameState, get_game

from arena.core.live import Snapshot, publish

from .models import Match, MatchProgress

logger = logging.getLogger(__name__)


def topic(match_id: int) -> str:
    return f"match:{match_id}"


class Spectators:
    """The on_step hook of one attempt at playing `match` (see the module's docstring)."""

    def __init__(self, match: Match, num_players: int, *, clock=time.monotonic):
        self.match_id, self.attempt = match.pk, match.attempts
        self.clock = clock
        self.interval = settings.ARENA_SPECTATOR_INTERVAL_SECONDS
        # The position spectators see is the oldest of these: `delay` moves behind the newest.
        start = get_game(match.game).new_game(num_players, match.config, match.seed)
        self.recent: deque[GameState] = deque([start], maxlen=match.spectator_delay + 1)
        self.written_at = self.clock()

    def __call__(self, before: GameState, seat: int, action, after: GameState) -> None:
        self.recent.append(after)
        if self.clock() - self.written_at >= self.interval:
            self._write(self.recent[0])

    def over(self, final: GameState) -> None:
        """The game ended (at `final`): spectators may see all of it now."""
        self._write(final)

    def _write(self, state: GameState) -> None:
        """One statement (an upsert: this attempt's first write creates the row, or takes over an earlier
        attempt's), then the wake-up. A database that fails it costs spectators this update, never the match."""
        row = MatchProgress(match_id=self.match_id, attempt=self.attempt, step=state.step, view=state.public_view())
        try:
            MatchProgress.objects.bulk_create([row], update_conflicts=True, unique_fields=["match"],
                                              update_fields=["attempt", "step", "view"])
        except DatabaseError as error:
            logger.warning("match %s: spectators miss step %s (%s)", self.match_id, state.step, error)
        else:
            publish(topic(self.match_id))
        self.written_at = self.clock()


# A status's place in a snapshot's version, so that a change of status alone is a new version.
STATUS_RANK = {status: rank for rank, status in enumerate(Match.Status.values)}
# Steps a match may have, for the version's arithmetic (far more than any game lasts).
STEP_RANGE = 10**7


def snapshot(match_id: int, *, with_view: bool) -> Snapshot | None:
    """What the stream of match `match_id` sends now (None if it is gone): its status, and while it is
    played or once it ended, the step and (`with_view`: the person may see the match's rules) public view of
    the position spectators may see. One query."""
    row = (Match.objects.filter(pk=match_id)
           .values("status", "attempts", "progress__attempt", "progress__step", "progress__view").first())
    if row is None:
        return None
    # A row from an earlier attempt (the match was queued again) shows nothing of this one.
    current = row["progress__attempt"] == row["attempts"] and row["status"] != Match.Status.QUEUED
    step = row["progress__step"] if current else None
    payload = {"status": row["status"], "step": step, "view": row["progress__view"] if current and with_view else None}
    shown = 0 if step is None else step + 1
    version = (row["attempts"] * STEP_RANGE + shown) * len(STATUS_RANK) + STATUS_RANK[row["status"]]
    over = row["status"] in (Match.Status.FINISHED, Match.Status.SET_ASIDE, Match.Status.CANCELLED)
    return Snapshot(version=version, payload=payload, final=over)
