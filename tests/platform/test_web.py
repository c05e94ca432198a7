"""The server-rendered pages: upload, validation verdict, challenge, match status, replay and ladder."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from arena.bots.models import Bot
from arena.matches.models import Match
from platform_helpers import EXAMPLE_BOT, play_now

pytestmark = pytest.mark.django_db


def test_student_uploads_challenges_and_watches_the_replay(client, signed_in, in_process_sandbox, make_user):
    response = client.post("/bots/new/", {"name": "mine", "game": "endgame"})
    bot = Bot.objects.get(owner=signed_in)
    assert response.url == f"/bots/{bot.pk}/"

    client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("mine.py", EXAMPLE_BOT)})
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert "Validating" in page
    play_now(bot.versions.get().validation_match)
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert "(active)" in page and "Challenge" in page

    opponent = Bot.objects.builtin("endgame", "optimal")
    response = client.post(f"/bots/{bot.pk}/challenge/", {"opponents": [opponent.pk]})
    match = Match.objects.get(purpose=Match.Purpose.CHALLENGE)
    assert response.url == f"/matches/{match.pk}/"
    assert "position 1 in the queue" in client.get(response.url).content.decode()

    play_now(match)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "Watch the replay" in page and "stderr is private: its owner sees it" in page
    assert "stderr of ada/mine" in page
    stranger = Client()
    stranger.force_login(make_user("stranger"))
    seen = stranger.get(f"/matches/{match.pk}/").content.decode()
    assert "Watch the replay" in seen and "stderr" not in seen  # no log, and no word about logs it cannot see
    replay = client.get(f"/matches/{match.pk}/replay/").content.decode()
    assert "Points lost against optimal play" in replay and 'id="replay-data"' in replay

    ladder = client.get("/ladder/endgame/").content.decode()
    # The challenge was practice: ada's bot is listed as provisional, unrated, and no chart has data yet.
    provisional = ladder[ladder.index('id="provisional"'):]
    assert "ada/mine" in provisional and 'id="rating-chart-data"' not in ladder


def test_rejected_upload_shows_the_reason(client, signed_in):
    bot = Bot.objects.create(owner=signed_in, game="endgame", name="broken")
    response = client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("b.py", b"def act(:\n")},
                           follow=True)
    assert "Upload rejected: syntax error in b.py, line 1" in response.content.decode()


def test_pages_need_sign_in_except_ladder(client):
    assert client.get("/ladder/endgame/").status_code == 200
    assert client.get("/bots/1/").status_code == 302


def test_register_signs_the_new_student_in(client, django_user_model):
    missing = client.post("/register/", {"username": "newbie", "password1": "correct-horse-battery",
                                         "password2": "correct-horse-battery"})
    assert missing.status_code == 200 and not django_user_model.objects.exists()  # an e-mail address is asked
    response = client.post("/register/", {"username": "newbie", "email": "newbie@uni.example",
                                          "password1": "correct-horse-battery", "password2": "correct-horse-battery"},
                           follow=True)
    assert django_user_model.objects.filter(username="newbie", email="newbie@uni.example").exists()
    page = response.content.decode()
    assert "Your bots" in page and "We sent a link to newbie@uni.example" in page
