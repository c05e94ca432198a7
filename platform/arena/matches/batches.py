"""One engine for batches of games: the games of a grading run, the games of a tournament's series.

A batch queues its games (`queue`), waits until they are settled and then does its work (writes grades,
decides a series). The platform's faults never reach it as such: services.run queues a game the platform
failed again at once and sets aside one that keeps failing (ARENA_MATCH_MAX_ATTEMPTS), so a batch sees
each of its games finished, waiting (queued or running), or set aside (`settle`). A set-aside game never
fails the batch: the batch settles without it, shows what it lacks as INCOMPLETE, and the staff play the
set-aside games again once the cause is fixed (`replay`), after which the batch completes what was missing.
A game cancelled (by a tournament's pause, by an operator) is queued again: a batch waits for every game
it was given.

Each batch's advance step (grading.runs.advance_run, tournaments.services.advance) runs when one of its
games ends (its match_finished receiver publishes a task once the result commits) and every minute (a
periodic task), so a lost message delays a batch but never stalls it: `advance_task` and `advance_all`
are the bodies of those two tasks.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypedDict

from . import services
from .models import Match
from .transient import TRANSIENT_ERRORS, retrying

# What a student's part or a series shows while one of its games is set aside.
INCOMPLETE = "incomplete: platform error"

# Seconds an advance keeps retrying a transient database error in process before handing it to the broker.
ADVANCE_PATIENCE = 30.0


@dataclass(frozen=True)
class Settlement:
    """Where a batch's games stand."""

    finished: int
    waiting: int
    set_aside: tuple[int, ...]  # their match ids

    @property
    def settled(self) -> bool:
        """Nothing left to wait for: every game finished or set aside."""
        return self.waiting == 0

    @property
    def complete(self) -> bool:
        """Every game finished: the batch has all it needs."""
        return self.settled and not self.set_aside


class Progress(TypedDict):
    done: int  # games finished
    set_aside: int
    total: int
    percent: int  # of the games settled (finished or set aside)


def queue(game: str, bots, *, purpose: str, seed: int, versions: dict, config: dict, variant=None,
          rated: bool = False, spectator_delay: int = 0) -> Match:
    """A game of a batch, queued: seated exactly as given (a batch balances its seats itself)."""
    return services.create_match(game, bots, purpose=purpose, rated=rated, versions=versions, config=config,
                                 variant=variant, seed=seed, rotate=False, spectator_delay=spectator_delay)


def settle(matches: Iterable[Match]) -> Settlement:
    """Where `matches` stand; a cancelled one is queued again (and counted as waiting)."""
    finished, waiting, set_aside = 0, 0, []
    for match in matches:
        if match.status == Match.Status.FINISHED:
            finished += 1
        elif match.status == Match.Status.SET_ASIDE:
            set_aside.append(match.pk)
        else:
            if match.status == Match.Status.CANCELLED:
                services.requeue(match)
            waiting += 1
    return Settlement(finished, waiting, tuple(set_aside))


def progress(statuses: list[str]) -> Progress:
    """A batch's progress from its games' statuses."""
    done = statuses.count(Match.Status.FINISHED)
    set_aside = statuses.count(Match.Status.SET_ASIDE)
    total = len(statuses)
    return {"done": done, "set_aside": set_aside, "total": total,
            "percent": 100 if not total else round(100 * (done + set_aside) / total)}


def replay(matches) -> int:
    """Queue the set-aside games among `matches` again, each with fresh attempts (the staff's button, once
    the cause is fixed; the caller checks who may press it); how many were queued."""
    return sum(services.requeue(match) for match in matches.filter(status=Match.Status.SET_ASIDE))


def advance_task(task, advance: Callable, *args) -> None:
    """The body of a batch's advance task: `advance(*args)`, retried through the broker while the database is
    unavailable."""
    try:
        retrying(advance, *args, patience=ADVANCE_PATIENCE)
    except TRANSIENT_ERRORS as exc:
        raise task.retry(exc=exc, countdown=5)


def advance_all(advance: Callable, batch_ids: list[int]) -> int:
    """The body of a batch's periodic task: advance every batch in `batch_ids`; how many."""
    for batch_id in batch_ids:
        retrying(advance, batch_id, patience=ADVANCE_PATIENCE)
    return len(batch_ids)
