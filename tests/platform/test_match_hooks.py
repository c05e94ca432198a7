"""The hooks other apps hang on a match's status: no receiver depends on another having run, and every path
that changes a status others react to announces it (matches.services.change_status).

Before, the inbox told of a validation by reading the verdict the matches app's receiver had just written,
which held only while INSTALLED_APPS listed matches before notifications; and a cancel or a re-queue was a
bare UPDATE that nobody heard.
"""

import hashlib
from datetime import timedelta

import pytest
from django.utils import timezone

from arena.bots.models import Bot, BotVersion
from arena.matches import services
from arena.matches.models import Match
from arena.matches.signals import match_finished, match_status_changed
from arena.matches.validation import start_validation
from platform_helpers import EXAMPLE_BOT, SLOW_BOT, active_bot, failing_on_the_platform, play_now
from arena.ratings.models import Rating

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["as connected", "reversed"])
def receiver_order(request):
    """Every receiver of the match signals, run in the order the apps connected them, or in the reverse."""
    saved = {signal: list(signal.receivers) for signal in (match_finished, match_status_changed)}
    if request.param == "reversed":
        for signal in saved:
            signal.receivers.reverse()
            signal.sender_receivers_cache.clear()
    yield request.param
    for signal, receivers in saved.items():
        signal.receivers[:] = receivers
        signal.sender_receivers_cache.clear()


def uploaded(bot: Bot, number: int, code: bytes) -> BotVersion:
    version = BotVersion.objects.create(bot=bot, number=number, filename="bot.py", code=code.decode(), size=len(code),
                                        sha256=hashlib.sha256(code).hexdigest())
    start_validation(version)
    return version


def test_the_order_receivers_run_in_changes_nothing_a_user_sees(receiver_order, make_user, in_process_sandbox,
                                                                 monkeypatch, settings):
    settings.ARENA_MATCH_MAX_ATTEMPTS = 1
    ada, bob = make_user("ada"), make_user("bob")
    bot = Bot.objects.create(owner=ada, game="endgame", name="mine")
    good, slow, unlucky = uploaded(bot, 1, EXAMPLE_BOT), uploaded(bot, 2, SLOW_BOT), uploaded(bot, 3, EXAMPLE_BOT)
    failing_on_the_platform(monkeypatch, unlucky.validation_match)
    for version in (good, slow, unlucky):
        play_now(version.validation_match)
    theirs = active_bot(bob, name="theirs")
    practice = play_now(services.challenge(ada, bot, [theirs]))
    rated = play_now(services.create_match("endgame", [bot, theirs], purpose=Match.Purpose.LADDER, rated=True))

    good.refresh_from_db(), slow.refresh_from_db(), unlucky.refresh_from_db()
    assert [good.status, slow.status, unlucky.status] == ["accepted", "rejected", "validating"]
    texts = list(ada.notifications.order_by("id").values_list("text", flat=True))
    assert texts[0] == "ada/mine v1 passed validation and is now active"
    assert texts[1].startswith("ada/mine v2 was rejected by validation: timeout")
    assert texts[2].startswith("ada/mine v3 could not be validated yet: the platform could not run validation")
    assert texts[3].startswith(f"Match #{practice.pk} finished (") and len(texts) == 4, "a ladder match is quiet"
    assert bob.notifications.get().text == texts[3]
    assert sorted(Rating.objects.values_list("played", flat=True)) == [1, 1]
    assert Match.objects.get(pk=rated.pk).seats.filter(rating_after__isnull=False).count() == 2


@pytest.fixture
def heard():
    """(previous, status) of every announced change, and the statuses announced as endings."""
    changes, endings = [], []

    def on_change(sender, match, previous, status, **kwargs):
        changes.append((previous, status))

    def on_ending(sender, match, **kwargs):
        endings.append(match.status)

    match_status_changed.connect(on_change, dispatch_uid="test.heard.change")
    match_finished.connect(on_ending, dispatch_uid="test.heard.ending")
    yield changes, endings
    match_status_changed.disconnect(dispatch_uid="test.heard.change")
    match_finished.disconnect(dispatch_uid="test.heard.ending")


def builtin_match() -> Match:
    return services.create_match("endgame", [Bot.objects.builtin("endgame", "greedy"),
                                             Bot.objects.builtin("endgame", "random")],
                                 purpose=Match.Purpose.CHALLENGE, rated=False)


def test_every_path_that_changes_a_status_announces_it(heard, in_process_sandbox, monkeypatch, settings):
    changes, endings = heard
    settings.ARENA_MATCH_MAX_ATTEMPTS = 2

    play_now(builtin_match())  # finished
    assert (changes, endings) == ([("running", "finished")], ["finished"])

    faulty = builtin_match()
    failing_on_the_platform(monkeypatch, faulty)
    play_now(faulty)  # a platform fault: queued again
    play_now(faulty)  # the last attempt allowed: set aside
    assert changes[1:] == [("running", "queued"), ("running", "set_aside")] and endings[1:] == ["set_aside"]

    assert services.requeue(faulty)  # the staff's re-queue
    assert services.cancel(faulty)  # the staff's cancel
    assert changes[3:] == [("set_aside", "queued"), ("queued", "cancelled")] and endings[1:] == ["set_aside"]

    lost = builtin_match()
    services.claim(lost.pk)
    Match.objects.filter(pk=lost.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert services.requeue_stuck() == 1  # its worker was lost: queued again
    services.claim(lost.pk)
    Match.objects.filter(pk=lost.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert services.claim(lost.pk) is None  # lost on its last attempt: set aside
    assert changes[5:] == [("running", "queued"), ("running", "set_aside")] and endings[2:] == ["set_aside"]

    assert not services.cancel(lost) and not services.requeue(play_now(builtin_match()))
    assert changes[7:] == [("running", "finished")]  # a refused change is not announced


def test_a_cancelled_challenge_or_validation_is_told_to_its_student(make_user):
    ada, bob = make_user("ada"), make_user("bob")
    mine, theirs = active_bot(ada, name="mine"), active_bot(bob, name="theirs")
    match = services.challenge(ada, mine, [theirs], rated=False)
    assert services.cancel(match)
    text = f"Match #{match.pk} (ada/mine vs bob/theirs) was cancelled by the staff before it finished"
    assert [note.text for note in ada.notifications.all()] == [text]
    assert [note.text for note in bob.notifications.all()] == [text]

    version = uploaded(mine, 2, EXAMPLE_BOT)
    assert services.cancel(version.validation_match)
    assert ada.notifications.filter(kind="validation").get().text == (
        "ada/mine v2: its validation was cancelled by the staff; the version stays pending until it is played again")
