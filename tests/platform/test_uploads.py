"""Uploading versions: bad files are rejected with a clear message; good ones become immutable versions."""

import hashlib

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from arena.bots.models import Bot, BotVersion
from platform_helpers import EXAMPLE_BOT, play_now

pytestmark = pytest.mark.django_db


@pytest.fixture
def student(make_user, api_client):
    user = make_user("ada")
    api_client.force_authenticate(user)
    return user


@pytest.fixture
def bot(student):
    return Bot.objects.create(owner=student, game="endgame", name="first")


def upload(api_client, bot, content: bytes, name="bot.py"):
    return api_client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile(name, content)},
                           format="multipart")


@pytest.mark.parametrize("content, name, message", [
    (b"def act(obs):\n    return 'left'\n\xff\xfe", "bot.py", "not UTF-8"),
    (b"def act(obs)\n    return 'left'\n", "bot.py", "syntax error in bot.py, line 1"),
    (b"def play(obs):\n    return 'left'\n", "bot.py", "defines neither act"),
    (b"def act(obs):\n    return 'left'\n", "bot.txt", "upload a Python file"),
    (b"   \n", "bot.py", "empty"),
])
def test_bad_upload_is_rejected_with_a_clear_message(api_client, bot, content, name, message):
    response = upload(api_client, bot, content, name)
    assert response.status_code == 400
    assert message in response.json()["file"][0]
    assert not BotVersion.objects.exists()


def test_oversized_upload_is_rejected(api_client, bot, settings):
    settings.ARENA_MAX_UPLOAD_BYTES = 100
    response = upload(api_client, bot, EXAMPLE_BOT + b"#" * 100)
    assert response.status_code == 400
    assert "larger than the limit of 100 bytes" in response.json()["file"][0]


def padded_bot(size: int) -> bytes:
    """The example bot followed by a comment line, `size` bytes in all."""
    return EXAMPLE_BOT + b"#" * (size - len(EXAMPLE_BOT))


@pytest.mark.parametrize("extra, accepted", [(0, True), (1, False)])
def test_api_upload_at_the_default_limit_is_accepted_and_one_byte_more_is_not(api_client, bot, extra, accepted):
    limit = settings.ARENA_MAX_UPLOAD_BYTES
    response = upload(api_client, bot, padded_bot(limit + extra))
    if accepted:
        assert response.status_code == 201, response.content
        assert BotVersion.objects.get().size == limit
    else:
        assert response.status_code == 400
        assert response.json()["file"] == [f"bot.py is larger than the limit of {limit} bytes"]
        assert not BotVersion.objects.exists()


@pytest.mark.parametrize("extra, accepted", [(0, True), (1, False)])
def test_web_upload_at_the_default_limit_is_accepted_and_one_byte_more_is_not(client, student, bot, extra, accepted):
    limit = settings.ARENA_MAX_UPLOAD_BYTES
    client.force_login(student)
    response = client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("bot.py", padded_bot(limit + extra))},
                           follow=True)
    page = response.content.decode()
    if accepted:
        assert BotVersion.objects.get().size == limit
        assert "Upload rejected" not in page
    else:
        assert f"Upload rejected: bot.py is larger than the limit of {limit} bytes" in page
        assert not BotVersion.objects.exists()


def test_each_upload_is_a_new_version_with_its_hash(api_client, bot):
    first = upload(api_client, bot, EXAMPLE_BOT).json()
    second = upload(api_client, bot, EXAMPLE_BOT + b"# tweak\n").json()
    assert (first["number"], second["number"]) == (1, 2)
    assert first["sha256"] == hashlib.sha256(EXAMPLE_BOT).hexdigest()
    assert first["status"] == second["status"] == "validating"
    listed = api_client.get(f"/api/bots/{bot.pk}/versions/").json()["results"]
    assert [v["number"] for v in listed] == [2, 1]
    assert api_client.get(f"/api/versions/{first['id']}/code/").content == EXAMPLE_BOT


def test_a_byte_order_mark_is_stripped_not_refused(api_client, bot):
    """Editors on Windows may start a UTF-8 file with a byte-order mark; Python reads such files, so do we."""
    response = upload(api_client, bot, b"\xef\xbb\xbf" + EXAMPLE_BOT)
    assert response.status_code == 201, response.content
    assert api_client.get(f"/api/versions/{response.json()['id']}/code/").content == EXAMPLE_BOT


def test_validation_activates_a_working_version_and_rejects_a_crashing_one(api_client, bot, in_process_sandbox):
    good = BotVersion.objects.get(pk=upload(api_client, bot, EXAMPLE_BOT).json()["id"])
    play_now(good.validation_match)
    crashing = b"import sys\ndef act(obs):\n    print('about to fail', file=sys.stderr)\n    raise RuntimeError('boom')\n"
    bad = BotVersion.objects.get(pk=upload(api_client, bot, crashing).json()["id"])
    play_now(bad.validation_match)

    versions = {v["number"]: v for v in api_client.get(f"/api/bots/{bot.pk}/versions/").json()["results"]}
    assert versions[1]["status"] == "accepted"
    assert versions[2]["status"] == "rejected"
    assert versions[2]["verdict"].startswith("crash")
    assert "about to fail" in versions[2]["validation_log"]
    # The newest version that passed validation stays the active one.
    assert api_client.get(f"/api/bots/{bot.pk}/").json()["active_version"]["number"] == 1


def test_a_host_without_any_sandbox_plays_no_student_code(api_client, bot, settings, monkeypatch, tmp_path):
    import sandbox

    settings.ARENA_SANDBOX = ""  # the default: the best sandbox the host has
    monkeypatch.setattr(sandbox, "best_backend", lambda: "none")
    witness = tmp_path / "ran"
    code = f"open({str(witness)!r}, 'w').close()\ndef act(obs):\n    return 'left'\n".encode()
    version = BotVersion.objects.get(pk=upload(api_client, bot, code).json()["id"])
    for _ in range(settings.ARENA_MATCH_MAX_ATTEMPTS):  # a platform fault: tried again at once, then set aside
        match = play_now(version.validation_match)

    assert match.status == match.Status.SET_ASIDE and "ARENA_SANDBOX=none" in match.error
    assert not witness.exists(), "the bot's code ran without a sandbox"
    version.refresh_from_db()
    # Not the bot's fault: the version is not rejected, it waits for the staff to play its validation again.
    assert version.status == BotVersion.Status.VALIDATING
    assert "no sandbox works on this host" in version.verdict
