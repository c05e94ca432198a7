"""Course variants: an instructor's own SortingGame deck, checked before any game uses it, played by the course."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from games.sortinggame.deck import STANDARD_DECK

from arena.accounts.models import Course
from arena.bots.models import Bot
from arena.matches.models import Match
from platform_helpers import play_now
from arena.variants.models import Variant

pytestmark = pytest.mark.django_db

FIRST_LEGAL_BOT = b"def act(observation):\n    return observation['legal_actions'][0]\n"


def course_deck() -> dict:
    """A deck of the instructor's own: six of the standard algorithms, two copies each, no robbery cards."""
    deck = json.loads(STANDARD_DECK.read_text(encoding="utf-8"))
    keep = {"insertion", "selection", "merge", "heap", "quick", "counting"}
    deck["name"] = "Course deck"
    deck["algorithms"] = [dict(card, copies=2) for card in deck["algorithms"] if card["id"] in keep]
    deck["specials"] = [card for card in deck["specials"] if card["kind"] != "robbery"]
    return deck


def upload_deck(api_client, course, content: bytes, name="small deck"):
    return api_client.post(f"/api/courses/{course.pk}/variants/",
                           {"game": "sortinggame", "name": name, "file": SimpleUploadedFile("deck.json", content)},
                           format="multipart")


@pytest.fixture
def world(make_user):
    """A course with its instructor and a student; a student of another course."""
    teacher, ada, eve = make_user("teacher"), make_user("ada"), make_user("eve")
    course = Course.objects.create(code="algo", name="Algorithms")
    course.instructors.add(teacher)
    course.students.add(ada)
    Course.objects.create(code="other", name="Other").students.add(eve)
    return {"teacher": teacher, "ada": ada, "eve": eve, "course": course}


@pytest.fixture
def variant(world):
    return Variant.objects.create(course=world["course"], game="sortinggame", name="small deck",
                                  config={"deck": course_deck()}, created_by=world["teacher"])


def active_bot(api_client, user) -> Bot:
    """`user`'s SortingGame bot, uploaded and validated (played in this process)."""
    api_client.force_authenticate(user)
    bot_id = api_client.post("/api/bots/", {"name": "first", "game": "sortinggame"}).json()["id"]
    api_client.post(f"/api/bots/{bot_id}/versions/", {"file": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT)},
                    format="multipart")
    bot = Bot.objects.get(pk=bot_id)
    assert play_now(bot.versions.get().validation_match).status == Match.Status.FINISHED
    return bot


def test_a_course_plays_the_instructors_deck_unrated(api_client, world, in_process_sandbox):
    deck = course_deck()
    api_client.force_authenticate(world["teacher"])
    created = upload_deck(api_client, world["course"], json.dumps(deck, ensure_ascii=False).encode())
    assert created.status_code == 201, created.json()
    assert created.json()["config"] == {"deck": deck}

    bot = active_bot(api_client, world["ada"])
    listed = api_client.get(f"/api/courses/{world['course'].pk}/variants/").json()["results"]
    assert [v["name"] for v in listed] == ["small deck"]
    opponents = [Bot.objects.builtin("sortinggame", name).pk for name in ("honest", "shrewd")]
    challenge = {"bot": bot.pk, "opponents": opponents, "variant": listed[0]["id"]}

    refused = api_client.post("/api/matches/", {**challenge, "rated": True}, format="json")
    assert refused.status_code == 400 and "challenges are unrated practice" in str(refused.json())
    response = api_client.post("/api/matches/", challenge, format="json")
    assert response.status_code == 201, response.json()
    match = play_now(Match.objects.get(pk=response.json()["id"]))
    assert match.status == Match.Status.FINISHED, match.error
    assert not match.rated and all(seat.rating_after is None for seat in match.seats.all())

    replay = api_client.get(f"/api/matches/{match.pk}/replay/").json()["replay"]
    assert replay["config"]["deck"] == deck
    # The replay is self-contained: deleting the variant changes nothing in it.
    api_client.force_authenticate(world["teacher"])
    assert api_client.delete(f"/api/variants/{listed[0]['id']}/").status_code == 204
    assert api_client.get(f"/api/matches/{match.pk}/replay/").json()["replay"]["config"]["deck"] == deck


