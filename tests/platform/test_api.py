"""The REST API's own contract: registration and tokens, pagination, the ladder, the OpenAPI schema."""

import io
import json

import pytest
import yaml

from arena.bots.models import Bot
from arena.matches import services
from platform_helpers import active_bot, play_now

pytestmark = pytest.mark.django_db


def test_register_then_use_the_token(api_client):
    response = api_client.post("/api/auth/register/", {"username": "newbie", "email": "newbie@uni.example",
                                                       "password": "correct-horse-battery"})
    assert response.status_code == 201
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    created = api_client.post("/api/bots/", {"name": "first", "game": "endgame"})
    assert created.status_code == 201 and created.json()["owner"] == "newbie"


def test_weak_password_and_taken_name_are_refused(api_client, make_user):
    make_user("taken")
    assert api_client.post("/api/auth/register/", {"username": "x", "email": "x@uni.example", "password": "123"}
                           ).status_code == 400
    response = api_client.post("/api/auth/register/", {"username": "taken", "email": "t@uni.example",
                                                       "password": "correct-horse-battery"})
    assert "taken" in response.json()["username"][0]


def test_lists_are_paginated(api_client, make_user):
    user = make_user("many")
    for number in range(30):
        Bot.objects.create(owner=user, game="endgame", name=f"bot{number}")
    api_client.force_authenticate(user)
    page = api_client.get("/api/bots/", {"mine": "1"}).json()
    assert page["count"] == 30 and len(page["results"]) < 30 and page["next"]


def test_ladder_ranks_by_rating_with_records_and_marks_provisional_bots_as_the_page_does(api_client, make_user,
                                                                                       settings):
    settings.ARENA_PROVISIONAL_SIGMA = 8.0  # out of provisional after two matches (sigma starts at 8.33)
    api_client.force_authenticate(make_user("viewer"))
    optimal, random_bot = Bot.objects.builtin("endgame", "optimal"), Bot.objects.builtin("endgame", "random")
    for _ in range(2):
        play_now(services.create_match("endgame", [optimal, random_bot], purpose="ladder", rated=True))
    rows = api_client.get("/api/ladder/endgame/").json()["results"]
    # Every active bot is listed: the two that played enough rated matches ranked, best rating first; then the
    # provisional ones (never played), unranked, as the ladder page lists them apart.
    assert [row["rank"] for row in rows] == [1, 2] + [None] * (len(rows) - 2)
    assert [row["provisional"] for row in rows] == [False, False] + [True] * (len(rows) - 2)
    assert {row["bot"]["label"] for row in rows[:2]} == {"builtin:optimal", "builtin:random"}
    assert rows[0]["rating"] >= rows[1]["rating"]
    assert all(row["rating"] == pytest.approx(row["mu"] - 3 * row["sigma"]) for row in rows)
    by_label = {row["bot"]["label"]: row for row in rows}
    for label in ("builtin:optimal", "builtin:random"):
        row = by_label[label]
        assert row["played"] == row["wins"] + row["draws"] + row["losses"] == 2
    greedy = by_label["builtin:greedy"]
    assert greedy["played"] == 0 and (greedy["mu"], greedy["rating"]) == pytest.approx((25, 0))
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

    ladder = schema["paths"]["/api/ladder/{game}/"]["get"]
    assert "page" in [parameter["name"] for parameter in ladder["parameters"]]
    assert ladder["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("PaginatedLadderRowList")


def test_the_schema_is_everyones_and_the_one_generated_for_the_asker(make_user):
    """The schema is generated once and kept (arena.core.schema): it must be what drf-spectacular's own view,
    which generates it for each request as the user who asks, gives the most privileged user, and the same for
    a student and for nobody."""
    from drf_spectacular.views import SpectacularAPIView
    from rest_framework.test import APIClient, APIRequestFactory, force_authenticate

    operator = make_user("root", is_superuser=True, is_staff=True)
    served = {}
    for name, user in (("anonymous", None), ("student", make_user("student")), ("operator", operator)):
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        response = client.get("/api/schema/", {"format": "json"})
        assert response.status_code == 200
        served[name] = response.json()
    assert served["anonymous"] == served["student"] == served["operator"]

    request = APIRequestFactory().get("/api/schema/", {"format": "json"})
    force_authenticate(request, operator)
    generated = SpectacularAPIView.as_view()(request).render()
    assert json.loads(generated.content) == served["operator"]


@pytest.mark.parametrize("asked", [{}, {"format": "json"}, {"HTTP_ACCEPT": "application/vnd.oai.openapi+json; indent=3"},
                                   {"HTTP_ACCEPT": "application/yaml"}],
                         ids=["yaml", "json", "json-indented", "yaml-by-accept"])
def test_the_kept_schema_is_served_as_drf_spectacular_writes_it_in_each_format(client, asked):
    """The schema is written once per format and kept (arena.core.schema.rendered_schema): every answer, the
    first and the next, carries the bytes, content type and file name drf-spectacular's own view gives."""
    from drf_spectacular.views import SpectacularAPIView
    from rest_framework.test import APIRequestFactory

    query = {key: value for key, value in asked.items() if not key.startswith("HTTP_")}
    headers = {key: value for key, value in asked.items() if key.startswith("HTTP_")}
    theirs = SpectacularAPIView.as_view()(APIRequestFactory().get("/api/schema/", query, **headers)).render()
    for _ in range(2):
        ours = client.get("/api/schema/", query, **headers)
        assert ours.status_code == theirs.status_code == 200
        assert ours["Content-Type"] == theirs["Content-Type"]
        assert ours["Content-Disposition"] == theirs["Content-Disposition"]
        assert ours.content == theirs.content


def test_the_schema_served_follows_the_url_conf_the_settings_and_the_version_asked(client, settings):
    settings.ROOT_URLCONF = "schema_urls"  # the bots' API alone
    schema = client.get("/api/schema/", {"format": "json"}).json()
    assert "/api/bots/" in schema["paths"] and "/api/matches/" not in schema["paths"]
    assert "409" in schema["paths"]["/api/bots/"]["post"]["responses"]  # arena.core.schema's refusals
    assert client.get("/api/schema/", {"format": "json", "version": "2.0"}).json()["info"]["version"] == "1.0.0 (2.0)"
    assert client.get("/api/schema/", {"format": "json"}).json()["info"]["version"] == "1.0.0"

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema"}
    schema = client.get("/api/schema/", {"format": "json"}).json()
    assert "409" not in schema["paths"]["/api/bots/"]["post"]["responses"]


def test_openapi_schema_generates_without_a_warning(tmp_path):
    # A warning means a client generator gets a wrong or ambiguous schema (two components of one name
    # overwrite each other; an unresolvable field becomes a string).
    from django.core.management import call_command

    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(tmp_path / "schema.yml"))


