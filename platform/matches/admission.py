"""Admitting a challenge from a page or the API: the limits that keep the queue and the ladder fair, checked
before matches.services.challenge queues the match."""

from django.conf import settings

from ratings.fair_play import check_rated_challenge

from . import services
from .models import Match

# What a student over the in-flight limit is told to wait: a typical match takes well under a minute.
IN_FLIGHT_RETRY_SECONDS = 30


class TooManyInFlight(services.ChallengeError):
    """The user already has the most challenges queued or running at once (answered 429, not 400)."""

    retry_after = IN_FLIGHT_RETRY_SECONDS


def admit_challenge(user, bot, opponents, *, rated: bool, variant=None) -> Match:
    """services.challenge, once the user is under the in-flight limit and a rated match keeps the rules of
    ratings.fair_play; ChallengeError (or TooManyInFlight) with the reason otherwise."""
    limit = settings.ARENA_MAX_MATCHES_IN_FLIGHT
    in_flight = Match.objects.filter(created_by=user, purpose=Match.Purpose.CHALLENGE,
                                     status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).count()
    if in_flight >= limit:
        raise TooManyInFlight(f"you already have {in_flight} challenges queued or running, the most at once "
                              f"({limit}): wait until one finishes")
    if rated:
        check_rated_challenge([bot, *opponents])
    return services.challenge(user, bot, opponents, rated=rated, variant=variant)