def test_a_bad_deck_is_refused_with_every_problem_and_nothing_saved(api_client, world):
    deck = course_deck()
    deck["algorithms"][1]["id"] = deck["algorithms"][0]["id"]
    deck["algorithms"][2]["colour"] = "red"
    deck["algorithms"][3]["worst"] = "N^^2"
    api_client.force_authenticate(world["teacher"])
    response = upload_deck(api_client, world["course"], json.dumps(deck).encode())
    assert response.status_code == 400
    problems = response.json()["config"]
    assert len(problems) == 3
    assert "duplicate card id 'insertion'" in problems[0]
    assert "unknown property 'colour'" in problems[1]
    assert "malformed complexity 'N^^2'" in problems[2]
    assert not Variant.objects.exists()


@pytest.mark.parametrize("content, message", [
    (b'{"algorithms": [', "deck.json is not valid JSON: Expecting value: line 1 column 17 (char 16)"),
    (b'{"name": "d\xe9ck"}', "deck.json is not UTF-8 text (byte 11 cannot be decoded)"),
    (b" " * 101, "deck.json is larger than the limit of 100 bytes"),
])
def test_an_unreadable_file_is_refused(api_client, world, settings, content, message):
    settings.ARENA_MAX_VARIANT_BYTES = 100
    api_client.force_authenticate(world["teacher"])
    response = upload_deck(api_client, world["course"], content)
    assert response.status_code == 400
    assert response.json() == {"file": [message]}
    assert not Variant.objects.exists()


def test_any_games_options_can_be_given_as_json(api_client, world):
    api_client.force_authenticate(world["teacher"])
    url = f"/api/courses/{world['course'].pk}/variants/"
    created = api_client.post(url, {"game": "sortinggame", "name": "robbery", "config": {"robbery": True}},
                              format="json")
    assert created.status_code == 201 and created.json()["config"] == {"robbery": True}
    refused = api_client.post(url, {"game": "endgame", "name": "odd", "config": {"colour": "red"}}, format="json")
    assert refused.status_code == 400 and "unknown option(s) ['colour']" in refused.json()["config"][0]
    again = api_client.post(url, {"game": "sortinggame", "name": "robbery", "config": {}}, format="json")
    assert again.status_code == 400 and "already has a variant" in again.json()["name"][0]
    assert list(Variant.objects.values_list("name", flat=True)) == ["robbery"]


def test_a_student_cannot_create_or_delete_a_variant(api_client, world, variant):
    api_client.force_authenticate(world["ada"])
    response = upload_deck(api_client, world["course"], json.dumps(course_deck()).encode(), name="mine")
    assert response.status_code == 403
    assert api_client.delete(f"/api/variants/{variant.pk}/").status_code == 403
    assert list(Variant.objects.all()) == [variant]
    assert api_client.get(f"/api/variants/{variant.pk}/").json()["config"] == {"deck": course_deck()}


def test_a_student_of_another_course_cannot_see_or_use_it(api_client, client, world, variant, in_process_sandbox):
    bot = active_bot(api_client, world["eve"])
    assert api_client.get(f"/api/courses/{world['course'].pk}/variants/").status_code == 404
    assert api_client.get(f"/api/variants/{variant.pk}/").status_code == 404
    assert api_client.get("/api/variants/").json()["results"] == []
    builtin = Bot.objects.builtin("sortinggame", "honest")
    response = api_client.post("/api/matches/", {"bot": bot.pk, "opponents": [builtin.pk], "variant": variant.pk},
                               format="json")
    # Answered exactly as a variant that does not exist: another course's variants are not even named.
    missing = api_client.post("/api/matches/", {"bot": bot.pk, "opponents": [builtin.pk], "variant": 10**9},
                              format="json")
    assert response.status_code == missing.status_code == 400
    assert response.json()["variant"] == [f"no variant {variant.pk} among your courses' variants"]
    assert missing.json()["variant"] == [f"no variant {10**9} among your courses' variants"]
    assert not Match.objects.filter(variant=variant).exists()

    client.force_login(world["eve"])
    assert client.get(f"/courses/{world['course'].pk}/").status_code == 404
    assert "small deck" not in client.get(f"/bots/{bot.pk}/").content.decode()


