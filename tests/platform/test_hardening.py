"""Regressions of the hardening issue, as a user sees them: status codes and messages, never a 500."""

import logging

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from arena.accounts.models import Course
from arena.bots.models import Bot, BotVersion
from arena.matches import services
from arena.matches.models import Match, MatchSeat
from platform_helpers import EXAMPLE_BOT, active_bot

pytestmark = pytest.mark.django_db

DEEP_JSON = "[" * 100_000 + "]" * 100_000


# --- 2. a small request must not exhaust the server ----------------------------------------------------

def test_a_huge_variant_is_refused_before_anything_is_built(api_client, make_user):
    teacher = make_user("teacher")
    course = Course.objects.create(code="algo", name="Algorithms")
    course.instructors.add(teacher)
    api_client.force_authenticate(teacher)
    response = api_client.post(f"/api/courses/{course.pk}/variants/",
                               {"game": "endgame", "name": "huge", "config": {"length": 1_000_000_000}}, format="json")
    assert response.status_code == 400
    assert response.json() == {"config": ["length must be an integer from 1 to 500, not 1000000000"]}
    assert not course.variants.exists()


# --- 3. the seed of an unfinished match is never shown ------------------------------------------------

def test_the_seed_stays_hidden_until_the_match_finished(api_client, ada):
    bot = active_bot(ada, game="sortinggame")
    opponent = Bot.objects.builtin("sortinggame", "honest")
    created = api_client.post("/api/matches/", {"bot": bot.pk, "opponents": [opponent.pk]}, format="json").json()
    assert created["status"] == "queued" and created["seed"] is None
    match = Match.objects.get(pk=created["id"])
    for status in (Match.Status.RUNNING, Match.Status.SET_ASIDE, Match.Status.CANCELLED):
        Match.objects.filter(pk=match.pk).update(status=status)
        shown = api_client.get(f"/api/matches/{match.pk}/").json()
        assert shown["seed"] is None, status
        assert all(row["seed"] is None for row in api_client.get("/api/matches/").json()["results"])
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, replay={}, finished_at=match.created_at)
    assert api_client.get(f"/api/matches/{match.pk}/").json()["seed"] == match.seed


# --- 6. a bot's name cannot break its downloads -------------------------------------------------------

@pytest.mark.parametrize("name", ["two\nlines", "tab\there", "bell\x07", "x" * 61])
def test_a_bad_bot_name_is_refused(api_client, ada, name):
    response = api_client.post("/api/bots/", {"name": name, "game": "endgame"}, format="json")
    assert response.status_code == 400
    assert ("printable" in str(response.json())) or ("60 characters" in str(response.json()))
    assert not Bot.objects.filter(owner=ada).exists()


def test_the_page_refuses_a_bad_bot_name_with_the_reason(client, ada):
    client.force_login(ada)
    response = client.post("/bots/new/", {"name": "two\nlines", "game": "endgame"}, follow=True)
    assert "a bot&#x27;s name must be printable text" in response.content.decode()
    assert not Bot.objects.filter(owner=ada).exists()


@pytest.mark.parametrize("name, header", [
    ('say "hi"', 'attachment; filename="say \\"hi\\"-v1.py"'),
    ("two\nlines", "attachment; filename*=utf-8''two%0Alines-v1.py"),
    ("ünï", "attachment; filename*=utf-8''%C3%BCn%C3%AF-v1.py"),
])
def test_downloads_of_a_bot_with_an_old_odd_name_work(api_client, client, ada, name, header):
    bot = active_bot(ada)
    Bot.objects.filter(pk=bot.pk).update(name=name)  # stored before names were checked
    version = bot.versions.get()
    response = api_client.get(f"/api/versions/{version.pk}/code/")
    assert response.status_code == 200 and response["Content-Disposition"] == header
    assert response.content == EXAMPLE_BOT
    client.force_login(ada)
    assert client.get(f"/bots/{bot.pk}/versions/1/code/")["Content-Disposition"] == header


# --- 7. bad input is a clear 400 ----------------------------------------------------------------------

