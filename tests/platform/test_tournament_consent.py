"""Entering someone else's bot in a tournament is a request its owner answers (issue 24): only an accepted
entry plays, counts in the seeding and opens the bot's code to the course's staff."""

import pytest

from arena.accounts.access import can_see_private
from arena.accounts.models import Course
from arena.bots.models import Bot
from arena.notifications.models import Notification
from tournament_helpers import accepted_bot, course_with_bots
from arena.tournaments import services
from arena.tournaments.models import Entrant

pytestmark = pytest.mark.django_db
CODE = "def act(observation):\n    return observation['legal_actions'][0]\n"


@pytest.fixture
def cup(make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 3, codes=(CODE,))
    tournament = services.create_tournament(instructor, course, name="Cup", game="endgame", format="round-robin",
                                            seeding="given")
    return course, instructor, bots, tournament


def test_a_students_bot_is_only_requested_and_opens_nothing_until_accepted(cup, make_user):
    course, instructor, bots, tournament = cup
    entry = services.add_entrant(instructor, tournament, bots[0])
    assert entry.consent == Entrant.Consent.REQUESTED
    assert not can_see_private(instructor, bots[0]), "an entry the owner has not accepted opens nothing"
    (note,) = Notification.objects.filter(user=bots[0].owner)
    assert "Cup" in note.text and note.url == f"/bots/{bots[0].pk}/"
    assert services.seeding_preview(tournament) == []

    services.answer_entry(bots[0].owner, entry, accept=True)
    assert can_see_private(instructor, bots[0]) and services.seeding_preview(tournament) == [entry]
    services.answer_entry(bots[0].owner, entry, accept=False)  # a change of mind before the start
    assert not can_see_private(instructor, bots[0])
    with pytest.raises(services.TournamentNotAllowed):
        services.answer_entry(bots[1].owner, entry, accept=True)


def test_ones_own_bot_and_built_ins_enter_at_once(cup):
    course, instructor, bots, tournament = cup
    own = accepted_bot(instructor, "endgame", "teachers", CODE)
    entries = [services.add_entrant(instructor, tournament, bot) for bot in (own, Bot.objects.builtin("endgame", "greedy"))]
    assert [e.consent for e in entries] == [Entrant.Consent.ACCEPTED] * 2
    assert not Notification.objects.exists()


def test_only_accepted_entries_play_and_answers_stop_at_the_start(cup):
    course, instructor, bots, tournament = cup
    added = services.add_course_bots(instructor, tournament, builtins=False)
    assert {e.consent for e in added} == {Entrant.Consent.REQUESTED}
    with pytest.raises(services.TournamentConflict, match="at least two entrants"):
        services.start(instructor, tournament)  # nobody accepted yet
    first, second, third = added
    services.answer_entry(first.bot.owner, first, accept=True)
    services.answer_entry(second.bot.owner, second, accept=True)
    services.answer_entry(third.bot.owner, third, accept=False)
    tournament = services.start(instructor, tournament)
    assert [e.bot for e in tournament.entrants.all()] == [first.bot, second.bot], "the declined entry is dropped"
    assert not can_see_private(instructor, third.bot)
    with pytest.raises(services.TournamentConflict):
        services.answer_entry(first.bot.owner, Entrant.objects.get(pk=first.pk), accept=False)


def test_the_owner_answers_through_the_api_and_nobody_else_finds_the_request(cup, api_client, make_user):
    course, instructor, bots, tournament = cup
    entry = services.add_entrant(instructor, tournament, bots[0])
    stranger = make_user("stranger")
    Course.objects.create(code="x", name="X").students.add(stranger)
    for someone in (stranger, bots[1].owner, instructor):
        api_client.force_authenticate(someone)
        assert api_client.get("/api/entry-requests/").json()["results"] == []
        assert api_client.post(f"/api/entry-requests/{entry.pk}/accept/").status_code == 404
    api_client.force_authenticate(bots[0].owner)
    assert api_client.post(f"/api/entry-requests/{entry.pk}/accept/").json()["consent"] == "accepted"
    services.add_entrant(instructor, tournament, Bot.objects.builtin("endgame", "greedy"))
    services.start(instructor, tournament)
    assert api_client.get("/api/entry-requests/").json()["results"] == [], "a started tournament asks nothing"
