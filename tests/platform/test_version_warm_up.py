"""A version that passes its validation has its warm container started before its first match (issue 27):
validation itself runs in a cold container of its own, and the first match of the version, in whichever pool
process of the worker, finds the container warm instead of starting it on the match's clock."""

import pytest
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
