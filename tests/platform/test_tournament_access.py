"""Who sees and steers tournaments, through the API and the pages; results hidden until the end."""

import time

import pytest

from arena.accounts.models import Course
from arena.matches.models import Match
from platform_helpers import play_now
from sse_client import page_stream
from tournament_helpers import course_with_bots, entered, play_out
from arena.tournaments import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(make_user, in_process_sandbox):
    course, instructor, bots = course_with_bots(make_user, "endgame", 4)
    other_course = Course.objects.create(code="other", name="Other course")
    outsider = make_user("outsider")
    other_course.students.add(outsider)
    other_teacher = make_user("other-teacher")
    other_course.instructors.add(other_teacher)
    return {"course": course, "instructor": instructor, "bots": bots, "student": bots[0].owner,
            "outsider": outsider, "other_teacher": other_teacher}


def test_an_instructor_builds_and_runs_a_tournament_through_the_api(api_client, world):
    api_client.force_authenticate(world["instructor"])
    created = api_client.post("/api/tournaments/", {
        "course": world["course"].pk, "name": "Spring cup", "game": "endgame", "format": "single-elimination",
        "games_per_series": 2, "seeding": "given"}, format="json")
    assert created.status_code == 201, created.json()
    tid = created.json()["id"]
    assert created.json()["status"] == "draft"
    for bot in world["bots"]:
        assert api_client.post(f"/api/tournaments/{tid}/entrants/", {"bot": bot.pk}, format="json").status_code == 201
    again = api_client.post(f"/api/tournaments/{tid}/entrants/", {"bot": world["bots"][0].pk}, format="json")
    assert again.status_code == 409 and "already entered" in again.json()["detail"]
    waiting = api_client.get(f"/api/tournaments/{tid}/").json()["entrants"]
    assert {e["consent"] for e in waiting} == {"requested"}, "the students' bots wait for their owners"
    assert api_client.post(f"/api/tournaments/{tid}/start/").status_code == 409  # nobody accepted yet
    for bot in world["bots"]:  # each owner accepts from their own requests
        api_client.force_authenticate(bot.owner)
        (request,) = api_client.get("/api/entry-requests/").json()["results"]
        assert request["tournament"] == tid and request["consent"] == "requested"
        assert api_client.post(f"/api/entry-requests/{request['id']}/accept/").json()["consent"] == "accepted"
    api_client.force_authenticate(world["instructor"])

    started = api_client.post(f"/api/tournaments/{tid}/start/")
    assert started.status_code == 200 and started.json()["status"] == "running"
    assert [e["seed"] for e in started.json()["entrants"]] == [0, 1, 2, 3]
    assert api_client.post(f"/api/tournaments/{tid}/start/").status_code == 409

    bracket = api_client.get(f"/api/tournaments/{tid}/bracket/").json()
    keys = {box["series"]["key"] for box in bracket["boxes"]}
    assert len(keys) == 3, "two semi-finals and the final, drawn before they are played"
    assert len(bracket["lines"]) == 2, "each semi-final connects to the final"
    final = next(box["series"] for box in bracket["boxes"] if not box["series"]["winner_to"])
    assert [e["seed"] for e in final["entrants"]] == [None, None]

    from arena.tournaments.models import Tournament

    play_out(Tournament.objects.get(pk=tid))
    done = api_client.get(f"/api/tournaments/{tid}/").json()
    assert done["status"] == "finished" and done["champion"]
    assert done["progress"]["done"] == done["progress"]["expected"] == 3
    standings = api_client.get(f"/api/tournaments/{tid}/standings/").json()
    assert standings[0]["place"] == 1 and standings[0]["label"] == done["champion"]
    rounds = api_client.get(f"/api/tournaments/{tid}/rounds/").json()
    assert [r["round"] for r in rounds] == [1, 2]
    assert all(game["status"] == "finished" for r in rounds for s in r["series"] for game in s["games"])


def test_students_see_their_courses_tournaments_but_not_drafts_and_steer_nothing(api_client, client, world):
    draft = entered(world["instructor"], world["course"], world["bots"], game="endgame", format="round-robin",
                    name="Draft cup")
    running = entered(world["instructor"], world["course"], world["bots"], game="endgame", format="round-robin",
                      name="Running cup")
    services.start(world["instructor"], running)

    api_client.force_authenticate(world["student"])
    listed = [t["name"] for t in api_client.get("/api/tournaments/").json()["results"]]
    assert listed == ["Running cup"]
    assert api_client.get(f"/api/tournaments/{draft.pk}/").status_code == 404
    assert api_client.post(f"/api/tournaments/{running.pk}/pause/").status_code == 403
    refused = api_client.post("/api/tournaments/", {"course": world["course"].pk, "name": "x", "game": "endgame",
                                                    "format": "round-robin"}, format="json")
    assert refused.status_code == 403

    for who in ("outsider", "other_teacher"):
        api_client.force_authenticate(world[who])
        assert api_client.get("/api/tournaments/").json()["results"] == []
        assert api_client.get(f"/api/tournaments/{running.pk}/").status_code == 404
        assert api_client.post(f"/api/tournaments/{running.pk}/cancel/").status_code == 404

    client.force_login(world["student"])
    page = client.get(f"/tournaments/{running.pk}/")
    assert page.status_code == 200 and b"Running cup" in page.content and b">Pause<" not in page.content
    # Every steering page refuses a student as the API does (403); drafts stay invisible (404).
    for path in (f"/tournaments/{running.pk}/pause/", f"/tournaments/{running.pk}/cancel/",
                 f"/tournaments/{running.pk}/entrants/", f"/courses/{world['course'].pk}/tournaments/",
                 f"/tournaments/{running.pk}/entrants/{running.entrants.first().pk}/remove/"):
        assert client.post(path).status_code == 403, path
    assert client.post(f"/tournaments/{draft.pk}/start/").status_code == 404
    running.refresh_from_db()
    assert running.status == "running", "a student's pause changes nothing"
    assert client.get(f"/tournaments/{draft.pk}/").status_code == 404
    client.force_login(world["outsider"])
    assert client.get(f"/tournaments/{running.pk}/").status_code == 404
    assert client.get(f"/courses/{world['course'].pk}/tournaments/").status_code == 404