def test_ladder_pages_keep_the_ranks_of_the_whole_ladder(api_client, make_user):
    from django.core.management import call_command

    from arena.ratings.presentation import standings

    call_command("fill_scale_data", bots=30, courses=1, matches=60, replays=2, prefix="p", stdout=io.StringIO())
    api_client.force_authenticate(make_user("viewer"))
    first = api_client.get("/api/ladder/endgame/").json()
    second = api_client.get("/api/ladder/endgame/", {"page": 2}).json()
    rows = first["results"] + second["results"]
    assert first["count"] == len(rows) == Bot.objects.active().for_game("endgame").count() > 25 and first["next"]
    # The page's order: ranked bots (rank 1, 2...) then the provisional ones (no rank), across pages.
    expected = list(standings("endgame"))
    assert [row["bot"]["id"] for row in rows] == [bot.pk for bot in expected]
    ranked = sum(not bot.provisional for bot in expected)
    assert [row["rank"] for row in rows] == list(range(1, ranked + 1)) + [None] * (len(rows) - ranked)
    assert [row["provisional"] for row in rows] == [bot.provisional for bot in expected]


def test_match_list_gives_each_queued_match_its_place_in_the_queue(api_client, make_user):
    bots = [Bot.objects.builtin("endgame", name) for name in ("optimal", "random")]
    queued = [services.create_match("endgame", bots, purpose="challenge", rated=False) for _ in range(3)]
    play_now(queued[0])  # the first in the queue is done: the other two move up
    api_client.force_authenticate(make_user("viewer"))
    positions = {row["id"]: row["queue_position"] for row in api_client.get("/api/matches/").json()["results"]}
    assert positions == {queued[0].pk: None, queued[1].pk: 1, queued[2].pk: 2}


def test_match_list_shows_a_new_match_at_once_though_its_count_is_kept_a_few_seconds(api_client, make_user):
    bots = [Bot.objects.builtin("endgame", name) for name in ("optimal", "random")]
    services.create_match("endgame", bots, purpose="challenge", rated=False)
    api_client.force_authenticate(make_user("viewer"))
    assert api_client.get("/api/matches/").json()["count"] == 1
    newer = services.create_match("endgame", bots, purpose="challenge", rated=False)
    page = api_client.get("/api/matches/").json()
    assert page["results"][0]["id"] == newer.pk and len(page["results"]) == 2  # the rows are current


def test_each_row_of_the_match_list_is_the_match_as_it_is_served_alone(api_client, make_user):
    """The list builds its rows from plain values (for speed): for every kind of viewer, every field of every
    row, private logs and another course's rules included, is what the match's own URL answers."""
    from arena.accounts.models import Course
    from arena.grading import services as grading_services
    from grading_helpers import open_assignment
    from arena.matches.models import MatchSeat
    from arena.variants.models import Variant

    ada, bob, teacher = make_user("ada"), make_user("bob"), make_user("teacher")
    course = Course.objects.create(code="algo", name="Algorithms")
    course.students.add(ada)
    course.instructors.add(teacher)
    variant = Variant.objects.create(course=course, game="endgame", name="short", config={"length": 6},
                                     created_by=teacher)
    mine, theirs = active_bot(ada), active_bot(bob)
    optimal, random_bot = Bot.objects.builtin("endgame", "optimal"), Bot.objects.builtin("endgame", "random")
    play_now(services.create_match("endgame", [optimal, random_bot], purpose="challenge", rated=True))
    services.create_match("endgame", [mine, theirs], purpose="challenge", rated=False)
    services.create_match("endgame", [mine, optimal], purpose="challenge", rated=False, variant=variant,
                          config=variant.config)
    MatchSeat.objects.filter(bot__in=[mine, theirs]).update(detail="a note", log="stderr of a student's bot")
    grading_services.submit(ada, open_assignment(teacher, course), mine)  # the teacher sees what ada submitted
    logs_seen = {}
    for viewer in (ada, bob, teacher, make_user("stranger")):
        api_client.force_authenticate(viewer)
        rows = api_client.get("/api/matches/").json()["results"]
        assert len(rows) == 3
        for row in rows:
            alone = api_client.get(f"/api/matches/{row['id']}/").json()
            assert list(row.items()) == list(alone.items()), viewer.username
        logs_seen[viewer.username] = sum(seat["log"] is not None for row in rows for seat in row["seats"])
    assert logs_seen == {"ada": 2, "bob": 1, "teacher": 2, "stranger": 0}
