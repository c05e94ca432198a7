"""Rules for rated matches that keep the ladder honest (stated on the ladder page and in the API guide).

Without them a student could farm Elo: 12 rated wins against builtin:random took a bot from 1500 to
1638, the top of the ladder, and two bots of one owner could trade wins at will. A rated challenge is
refused (ChallengeError, a 400 with the reason) when

- two of its bots have the same owner;
- two of its bots already met in ARENA_RATED_PER_PAIR_PER_DAY rated matches in the last 24 hours;
- one of its students' bots already played ARENA_RATED_BUILTIN_PER_DAY rated matches against built-in
  bots in the last 24 hours.

Matches that ended in a platform error or were cancelled do not count. Unrated challenges are never limited
by these rules.
"""

from datetime import timedelta
from itertools import combinations

from django.conf import settings
from django.utils import timezone

from bots.models import Bot
from matches.models import Match
from matches.services import ChallengeError

DAY = timedelta(hours=24)


def rules_text() -> list[str]:
    """The rules in words, with the configured numbers: what the ladder page states."""
    return [
        "Two bots of the same owner never play each other rated.",
        f"Two bots play each other rated at most {settings.ARENA_RATED_PER_PAIR_PER_DAY} times in any 24 hours.",
        f"A bot plays rated against the built-in bots at most {settings.ARENA_RATED_BUILTIN_PER_DAY} times in any "
        "24 hours.",
        "Course variants are never rated. Over a limit, play unrated or wait.",
    ]


def on_challenge_requested(sender, bots: list[Bot], rated: bool, **kwargs) -> None:
    """The challenge_requested receiver: a rated challenge must keep the rules above."""
    if rated:
        check_rated_challenge(bots)


def check_rated_challenge(bots: list[Bot], now=None) -> None:
    """ChallengeError with the reason unless a rated match between `bots` is allowed by the rules above."""
    owners = [bot.owner_id for bot in bots if not bot.is_builtin]
    if len(owners) != len(set(owners)):
        raise ChallengeError("a rated match cannot seat two bots of the same owner: play it unrated")
    recent = Match.objects.filter(rated=True, created_at__gte=(now or timezone.now()) - DAY).exclude(
        status__in=[Match.Status.SET_ASIDE, Match.Status.CANCELLED])
    per_pair = settings.ARENA_RATED_PER_PAIR_PER_DAY
    for first, second in combinations(bots, 2):
        if recent.filter(seats__bot=first).filter(seats__bot=second).distinct().count() >= per_pair:
            raise ChallengeError(f"{first} and {second} already played {per_pair} rated matches in the last 24 "
                                 f"hours, the most a pair may: play unrated or wait")
    if any(bot.is_builtin for bot in bots):
        per_bot = settings.ARENA_RATED_BUILTIN_PER_DAY
        for bot in bots:
            if not bot.is_builtin and recent.filter(seats__bot=bot).filter(
                    seats__bot__owner__isnull=True).distinct().count() >= per_bot:
                raise ChallengeError(f"{bot} already played {per_bot} rated matches against built-in bots in the "
                                     f"last 24 hours, the most a bot may: play unrated or wait")
