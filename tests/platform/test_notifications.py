"""The inbox: a student hears that a match they started finished, that an upload passed or failed
validation or was refused outright, and that their bot plays a new tournament round; optionally by e-mail."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from arena.bots.models import Bot
from arena.matches import services
from arena.notifications.models import Notification, Preference
from platform_helpers import EXAMPLE_BOT, SLOW_BOT, active_bot, play_now, with_confirmed_email
from tournament_helpers import course_with_bots, entered, play_out
from arena.tournaments import services as tournament_services

pytestmark = pytest.mark.django_db


def test_a_finished_challenge_reaches_both_students_inbox_and_the_header_counts_it(client, signed_in, make_user):
    bob = make_user("bob")
    mine, theirs = active_bot(signed_in, name="mine"), active_bot(bob, name="theirs")
    match = services.challenge(signed_in, mine, [theirs], rated=False)
    assert not Notification.objects.exists()  # nothing before the result
    play_now(match)
    for user in (signed_in, bob):
        note = user.notifications.get()
        assert note.kind == "match" and f"Match #{match.pk} finished" in note.text and note.url == f"/matches/{match.pk}/"
    assert 'class="inbox-count" title="unread">1<' in client.get("/").content.decode()
    inbox = client.get("/inbox/").content.decode()
    assert f"Match #{match.pk} finished (ada/mine vs bob/theirs)" in inbox and 'class="unread' in inbox
    assert 'class="inbox-count" title="unread">1<' in client.get("/").content.decode()  # a GET changes nothing
    newest = signed_in.notifications.get().pk
    assert client.post("/inbox/read/", {"up_to": str(newest)}).status_code == 302
    assert "inbox-count" not in client.get("/").content.decode()  # marked read by the POST
    assert bob.notifications.get().read_at is None  # nobody else's


def test_validation_verdicts_and_refused_uploads_stay_in_the_inbox(client, signed_in, in_process_sandbox):
    bot = Bot.objects.create(owner=signed_in, game="endgame", name="mine")
    client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("good.py", EXAMPLE_BOT)})
    play_now(bot.versions.get().validation_match)
    client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("slow.py", SLOW_BOT)})
    play_now(bot.versions.get(number=2).validation_match)
    client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("broken.py", b"def act(:\n")})
    texts = list(signed_in.notifications.order_by("id").values_list("kind", "text"))
    assert texts[0] == ("validation", "ada/mine v1 passed validation and is now active")
    assert texts[1][0] == "validation" and texts[1][1].startswith("ada/mine v2 was rejected by validation: timeout")
    assert texts[2][0] == "upload" and "broken.py" in texts[2][1] and "syntax error" in texts[2][1]


def test_tournament_rounds_and_the_end_are_announced_to_the_entrants(make_user, in_process_sandbox):
    course, instructor, bots = course_with_bots(make_user, "endgame", 3)
    tournament = entered(instructor, course, bots, game="endgame", format="single-elimination", games_per_series=2)
    tournament_services.start(instructor, tournament)
    play_out(tournament)
    owner = bots[0].owner
    texts = list(owner.notifications.values_list("text", flat=True))
    assert any(text.startswith("Cup, round 1: student00/bot0") for text in texts)
    assert any(text.startswith("Cup is over:") for text in texts)
    assert not instructor.notifications.exists()  # the instructor entered no bot


def test_a_cancelled_tournament_tells_its_entrants_and_nobody_else(make_user, in_process_sandbox):
    course, instructor, bots = course_with_bots(make_user, "endgame", 3)
    tournament = entered(instructor, course, bots[:2], game="endgame", format="round-robin")
    tournament_services.start(instructor, tournament)
    tournament_services.cancel(instructor, tournament)
    for bot in bots[:2]:
        assert bot.owner.notifications.filter(
            kind=Notification.Kind.TOURNAMENT, text="Cup was cancelled by the course's instructors: it has no champion",
            url=f"/tournaments/{tournament.pk}/").exists()
    assert not bots[2].owner.notifications.exists() and not instructor.notifications.exists()


def test_an_email_copy_only_for_students_who_ask_for_it(client, signed_in, make_user, mailoutbox,
                                                        django_capture_on_commit_callbacks):
    signed_in.email = "ada@example.org"
    signed_in.save()
    mine = active_bot(signed_in)
    with django_capture_on_commit_callbacks(execute=True):
        play_now(services.challenge(signed_in, mine, [Bot.objects.builtin("endgame", "greedy")], rated=False))
    assert mailoutbox == []  # not asked for
    client.post("/inbox/email/", {"email": "on"})
    assert Preference.objects.get(user=signed_in).email
    assert "once confirmed" in client.get("/inbox/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        play_now(services.challenge(signed_in, mine, [Bot.objects.builtin("endgame", "optimal")], rated=False))
    assert mailoutbox == []  # an address nobody confirmed may be someone else's
    with_confirmed_email(signed_in, "ada@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        match = play_now(services.challenge(signed_in, mine, [Bot.objects.builtin("endgame", "random")], rated=False))
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["ada@example.org"]
    assert f"Match #{match.pk} finished" in mailoutbox[0].subject and f"/matches/{match.pk}/" in mailoutbox[0].body