@pytest.mark.parametrize("url", ["/api/matches/", "/api/bots/", "/api/auth/register/", "/api/auth/token/"])
def test_json_nested_100000_deep_is_a_400(api_client, ada, url):
    response = api_client.post(url, DEEP_JSON, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": "JSON parse error - JSON nested more than 64 levels deep"}


def test_a_deck_file_nested_100000_deep_is_a_400(api_client, make_user):
    teacher = make_user("teacher")
    course = Course.objects.create(code="algo", name="Algorithms")
    course.instructors.add(teacher)
    api_client.force_authenticate(teacher)
    response = api_client.post(f"/api/courses/{course.pk}/variants/", {
        "game": "sortinggame", "name": "deep", "file": SimpleUploadedFile("deck.json", DEEP_JSON.encode())},
        format="multipart")
    assert response.status_code == 400
    assert response.json() == {"file": ["deck.json is not valid JSON: JSON nested more than 64 levels deep"]}


@pytest.mark.parametrize("value", ["abc", "1.5", "99999999999999999999", "-1", "١", ""])
def test_a_bad_bot_filter_on_the_match_list_is_a_400(api_client, ada, value):
    response = api_client.get("/api/matches/", {"bot": value})
    assert response.status_code == 400
    assert response.json() == {"bot": [f"bot must be a whole number from 0 to {2**63 - 1} (digits 0-9 only)"]}


@pytest.mark.parametrize("seat", ["²", "١", "2", "x"])
def test_a_bad_seat_on_a_replay_is_a_400(api_client, ada, seat, in_process_sandbox):
    optimal, greedy = Bot.objects.builtin("endgame", "optimal"), Bot.objects.builtin("endgame", "greedy")
    match = services.create_match("endgame", [optimal, greedy], purpose="challenge", rated=False)
    claimed = services.claim(match.pk)
    services.run(claimed)
    response = api_client.get(f"/api/matches/{match.pk}/replay/", {"seat": seat})
    assert response.status_code == 400
    assert response.json() == {"seat": ["seat must be a whole number from 0 to 1 (digits 0-9 only)"]}
    assert api_client.get(f"/api/matches/{match.pk}/replay/", {"seat": "1"}).json()["seat"] == 1


# --- 8. smaller leaks ---------------------------------------------------------------------------------

def test_a_crash_message_is_private_like_stderr(api_client, client, ada, make_user):
    bot = active_bot(ada)
    match = services.create_match("endgame", [bot, Bot.objects.builtin("endgame", "random")], purpose="challenge",
                                  rated=False)
    MatchSeat.objects.filter(match=match, bot=bot).update(status="crash", detail="KeyError: 'my secret plan'")
    bob = make_user("bob")
    for user, shown in ((bob, None), (ada, "KeyError: 'my secret plan'")):
        api_client.force_authenticate(user)
        seats = api_client.get(f"/api/matches/{match.pk}/").json()["seats"]
        assert next(seat["detail"] for seat in seats if seat["bot"] == bot.pk) == shown
        client.force_login(user)
        assert ("my secret plan" in client.get(f"/matches/{match.pk}/").content.decode()) == (shown is not None)


def test_another_students_version_is_answered_like_a_missing_one(api_client, ada, make_user):
    version = active_bot(ada).versions.get()
    api_client.force_authenticate(make_user("bob"))
    for url in (f"/api/versions/{version.pk}/", f"/api/versions/{version.pk}/code/"):
        hidden, missing = api_client.get(url), api_client.get(url.replace(str(version.pk), "999999"))
        assert hidden.status_code == missing.status_code == 404
        assert hidden.json() == missing.json() == {"detail": "No BotVersion matches the given query."}


MIXED = "must not mix alphabets"
LOOK_ALIKE = "looks like a different one written in Latin letters"


@pytest.mark.parametrize("username, message, page_message", [
    ("\u0430lice", MIXED, MIXED),  # Cyrillic а, Latin lice
    ("\u0430\u0430\u0430", LOOK_ALIKE, LOOK_ALIKE),  # all Cyrillic, reads "aaa"
    ("ＡＤＡ", "that username is taken", "A user with that username already exists"),  # NFKC makes it ADA
])
def test_look_alike_usernames_are_refused(api_client, client, make_user, django_user_model, username, message,
                                          page_message):
    make_user("ada")
    response = api_client.post("/api/auth/register/", {"username": username, "email": "new@uni.example",
                                                       "password": "correct-horse-battery"})
    assert response.status_code == 400 and message in response.json()["username"][0]
    page = client.post("/register/", {"username": username, "password1": "correct-horse-battery",
                                      "password2": "correct-horse-battery"})
    assert page.status_code == 200 and page_message in page.content.decode().replace("&#x27;", "'")
    assert django_user_model.objects.count() == 1


def test_a_username_is_stored_normalised(api_client, django_user_model):
    response = api_client.post("/api/auth/register/", {"username": "ＪＵＲＧＥＮ", "email": "j@uni.example", "password": "correct-horse-battery"})
    assert response.status_code == 201 and response.json()["username"] == "JURGEN"
    assert api_client.post("/api/auth/register/", {"username": "jürgen", "email": "j2@uni.example", "password": "correct-horse-battery"}
                           ).status_code == 201


def test_a_file_name_longer_than_the_column_is_refused(api_client, ada):
    bot = Bot.objects.create(owner=ada, game="endgame", name="mine")
    name = "b" * 118 + ".py"
    response = api_client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile(name, EXAMPLE_BOT)},
                               format="multipart")
    assert response.status_code == 400
    assert response.json() == {"file": ["the file name is longer than 120 characters: rename the file"]}
    assert not BotVersion.objects.exists()


def test_a_refused_page_logs_one_line_without_a_traceback(client, ada, make_user, caplog):
    bot = Bot.objects.create(owner=make_user("bob"), game="endgame", name="theirs")
    client.force_login(ada)
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("b.py", EXAMPLE_BOT)})
    assert response.status_code == 403
    [record] = [r for r in caplog.records if r.name == "django.request"]
    assert logging.Formatter().format(record) == f"Forbidden (Permission denied): /bots/{bot.pk}/upload/"


# --- 9. the schema tells the truth --------------------------------------------------------------------

def test_anonymous_api_requests_get_401_with_www_authenticate(api_client):
    response = api_client.get("/api/bots/")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"
    assert response.json() == {"detail": "Authentication credentials were not provided."}


def test_the_schema_declares_nulls_and_refusals(client):
    import yaml

    schema = yaml.safe_load(client.get("/api/schema/").content)
    components = schema["components"]["schemas"]
    assert components["Bot"]["properties"]["owner"]["nullable"] is True
    assert components["Bot"]["properties"]["rating"]["nullable"] is True
    assert components["Seat"]["properties"]["version"]["nullable"] is True
    assert components["Match"]["properties"]["seed"]["nullable"] is True
    version = schema["paths"]["/api/versions/{id}/"]["get"]["responses"]
    assert {"200", "401", "403", "404"} <= set(version)
    challenge = schema["paths"]["/api/matches/"]["post"]["responses"]
    assert {"201", "400", "401", "403", "429"} <= set(challenge)
    assert "Retry-After" in challenge["429"]["headers"]