def test_instructor_uploads_on_the_course_page_and_a_student_picks_it(client, api_client, world,
                                                                     in_process_sandbox):
    course_url = f"/courses/{world['course'].pk}/"
    client.force_login(world["teacher"])
    assert course_url in client.get("/").content.decode()
    bad = client.post(f"{course_url}variants/new/", {"game": "sortinggame", "name": "broken",
                                                      "file": SimpleUploadedFile("deck.json", b'{"sources": {}}')},
                      follow=True).content.decode()
    assert "Variant refused, nothing was saved" in bad and "&#x27;algorithms&#x27; must be a non-empty list" in bad
    good = SimpleUploadedFile("deck.json", json.dumps(course_deck()).encode())
    page = client.post(f"{course_url}variants/new/", {"game": "sortinggame", "name": "small deck", "file": good},
                       follow=True).content.decode()
    assert "Variant small deck added" in page and "Course deck" in page
    variant = Variant.objects.get()

    client.force_login(world["ada"])
    page = client.get(course_url).content.decode()
    assert "small deck" in page and "Add a variant" not in page
    assert client.post(f"{course_url}variants/{variant.pk}/delete/").status_code == 403
    bot = active_bot(api_client, world["ada"])
    assert "small deck (Algorithms)" in client.get(f"/bots/{bot.pk}/").content.decode()
    opponent = Bot.objects.builtin("sortinggame", "honest")
    response = client.post(f"/bots/{bot.pk}/challenge/", {"opponents": [opponent.pk], "variant": variant.pk})
    match = Match.objects.get(purpose=Match.Purpose.CHALLENGE)
    assert match.config == variant.config and not match.rated
    assert "variant small deck of Algorithms" in client.get(response.url).content.decode()


def test_a_variant_match_shows_its_rules_and_replay_to_the_course_only(api_client, client, world, variant,
                                                                      in_process_sandbox):
    bot = active_bot(api_client, world["ada"])
    created = api_client.post("/api/matches/", {"bot": bot.pk, "opponents": [Bot.objects.builtin("sortinggame",
                                                                                                  "honest").pk],
                                                "variant": variant.pk}, format="json")
    assert created.status_code == 201, created.content
    match = play_now(Match.objects.get(pk=created.json()["id"]))
    assert match.status == Match.Status.FINISHED, match.error
    replay = f"/api/matches/{match.pk}/replay/"
    assert api_client.get(f"/api/matches/{match.pk}/").json()["config"] == {"deck": course_deck()}
    assert api_client.get(replay).status_code == 200

    # Another course's student sees the match and its result, not the deck: not in the match (alone or in
    # the list), nor in its replay, which shows the cards.
    api_client.force_authenticate(world["eve"])
    shown = api_client.get(f"/api/matches/{match.pk}/").json()
    assert shown["winners"] == match.winners and shown["config"] is None and shown["variant"] is None
    listed = next(row for row in api_client.get("/api/matches/").json()["results"] if row["id"] == match.pk)
    assert listed["config"] is None and listed["variant"] is None
    assert api_client.get(replay).status_code == 404
    client.force_login(world["eve"])
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "a course variant" in page and "its replay is for that course" in page
    assert f"/matches/{match.pk}/replay/" not in page and "small deck" not in page
    for url in (f"/matches/{match.pk}/replay/", f"/matches/{match.pk}/replay/data/", f"/matches/{match.pk}/replay/file/"):
        assert client.get(url).status_code == 404, url
