"""Rate limits at their real settings: the request past a limit gets 429, the limit in words and Retry-After.

The reported abuse: 97 challenges in 10 s from one student, 40 wrong passwords on the token endpoint and
20 anonymous registrations in 15 s, all accepted.
"""

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile

from arena.bots.models import Bot
from arena.matches.models import Match
from platform_helpers import EXAMPLE_BOT, active_bot

pytestmark = pytest.mark.django_db


def allowed(scope: str) -> int:
    """How many requests the configured rate admits per period."""
    return int(django_settings.ARENA_RATES[scope].split("/")[0])


def assert_throttled(response, message: str):
    assert response.status_code == 429
    assert message in response.json()["detail"]
    assert 1 <= int(response["Retry-After"]) <= 3600


def challenge(api_client, bot):
    opponent = Bot.objects.builtin("endgame", "random")
    return api_client.post("/api/matches/", {"bot": bot.pk, "opponents": [opponent.pk]}, format="json")


def budget_rate() -> int:
    """How many pieces of bot work a student's budget (arena.core.budget) admits per period."""
    return int(django_settings.ARENA_BUDGET["rate"].split("/")[0])


def test_challenges_past_the_rate_are_refused(api_client, ada, settings):
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 1000}  # this test is about the rate alone
    bot = active_bot(ada)
    for _ in range(budget_rate()):
        assert challenge(api_client, bot).status_code == 201
    assert_throttled(challenge(api_client, bot), f"Too many games of bots started: at most {budget_rate()} per minute")
    assert Match.objects.filter(purpose="challenge").count() == budget_rate()
    # Reading is never limited.
    assert api_client.get("/api/matches/").status_code == 200


def test_a_lowered_rate_applies_at_once(api_client, ada, settings):
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "rate": "2/hour"}
    bot = active_bot(ada)
    assert [challenge(api_client, bot).status_code for _ in range(3)] == [201, 201, 429]
    assert int(challenge(api_client, bot)["Retry-After"]) > 60


def test_challenges_in_flight_are_capped(api_client, ada, settings):
    bot = active_bot(ada)
    for _ in range(settings.ARENA_BUDGET["in_flight"]):
        assert challenge(api_client, bot).status_code == 201
    response = challenge(api_client, bot)
    assert_throttled(response, f"You already have {settings.ARENA_BUDGET['in_flight']} games of bots queued or being played")
    Match.objects.filter(purpose="challenge").update(status=Match.Status.FINISHED, replay={}, finished_at="2026-01-01T00:00Z")
    assert challenge(api_client, bot).status_code == 201


def test_uploads_past_the_rate_are_refused(api_client, ada, settings):
    # About the uploads' own rate alone: their validations' budget for bot work is test_budget.py's.
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 1000, "rate": "1000/min"}
    bot = Bot.objects.create(owner=ada, game="endgame", name="mine")
    url = f"/api/bots/{bot.pk}/versions/"
    for _ in range(allowed("upload")):
        response = api_client.post(url, {"file": SimpleUploadedFile("b.py", EXAMPLE_BOT)}, format="multipart")
        assert response.status_code == 201
    response = api_client.post(url, {"file": SimpleUploadedFile("b.py", EXAMPLE_BOT)}, format="multipart")
    assert_throttled(response, "Too many uploads")
    assert bot.versions.count() == allowed("upload")


def test_wrong_passwords_on_the_token_endpoint_are_limited_per_address_and_account(api_client, make_user):
    make_user("bob")
    # Look-alike spellings of one name are that name to the limit (the sign-in form normalises them to it).
    spellings = ["bob", "ｂob", "𝐛ob", "BOB", "Bob"]
    for attempt in range(allowed("sign_in")):
        response = api_client.post("/api/auth/token/", {"username": spellings[attempt % len(spellings)],
                                                         "password": "guess"}, format="json")
        assert response.status_code == 400
    # From this address even the right password waits now...
    response = api_client.post("/api/auth/token/", {"username": "ｂob", "password": "bob-pass-1234"}, format="json")
    assert_throttled(response, "Too many sign-in attempts for this account from your address")
    # ...but bob, elsewhere, is not locked out by someone failing on purpose.
    response = api_client.post("/api/auth/token/", {"username": "bob", "password": "bob-pass-1234"}, format="json",
                               REMOTE_ADDR="10.1.2.3")
    assert response.status_code == 200 and response.json()["token"]