def test_results_released_at_the_end_stay_hidden_from_students_until_then(api_client, client, world):
    tournament = entered(world["instructor"], world["course"], world["bots"], game="endgame",
                         format="single-elimination", visibility="at-end")
    services.start(world["instructor"], tournament)
    tournament.refresh_from_db()

    api_client.force_authenticate(world["student"])
    hidden = api_client.get(f"/api/tournaments/{tournament.pk}/").json()
    assert hidden["champion"] is None
    assert api_client.get(f"/api/tournaments/{tournament.pk}/series/").json() == []
    assert api_client.get(f"/api/tournaments/{tournament.pk}/bracket/").status_code == 404
    client.force_login(world["student"])
    assert b"released when the tournament ends" in client.get(f"/tournaments/{tournament.pk}/").content

    api_client.force_authenticate(world["instructor"])
    assert len(api_client.get(f"/api/tournaments/{tournament.pk}/series/").json()) == 3

    play_out(tournament)
    api_client.force_authenticate(world["student"])
    revealed = api_client.get(f"/api/tournaments/{tournament.pk}/").json()
    assert revealed["champion"] and len(api_client.get(f"/api/tournaments/{tournament.pk}/series/").json()) == 3


def test_the_instructor_creates_enters_and_starts_on_the_pages(client, world):
    client.force_login(world["instructor"])
    course = world["course"]
    page = client.post(f"/courses/{course.pk}/tournaments/", {
        "name": "Page cup", "game": "endgame", "format": "double-elimination", "games_per_series": 2,
        "seeding": "rating", "visibility": "live"})
    assert page.status_code == 302
    tournament = course.tournaments.get(name="Page cup")
    for bot in world["bots"]:
        client.post(f"/tournaments/{tournament.pk}/entrants/", {"bot": bot.pk})
    assert tournament.entrants.count() == 4
    assert client.get(f"/tournaments/{tournament.pk}/").content.decode().count("awaiting the owner's consent") == 4
    for entrant in tournament.entrants.all():  # each owner accepts on their bot's page
        client.force_login(entrant.bot.owner)
        assert "Tournament entries" in client.get(f"/bots/{entrant.bot_id}/").content.decode()
        assert client.post(f"/entries/{entrant.pk}/accept/").status_code == 302
    client.force_login(world["instructor"])
    client.post(f"/tournaments/{tournament.pk}/start/")
    shown = client.get(f"/tournaments/{tournament.pk}/")
    assert b'id="bracket"' in shown.content and b"Pause" in shown.content
    assert b'data-live-url="/tournaments/%d/live/?last_event_id=' % tournament.pk in shown.content, "a running tournament's page follows it"
    play_out(tournament)
    finished = client.get(f"/tournaments/{tournament.pk}/")
    assert b"data-live-url" not in finished.content and b'id="champion"' in finished.content


@pytest.mark.django_db(transaction=True)
def test_the_tournament_pages_stream_sends_only_what_changed_since_the_page_was_rendered(client, world, live_server):
    """The page renders the running tournament's live part; the stream it names then sends nothing until the
    tournament changes. It used to send the part again as soon as it opened, replacing the Pause, Resume and
    Cancel buttons right after the page loaded: a click landing in that moment was lost."""
    instructor = world["instructor"]
    tournament = entered(instructor, world["course"], world["bots"], game="endgame", format="single-elimination",
                         games_per_series=2)
    services.start(instructor, tournament)
    client.force_login(instructor)
    page, stream = page_stream(live_server, client, f"/tournaments/{tournament.pk}/", "live-part")
    with stream:
        assert ">Pause</button>" in page
        services.pause(instructor, tournament)
        event = stream.next_event()

    assert "status-paused" in event["data"]["payload"]["html"] and ">Resume</button>" in event["data"]["payload"]["html"]


@pytest.mark.django_db(transaction=True)
def test_the_tournament_pages_stream_sends_nothing_while_only_the_clock_moves(client, world, live_server):
    """Once a series is decided the live part estimates the end at the pace so far. That estimate used to be
    the seconds left from now, so the part changed every second with nothing happening: the stream opened
    after the page sent it again (and, at each of its reads, a polling stream sent it anew), replacing the
    buttons under the instructor's click. It now is the end the pace of the decided series points to."""
    instructor = world["instructor"]
    tournament = entered(instructor, world["course"], world["bots"], game="endgame", format="single-elimination",
                         games_per_series=2)
    services.start(instructor, tournament)
    while not tournament.series.filter(status="decided", bye=False).exists():
        play_now(Match.objects.filter(series_game__series__tournament=tournament, status=Match.Status.QUEUED)
                 .order_by("id").first())
        services.advance(tournament.pk)
    client.force_login(instructor)
    page, stream = page_stream(live_server, client, f"/tournaments/{tournament.pk}/", "live-part")
    with stream:
        assert "at this pace" in page and ">Pause</button>" in page
        time.sleep(1.5)  # the clock moves on, nothing else does
        services.pause(instructor, tournament)
        event = stream.next_event()

    assert "status-paused" in event["data"]["payload"]["html"]
