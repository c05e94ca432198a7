"""Watching a match while it is played: what the worker writes for spectators, and what they are sent.

The worker does not write per move (a Crazy-KING match makes hundreds of decisions a second): `Spectators`,
the referee's on_step hook, keeps the last few positions in memory and at most every
ARENA_SPECTATOR_INTERVAL_SECONDS saves the public view of the position `match.spectator_delay` moves ago,
then wakes the match's live streams (arena.core.live). Saved where it costs the worker least: in the live
pages' Redis (a fraction of a millisecond) when the platform has one, else in one database row
(MatchProgress: the demo's SQLite file). It is a display, not a record (the replay is): tagged with the
attempt's claim, so that what a lost attempt saved is never shown for the next. Only the game's public view
is ever saved (`GameState.public_view`: no hidden card, no seed, no seat's observation), so nothing a stream
reads can reveal more, and a delayed tournament's never holds a position younger than its delay allows.
When the game is over its last position is saved whole; a match shorter than the interval saves only that
(the page draws the starting position itself).

`snapshot` is what a match's stream sends: its status, and the position spectators may see.
"""

from __future__ import annotations

import json
import logging
import time
from collections import deque

from django.conf import settings
from django.db import DatabaseError
from games import GameState, get_game
from redis import RedisError

from arena.core.live import Snapshot, publish, redis_client, redis_namespace

from .models import Match, MatchProgress

logger = logging.getLogger(__name__)


def topic(match_id: int) -> str:
    return f"match:{match_id}"


class Spectators:
    """The on_step hook of one attempt at playing `match` (see the module's docstring)."""

    def __init__(self, match: Match, num_players: int, *, clock=time.monotonic):
        self.match_id, self.claim = match.pk, str(match.claim)
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
        """Save, then wake. A store that fails costs spectators this update, never the match."""
        try:
            save_progress(self.match_id, {"claim": self.claim, "step": state.step, "view": state.public_view()})
        except (DatabaseError, OSError, RedisError) as error:
            logger.warning("match %s: spectators miss step %s (%s)", self.match_id, state.step, error)
        else:
            publish(topic(self.match_id))
        self.written_at = self.clock()


def _in_redis() -> bool:
    return bool(settings.ARENA_LIVE_REDIS_URL)


def _redis_key(match_id: int) -> str:
    return f"{redis_namespace()}:spectating:{match_id}"


def save_progress(match_id: int, progress: dict) -> None:
    """Keep `progress` (claim, step, view) as what spectators of the match see: one Redis SET or one
    statement (an upsert)."""
    if _in_redis():
        redis_client().set(_redis_key(match_id), json.dumps(progress), ex=PROGRESS_SECONDS)
        return
    MatchProgress.objects.bulk_create([MatchProgress(match_id=match_id, **progress)], update_conflicts=True,
                                      unique_fields=["match"], update_fields=["claim", "step", "view"])


def load_progress(match_id: int) -> dict | None:
    if _in_redis():
        saved = redis_client().get(_redis_key(match_id))
        return json.loads(saved) if saved else None
    row = MatchProgress.objects.filter(match_id=match_id).values("claim", "step", "view").first()
    return row and {**row, "claim": str(row["claim"])}


# How long Redis keeps a match's progress: longer than any match may run (its deadline), with room.
PROGRESS_SECONDS = 2 * 3600


# A status's place in a snapshot's version, so that a change of status alone is a new version.
STATUS_RANK = {status: rank for rank, status in enumerate(Match.Status.values)}
# Steps a match may have, for the version's arithmetic (far more than any game lasts).
STEP_RANGE = 10**7


def snapshot(match_id: int, *, with_view: bool) -> Snapshot | None:
    """What the stream of match `match_id` sends now (None if it is gone): its status, and while it is
    played or once it ended, the step and (`with_view`: the person may see the match's rules) public view of
    the position spectators may see."""
    row = Match.objects.filter(pk=match_id).values("status", "attempts", "claim").first()
    if row is None:
        return None
    progress = load_progress(match_id) if row["claim"] else None
    # What an earlier attempt saved (the match was queued again) shows nothing of this one.
    current = progress is not None and progress["claim"] == str(row["claim"])
    step = progress["step"] if current else None
    payload = {"status": row["status"], "step": step, "view": progress["view"] if current and with_view else None}
    shown = 0 if step is None else step + 1
    version = (row["attempts"] * STEP_RANGE + shown) * len(STATUS_RANK) + STATUS_RANK[row["status"]]
    over = row["status"] in (Match.Status.FINISHED, Match.Status.SET_ASIDE, Match.Status.CANCELLED)
    return Snapshot(version=version, payload=payload, final=over)
