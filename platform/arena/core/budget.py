"""One budget for the work people start in the sandbox: challenges, validations of uploads, tables whose
seats include bots, pairing rooms' games against the room's bot.

Each user has one limit of work in flight (queued or being played) and one rate of work started, counted
here and nowhere else. The apps that start such work register a `WorkSource` (their AppConfig.ready) that
reads from their own rows what a user has in flight and when they started what: the database says what is
in flight, so a restart of any process loses nothing and nothing has to be given back when work ends.

`admit` is called in the transaction that creates the work: it locks the user's row first, so that two
requests of one user at once are counted one after the other (the second sees the first's rows), and raises
OverBudget (429, with Retry-After and when to come back in words) rather than let a burst in.

Staff (operators, and the instructors and assistants of a course) have limits of their own; the platform's
own work (grading runs, tournaments) is not a person's and draws from no budget: it has its own priorities
on the queue (core/queue.py, matches.services.claim).
"""

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from .errors import TooMany

PERIOD_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
PERIOD_WORDS = {"s": "second", "m": "minute", "h": "hour", "d": "day"}


class OverBudget(TooMany):
    """Work the user's budget does not admit now (429); `retry_after` says when it will."""


class WorkSource(Protocol):
    """An app's work that runs bots for a user, read from its rows."""

    def in_flight(self, user_id: int) -> int:
        """How many of the user's pieces of work hold a place now (queued or being played)."""

    def started_since(self, user_id: int, since: datetime) -> list[datetime]:
        """When each piece of the user's work started since `since` (counted by the rate)."""


_sources: dict[str, WorkSource] = {}


def register(name: str, source: WorkSource) -> None:
    """Count `source`'s work in every user's budget (once per name: AppConfig.ready may run twice)."""
    _sources[name] = source


@dataclass(frozen=True)
class Limits:
    in_flight: int  # pieces of work queued or being played at once
    starts: int  # pieces of work started per period
    period: str  # "minute", ...
    period_seconds: int

    @classmethod
    def parse(cls, in_flight: int, rate: str) -> "Limits":
        """From a count and a rate such as "10/min" (DRF's notation: the period's first letter counts)."""
        number, _, period = rate.partition("/")
        unit = period.strip()[:1]
        if unit not in PERIOD_SECONDS or not number.strip().isdigit():
            raise ValueError(f"a rate is N/second, N/min, N/hour or N/day, not {rate!r}")
        return cls(in_flight, int(number), PERIOD_WORDS[unit], PERIOD_SECONDS[unit])


def is_staff(user) -> bool:
    """Operators and the staff of any course (its instructors and assistants)."""
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_staff or user.is_superuser:
        return True
    # By the app registry, not an import: core sits below accounts.
    course = apps.get_model("accounts", "Course")
    return course.objects.filter(Q(instructors=user) | Q(teaching_assistants=user)).exists()


def limits_for(user) -> Limits:
    budget = settings.ARENA_BUDGET
    if is_staff(user):
        return Limits.parse(budget["staff_in_flight"], budget["staff_rate"])
    return Limits.parse(budget["in_flight"], budget["rate"])


def admit(user, *, starts: int = 1, holds: int = 1, what: str = "this") -> None:
    """Admit `starts` new pieces of `user`'s work, `holds` of which hold a place in flight until they end;
    OverBudget otherwise. Call it inside the transaction that creates the work (it holds the user's lock
    until that commits). Nobody's budget is drawn for a request without a signed-in user (the platform's)."""
    if not getattr(user, "pk", None):
        return
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("budget.admit belongs in the transaction that creates the work it admits")
    limits = limits_for(user)
    now = timezone.now()
    # One admission of a user at a time, until the work it admitted is committed (NO KEY: rows that refer
    # to the user, a match's created_by, may still be written meanwhile).
    get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).first()
    in_flight = sum(source.in_flight(user.pk) for source in _sources.values())
    if holds and in_flight + holds > limits.in_flight:
        wait = settings.ARENA_BUDGET["retry_seconds"]
        raise OverBudget(
            f"You already have {in_flight} games of bots queued or being played (challenges, validations, tables "
            f"of bots), the most at once ({limits.in_flight}), so {what} cannot start now. "
            f"Try again in {_seconds(wait)}, once one has finished.", retry_after=wait)
    since = now - timedelta(seconds=limits.period_seconds)
    started = sorted(moment for source in _sources.values() for moment in source.started_since(user.pk, since))
    if starts and len(started) + starts > limits.starts:
        # The moment enough of the starts counted leave the period for these to fit.
        leaving = started[min(len(started), len(started) + starts - limits.starts) - 1] if started else now
        wait = max(1, math.ceil((leaving + timedelta(seconds=limits.period_seconds) - now).total_seconds()))
        raise OverBudget(
            f"Too many games of bots started: at most {limits.starts} per {limits.period} (challenges, "
            f"validations, tables of bots), so {what} cannot start now. Try again in {_seconds(wait)}.",
            retry_after=wait)


def _seconds(wait: float) -> str:
    wait = max(1, round(wait))
    return f"{wait} second{'s' if wait != 1 else ''}"
