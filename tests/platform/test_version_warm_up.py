"""A version that passes its validation has its warm container started before its first match (issue 27):
validation itself runs in a cold container of its own, and the first match of the version, in whichever pool
process of the worker, finds the container warm instead of starting it on the match's clock; and two matches
of the same versions at once are played one after the other in it, not in a second container each."""

import pytest
from django.db import transaction
from platform_helpers import EXAMPLE_BOT, wait_for

from arena.bots.models import Bot, BotVersion
from arena.bots.services import create_bot, upload_version
from arena.matches import runner, services
from arena.matches.models import Match
from sandbox.base import waiting_in_shared_pool
from sandbox.pool import WARM_LABEL, warm_label

pytestmark = pytest.mark.django_db(transaction=True)

CRASHING_BOT = b"def act(observation):\n    raise RuntimeError('no idea what to play')\n"


def warm_containers(version) -> list[str]:
    """The ids of the warm containers kept for `version` (sandbox/pool.py labels them by its key)."""
    from sandbox.docker_backend import client

    label = f"{WARM_LABEL}={warm_label(runner.warm_key(version.bot, version))}"
    return [container["Id"] for container in client().api.containers(all=True, filters={"label": label})]


def validated(version: BotVersion) -> BotVersion:
    return wait_for(lambda: (found := BotVersion.objects.get(pk=version.pk)).status != BotVersion.Status.VALIDATING
                    and found, 180, f"the validation of v{version.number}")


def test_an_accepted_versions_first_match_starts_no_container_and_a_rejected_version_warms_nothing(live_worker,
                                                                                                   make_user):
    bot = create_bot(make_user("ada"), "endgame", "mine")
    rejected = validated(upload_version(bot, CRASHING_BOT, "bot.py"))
    assert rejected.status == BotVersion.Status.REJECTED
    accepted = validated(upload_version(bot, EXAMPLE_BOT, "bot.py"))
    assert accepted.status == BotVersion.Status.ACCEPTED, accepted.verdict

    # Warm, and waiting (a match that comes while the warm-up still starts the container starts its own).
    [warmed] = wait_for(lambda: (found := warm_containers(accepted)) and all(map(waiting_in_shared_pool, found))
                        and found, 120, "the accepted version's warm container")
    # (had the rejected version's warm-up been sent, it would have come before the next upload's validation)
    assert warm_containers(rejected) == []

    match = services.create_match("endgame", [bot, Bot.objects.builtin("endgame", "greedy")], rated=True,
                                  purpose=Match.Purpose.CHALLENGE, rotate=False)
    wait_for(lambda: Match.objects.get(pk=match.pk).is_over, 120, "the first match of the accepted version")
    match = services.with_seats(Match.objects.get(pk=match.pk))
    assert match.status == Match.Status.FINISHED, match.error
    seat = match.seats.all()[0]
    assert (seat.version_id, seat.status) == (accepted.pk, "ok")
    assert warm_containers(accepted) == [warmed]  # it played there: a container of its own would have stayed too


def test_two_matches_of_the_same_versions_queued_at_once_share_their_warm_containers(live_worker, make_user):
    """The worker's two pool processes each take one of the two matches at once; the host keeps one container
    per version, so one match is played in them and the other waits for them, within a bound
    (matches.services.claim), instead of starting a second container of each version."""
    bots = [create_bot(make_user(name), "endgame", "mine") for name in ("ada", "bob")]
    versions = [validated(upload_version(bot, EXAMPLE_BOT, "bot.py")) for bot in bots]
    assert [version.status for version in versions] == [BotVersion.Status.ACCEPTED] * 2
    warmed = [wait_for(lambda: (found := warm_containers(version)) and all(map(waiting_in_shared_pool, found))
                       and found, 120, f"the warm container of {version.bot.owner}'s version") for version in versions]

    with transaction.atomic():
        matches = [services.create_match("endgame", bots, rated=True, purpose=Match.Purpose.CHALLENGE)
                   for _ in range(2)]
    wait_for(lambda: all(Match.objects.get(pk=match.pk).is_over for match in matches), 120, "both matches")

    first, second = sorted(Match.objects.filter(pk__in=[match.pk for match in matches]), key=lambda m: m.started_at)
    assert [first.status, second.status] == [Match.Status.FINISHED] * 2, (first.error, second.error)
    assert second.started_at >= first.finished_at  # one after the other, in the same containers
    assert [warm_containers(version) for version in versions] == warmed  # and no other container was kept
