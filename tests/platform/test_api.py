"""The REST API's own contract: registration and tokens, pagination, the ladder, the OpenAPI schema."""

import pytest
import yaml

from bots.models import Bot
from matches import services
from platform_helpers import active_bot, play_now

pytestmark = pytest.mark.django_db


def test_register_then_use_the_token(api_client):
    response = api_client.post("/api/auth/register/", {"username": "newbie", "password": "correct-horse-battery"})
    assert response.status_code == 201
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    created = api_client.post("/api/bots/", {"name": "first", "game": "endgame"})
    assert created.status_code == 201 and created.json()["owner"] == "newbie"


def test_weak_password_and_taken_name_are_refused(api_client, make_user):
    make_user("taken")
    assert api_client.post("/api/auth/register/", {"username": "x", "password": "123"}).status_code == 400
    response = api_client.post("/api/auth/register/", {"username": "taken", "password": "correct-horse-battery"})
    assert "taken" in response.json()["username"][0]


def test_lists_are_paginated(api_client, make_user):
    user = make_user("many")
    for number in range(30):
        Bot.objects.create(owner=user, game="endgame", name=f"bot{number}")
    api_client.force_authenticate(user)
    page = api_client.get("/api/bots/", {"mine": "1"}).json()
    assert page["count"] == 30 and len(page["results"]) < 30 and page["next"]


def test_ladder_ranks_by_rating_with_records(api_client, make_user):
    api_client.force_authenticate(make_user("viewer"))
    optimal, random_bot = Bot.objects.builtin("endgame", "optimal"), Bot.objects.builtin("endgame", "random")
    for _ in range(2):
        play_now(services.create_match("endgame", [optimal, random_bot], purpose="challenge", rated=True))
    rows = api_client.get("/api/ladder/endgame/").json()
    # Every active bot is listed, best rating first; those that never played rated keep the initial rating.
    assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))
    assert [row["rating"] for row in rows] == sorted((row["rating"] for row in rows), reverse=True)
    by_label = {row["bot"]["label"]: row for row in rows}
    for label in ("builtin:optimal", "builtin:random"):
        row = by_label[label]
        assert row["played"] == row["wins"] + row["draws"] + row["losses"] == 2
    assert by_label["builtin:greedy"]["played"] == 0 and by_label["builtin:greedy"]["rating"] == 1500
    assert len(api_client.get(f"/api/bots/{optimal.pk}/ratings/").json()) == 2


def test_unknown_game_ladder_is_404(api_client, make_user):
    api_client.force_authenticate(make_user("viewer"))
    assert api_client.get("/api/ladder/no-such-game/").status_code == 404


def test_a_format_suffix_is_an_unknown_path_not_a_server_error(api_client, make_user):
    owner = make_user("owner")
    api_client.force_authenticate(owner)
    bot = active_bot(owner)
    for path in (f"/api/bots/{bot.pk}/versions.json", f"/api/bots/{bot.pk}/ratings.json/", "/api/bots.json"):
        response = api_client.get(path)
        assert response.status_code == 404 and response.json() == {"detail": "Not found."}, path


def test_openapi_schema_is_served_and_documents_the_endpoints(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    for path in ("/api/bots/{id}/versions/", "/api/matches/", "/api/matches/{id}/replay/", "/api/ladder/{game}/",
                 "/api/versions/{id}/code/", "/api/auth/token/"):
        assert path in schema["paths"], path


def test_openapi_schema_generates_without_a_warning(tmp_path):
    # A warning means a client generator gets a wrong or ambiguous schema (two components of one name
    # overwrite each other; an unresolvable field becomes a string).
    from django.core.management import call_command

    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(tmp_path / "schema.yml"))

