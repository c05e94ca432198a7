"""Rules for rated matches that keep the ladder honest (stated on the ladder page and in the API guide).

Without them a student could farm Elo: 12 rated wins against builtin:random took a bot from 1500 to
1638, the top of the ladder, and two bots of one owner could trade wins at will. A rated challenge is
refused (ChallengeError, a 400 with the reason) when

- two of its bots have the same owner;
- the owners of two of its bots already met (with any of their bots) in ARENA_RATED_PER_PAIR_PER_DAY rated
  matches in the last 24 hours: counted per owner, a second account's throwaway bots gain nothing;
- one of its students' bots already played ARENA_RATED_BUILTIN_PER_DAY rated matches against built-in
  bots in the last 24 hours.

Matches that ended in a platform error or were cancelled do not count. Unrated challenges are never limited
by these rules. Besides, a result against a less proven opponent moves a rating by a quarter
(ratings.services.weights).
"""

from datetime import timedelta
from itertools import combinations

from django.conf import settings
from django.utils import timezone

from arena.bots.models import Bot
from arena.matches.models import Match
from arena.matches.services import ChallengeError

DAY = timedelta(hours=24)


def rules_text() -> list[str]:
    """The rules in words, with the configured numbers: what the ladder page states."""
    return [
        "Two bots of the same owner never play each other rated.",
        f"The bots of two owners play each other rated at most {settings.ARENA_RATED_PER_PAIR_PER_DAY} times in any "
        "24 hours, whichever of their bots play.",
        f"A bot plays rated against the built-in bots at most {settings.ARENA_RATED_BUILTIN_PER_DAY} times in any "
        "24 hours.",
        f"A result against a less proven opponent (an account younger than {settings.ARENA_NEW_ACCOUNT_DAYS} days "
        f"where yours is older, or a provisional bot where yours has {settings.ARENA_PROVISIONAL_GAMES} rated "
        f"matches) moves your rating by {settings.ARENA_LESS_PROVEN_WEIGHT:.0%} of the Elo change; between equals "
        "it counts in full.",
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
    for first, second in combinations([bot for bot in bots if not bot.is_builtin], 2):
        met = recent.filter(seats__bot__owner=first.owner_id).filter(seats__bot__owner=second.owner_id).distinct()
        if met.count() >= per_pair:
            raise ChallengeError(f"the bots of {first.owner} and {second.owner} already played {per_pair} rated "
                                 f"matches in the last 24 hours, the most two owners may: play unrated or wait")
    if any(bot.is_builtin for bot in bots):
        per_bot = settings.ARENA_RATED_BUILTIN_PER_DAY
        for bot in bots:
            if not bot.is_builtin and recent.filter(seats__bot=bot).filter(
                    seats__bot__owner__isnull=True).distinct().count() >= per_bot:
                raise ChallengeError(f"{bot} already played {per_bot} rated matches against built-in bots in the "
                                     f"last 24 hours, the most a bot may: play unrated or wait")
