"""Students never see each other's code or logs, through any endpoint; instructors see their courses only."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from arena.accounts.models import Course
from arena.bots.models import Bot, BotVersion
from arena.matches import services
from platform_helpers import EXAMPLE_BOT, play_now

pytestmark = pytest.mark.django_db

SECRET_LOG_LINE = "private debugging output of ada"
ADA_BOT = EXAMPLE_BOT + f"import sys\nprint({SECRET_LOG_LINE!r}, file=sys.stderr)\n".encode()


@pytest.fixture
def world(make_user, api_client, in_process_sandbox):
    """Ada (student) with a validated bot that played a match against Bob's; an instructor of Ada's course,
    and an instructor of another course."""
    ada, bob = make_user("ada"), make_user("bob")
    teacher, other_teacher = make_user("teacher"), make_user("other-teacher")
    course = Course.objects.create(code="algo", name="Algorithms")
    course.students.add(ada, bob)
    course.instructors.add(teacher)
    Course.objects.create(code="other", name="Other").instructors.add(other_teacher)

    bots = {}
    for user in (ada, bob):
        api_client.force_authenticate(user)
        bot_id = api_client.post("/api/bots/", {"name": "mine", "game": "endgame"}).json()["id"]
        code = ADA_BOT if user == ada else EXAMPLE_BOT
        api_client.post(f"/api/bots/{bot_id}/versions/", {"file": SimpleUploadedFile("bot.py", code)},
                        format="multipart")
        bots[user.username] = Bot.objects.get(pk=bot_id)
        play_now(bots[user.username].versions.get().validation_match)
    match = play_now(services.challenge(ada, bots["ada"], [bots["bob"]]))
    api_client.force_authenticate(None)
    return {"ada": ada, "bob": bob, "teacher": teacher, "other_teacher": other_teacher, "bot": bots["ada"],
            "version": bots["ada"].versions.get(), "match": match}


def private_urls(world) -> list[str]:
    bot, version = world["bot"], world["version"]
    return [f"/api/bots/{bot.pk}/versions/", f"/api/versions/{version.pk}/", f"/api/versions/{version.pk}/code/"]


def ada_log_in_match(api_client, world) -> str | None:
    seats = api_client.get(f"/api/matches/{world['match'].pk}/").json()["seats"]
    return next(seat["log"] for seat in seats if seat["bot"] == world["bot"].pk)


def test_another_student_cannot_fetch_code_versions_or_logs(api_client, world):
    api_client.force_authenticate(world["bob"])
    for url in private_urls(world):
        response = api_client.get(url)
        assert response.status_code in (403, 404), url
        assert SECRET_LOG_LINE not in response.content.decode()
    assert ada_log_in_match(api_client, world) is None
    validation = world["version"].validation_match.pk
    assert SECRET_LOG_LINE not in api_client.get(f"/api/matches/{validation}/").content.decode()
    assert SECRET_LOG_LINE not in api_client.get("/api/matches/").content.decode()
    assert SECRET_LOG_LINE not in api_client.get("/api/versions/").content.decode()
    # Bob may still see the bot itself and the match result.
    assert api_client.get(f"/api/bots/{world['bot'].pk}/").status_code == 200


def test_another_student_sees_no_code_or_logs_on_the_pages(client, world):
    bot, version = world["bot"], world["version"]
    client.force_login(world["bob"])
    assert client.get(f"/bots/{bot.pk}/versions/{version.number}/code/").status_code == 404
    for page in (f"/bots/{bot.pk}/", f"/matches/{world['match'].pk}/", f"/matches/{version.validation_match_id}/"):
        content = client.get(page).content.decode()
        assert SECRET_LOG_LINE not in content and "def act" not in content, page
    client.force_login(world["ada"])
    assert SECRET_LOG_LINE in client.get(f"/matches/{world['match'].pk}/").content.decode()
    assert client.get(f"/bots/{bot.pk}/versions/{version.number}/code/").content == ADA_BOT


def test_the_owner_sees_code_versions_and_logs(api_client, world):
    api_client.force_authenticate(world["ada"])
    for url in private_urls(world):
        assert api_client.get(url).status_code == 200, url
    assert SECRET_LOG_LINE in ada_log_in_match(api_client, world)
    assert SECRET_LOG_LINE in api_client.get("/api/matches/").content.decode()


def test_an_instructor_sees_what_their_students_submitted_only(api_client, world):
    from arena.grading import services as grading_services
    from grading_helpers import open_assignment

    # Taking the course shows the teacher nothing of ada's bots; submitting one to it shows that one.
    api_client.force_authenticate(world["teacher"])
    assert api_client.get(f"/api/versions/{world['version'].pk}/code/").status_code == 404
    assert ada_log_in_match(api_client, world) is None
    course = Course.objects.get(code="algo")
    grading_services.submit(world["ada"], open_assignment(world["teacher"], course), world["bot"])
    assert api_client.get(f"/api/versions/{world['version'].pk}/code/").content == ADA_BOT
    assert SECRET_LOG_LINE in ada_log_in_match(api_client, world)

    api_client.force_authenticate(world["other_teacher"])
    assert api_client.get(f"/api/versions/{world['version'].pk}/code/").status_code in (403, 404)
    assert ada_log_in_match(api_client, world) is None
    assert [c["code"] for c in api_client.get("/api/courses/").json()["results"]] == ["other"]


def test_anonymous_users_get_nothing(api_client, world):
    for url in private_urls(world) + ["/api/bots/", "/api/matches/"]:
        assert api_client.get(url).status_code in (401, 403), url


def test_only_the_owner_uploads_and_challenges_with_a_bot(api_client, world):
    api_client.force_authenticate(world["bob"])
    response = api_client.post(f"/api/bots/{world['bot'].pk}/versions/",
                               {"file": SimpleUploadedFile("bot.py", EXAMPLE_BOT)}, format="multipart")
    assert response.status_code == 403
    assert BotVersion.objects.filter(bot=world["bot"]).count() == 1
    builtin = Bot.objects.builtin("endgame", "greedy")
    response = api_client.post("/api/matches/", {"bot": world["bot"].pk, "opponents": [builtin.pk]}, format="json")
    assert response.status_code == 403
