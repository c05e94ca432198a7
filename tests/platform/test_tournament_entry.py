"""Entering a tournament's bots in bulk with a seeding preview, and discarding a draft."""

import pytest
from games import get_game

from tournament_helpers import accepted, course_with_bots, entered
from arena.tournaments import services
from arena.tournaments.models import Tournament

pytestmark = pytest.mark.django_db
ANY_CODE = "def act(observation):\n    return observation['legal_actions'][0]\n"


def test_every_course_bot_for_the_game_and_the_built_ins_are_entered_at_once_with_a_seeding_preview(client, make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 8, codes=(ANY_CODE,))
    cup = entered(instructor, course, bots[:1], game="endgame", format="round-robin")
    client.force_login(instructor)
    page = client.get(f"/tournaments/{cup.pk}/").content.decode()
    assert "Enter every course bot for this game" in page
    assert client.post(f"/tournaments/{cup.pk}/entrants/course/", {"builtins": "1"}).status_code == 302
    builtins = len(get_game("endgame").builtin_bots())
    assert cup.entrants.count() == 8 + builtins  # one request, not 16 clicks; bot0 was entered already
    # The students' bots are requested: the preview holds bot0 (accepted) and the built-ins until they accept.
    page = client.get(f"/tournaments/{cup.pk}/").content.decode()
    preview = page.split('id="seeding-preview"')[1].split("</ol>")[0]
    assert preview.count("<li>") == 1 + builtins and "student01/bot1" not in preview
    for entrant in cup.entrants.exclude(bot__owner=None):
        accepted(entrant)
    page = client.get(f"/tournaments/{cup.pk}/").content.decode()
    preview = page.split('id="seeding-preview"')[1].split("</ol>")[0]
    assert preview.count("<li>") == 8 + builtins
    assert preview.index("student00/bot0") < preview.index("student07/bot7")  # given order: entry order
    # Seeded as previewed when it starts.
    labels = [entrant.bot.label for entrant in services.seeding_preview(cup)]
    cup = services.start(instructor, cup)
    assert [e.bot.label for e in cup.entrants.order_by("seed")] == labels
    assert "entrants are frozen" in str(pytest.raises(services.TournamentError, services.add_course_bots,
                                                      instructor, cup).value)


def test_discarding_a_draft_deletes_it(client, make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 2, codes=(ANY_CODE,))
    draft = entered(instructor, course, bots, game="endgame", format="round-robin", name="Scratch")
    client.force_login(instructor)
    answer = client.post(f"/tournaments/{draft.pk}/discard/")
    assert answer.status_code == 302 and answer["Location"] == f"/courses/{course.pk}/tournaments/"
    assert not Tournament.objects.filter(pk=draft.pk).exists()
    listing = client.get(f"/courses/{course.pk}/tournaments/").content.decode()
    assert "Scratch" not in listing.split('id="tournaments"')[1].split("</table>")[0]
    started = entered(instructor, course, bots, game="endgame", format="round-robin", name="Real")
    started = services.start(instructor, started)
    with pytest.raises(services.TournamentError, match="only a draft"):
        services.discard(instructor, started)


def test_the_api_enters_every_course_bot_and_discards_a_draft(api_client, make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 3, codes=(ANY_CODE,))
    draft = entered(instructor, course, [], game="endgame", format="round-robin")
    api_client.force_authenticate(instructor)
    answer = api_client.post(f"/api/tournaments/{draft.pk}/entrants/course/", {"builtins": False}, format="json")
    assert answer.status_code == 201 and len(answer.json()["entrants"]) == 3
    assert {entrant["consent"] for entrant in answer.json()["entrants"]} == {"requested"}
    assert api_client.post(f"/api/tournaments/{draft.pk}/discard/").status_code == 204
    assert not Tournament.objects.filter(pk=draft.pk).exists()