def test_one_address_trying_many_accounts_is_limited(api_client, settings):
    settings.ARENA_RATES = {**settings.ARENA_RATES, "credentials_address": "5/min"}
    for number in range(5):
        response = api_client.post("/api/auth/token/", {"username": f"user{number}", "password": "guess"}, format="json")
        assert response.status_code == 400
    response = api_client.post("/api/auth/token/", {"username": "user9", "password": "guess"}, format="json")
    assert_throttled(response, "Too many sign-in and password reset attempts from your address")
    response = api_client.post("/accounts/password_reset/", {"email": "someone@uni.example"})
    assert response.status_code == 429


def test_password_reset_requests_are_limited(client, make_user):
    make_user("ada", email="ada@uni.example")
    for _ in range(allowed("password_reset")):
        assert client.post("/accounts/password_reset/", {"email": "ada@uni.example"}).status_code == 302
    response = client.post("/accounts/password_reset/", {"email": "ADA@uni.example"})
    assert response.status_code == 429 and "Too many password reset requests" in response.content.decode()
    assert client.post("/accounts/password_reset/", {"email": "ada@uni.example"},
                       REMOTE_ADDR="10.1.2.3").status_code == 302


def test_registration_refuses_a_name_that_normalises_to_a_taken_one(api_client, make_user):
    make_user("bob")
    make_user("straße")
    for look_alike in ("ｂob", "𝐛ob", "BOB", "STRASSE"):
        response = api_client.post("/api/auth/register/", {"username": look_alike, "email": "a@uni.example", "password": "correct-horse-battery"})
        assert response.status_code == 400, look_alike
        assert "taken" in str(response.json())


@pytest.mark.parametrize("page", ["/accounts/login/", "/admin/login/"])
def test_sign_in_page_attempts_are_limited(client, make_user, page):
    make_user("ada", is_staff=True)
    for _ in range(allowed("sign_in")):
        assert client.post(page, {"username": "ada", "password": "guess"}).status_code == 200
    response = client.post(page, {"username": "ada", "password": "ada-pass-1234"})
    assert response.status_code == 429 and int(response["Retry-After"]) >= 1
    assert "Too many sign-in attempts for this account from your address" in response.content.decode()
    assert client.get(page).status_code == 200


def test_anonymous_registrations_are_limited_per_address(api_client, client, django_user_model):
    for number in range(allowed("register")):
        response = api_client.post("/api/auth/register/", {"username": f"new{number}", "email": f"new{number}@uni.example", "password": "correct-horse-battery"})
        assert response.status_code == 201
    response = api_client.post("/api/auth/register/", {"username": "one-more", "email": "one@uni.example", "password": "correct-horse-battery"})
    assert_throttled(response, f"Too many new accounts from your address: at most {allowed('register')} per hour")
    # The page counts the same address.
    page = client.post("/register/", {"username": "page-user", "password1": "correct-horse-battery",
                                      "password2": "correct-horse-battery"})
    assert page.status_code == 429 and "Too many new accounts" in page.content.decode()
    assert not django_user_model.objects.filter(username__in=["one-more", "page-user"]).exists()


def test_challenges_from_the_page_are_limited_too(client, ada, settings):
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "rate": "1/min"}
    client.force_login(ada)
    bot = active_bot(ada)
    opponent = Bot.objects.builtin("endgame", "random")
    assert client.post(f"/bots/{bot.pk}/challenge/", {"opponents": [opponent.pk]}).status_code == 302
    response = client.post(f"/bots/{bot.pk}/challenge/", {"opponents": [opponent.pk]})
    assert response.status_code == 429 and int(response["Retry-After"]) >= 1
    assert "Too many games of bots started: at most 1 per minute" in response.content.decode()
