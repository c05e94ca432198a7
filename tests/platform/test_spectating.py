"""Spectating a match while it is played (arena.matches.spectating): what its stream sends, to whom, how late.

The check of hidden information runs over what the stream would send after every single move of a real
match of every registered game (the worker's writes made at every step here): never a card or anything else
a seat's observation hides (a position that differs only in what some seat may not see sends the same), never
the seed."""

import json
import random
import re
import uuid

import pytest
from games import available_games, replay as replays

from arena.bots.models import Bot
from arena.core.live import Snapshot
from arena.matches import services, spectating
from arena.matches.models import Match
from platform_helpers import play_now

GAMES = sorted(available_games().items())
# A seed whose digits could not turn up in a view by chance.
SEED = 918_273_645_546_372


def builtin_table(game) -> list[Bot]:
    """Built-in bots for three seats (or the game's own count), a random player first."""
    seats = min(max(3, game.min_players), game.max_players)
    names = sorted(game.builtin_bots(), key=lambda name: name != "random")
    if game.cooperative:
        return [Bot.objects.builtin(game.name, names[0])] * seats
    return [Bot.objects.builtin(game.name, names[seat % len(names)]) for seat in range(seats)]


@pytest.fixture(autouse=True)
def played_here_only(monkeypatch):
    """These tests play their matches in this process, step by step: a Celery worker that an earlier test of
    this process started (live_worker) must not be sent them too, or it plays them meanwhile (writing its own
    positions, or ending the match before the first read)."""
    monkeypatch.setattr(services, "publish_on_commit", lambda *args, **kwargs: None)


@pytest.fixture(params=["cache", "database"])
def store(request, settings):
    """Where spectators' positions are kept: Redis, or a row without it (the demo, which polls)."""
    if request.param == "database":
        settings.ARENA_LIVE_REDIS_URL, settings.ARENA_LIVE_WAKEUP = "", "poll"
    return request.param


@pytest.fixture
def sent(monkeypatch, settings, in_process_sandbox):
    """What a match's stream would send after each write of its worker: every step written here."""
    settings.ARENA_SPECTATOR_INTERVAL_SECONDS = 0
    snapshots: list[Snapshot] = []

    def wake(topic):
        snapshots.append(spectating.snapshot(int(topic.split(":")[1]), with_view=True))

    monkeypatch.setattr(spectating, "publish", wake)
    return snapshots


@pytest.mark.django_db
@pytest.mark.parametrize("name, game", GAMES, ids=[name for name, _ in GAMES])
def test_a_spectator_is_sent_the_public_view_only_of_every_move(name, game, sent):
    match = play_now(services.create_match(name, builtin_table(game), purpose=Match.Purpose.CHALLENGE,
                                           rated=False, seed=SEED))
    assert match.status == Match.Status.FINISHED
    states = [state for state, _ in replays.states(match.replay)]
    rng = random.Random(5)

    steps = [snapshot.payload["step"] for snapshot in sent]
    # After every move its position (the page draws the start itself), then the end.
    assert steps == list(range(1, len(states))) + [len(states) - 1], "every position was sent, in order"
    for snapshot in sent:
        payload = snapshot.payload
        text = json.dumps(payload)
        assert json.loads(text) == payload
        assert str(SEED) not in text and not re.search(r'"(seed|rng|legal_actions|hand)":', text)
        assert "seat" not in payload["view"]  # no seat's own view
        state = states[payload["step"]]
        assert payload["view"] == state.public_view()
        # What no seat may see of this position changes nothing that is sent.
        for seat in range(state.num_players):
            variant = state.hidden_variant(seat, rng)
            if variant is not None:
                assert variant.public_view() == payload["view"], (payload["step"], seat)
    final = spectating.snapshot(match.pk, with_view=True)
    assert final.final and final.payload == {"status": "finished", "step": states[-1].step,
                                             "view": states[-1].public_view()}


@pytest.mark.django_db
def test_a_delayed_match_is_sent_its_moves_that_many_behind_and_the_end_whole(sent, store):
    bots = [Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "random")]
    match = play_now(services.create_match("endgame", bots, purpose=Match.Purpose.TOURNAMENT, rated=False,
                                           spectator_delay=3))
    moves = len(match.replay["events"])
    assert moves > 3
    # After each move the position 3 moves before it (the start until then), then the end.
    assert [snapshot.payload["step"] for snapshot in sent] == [max(0, k - 3) for k in range(1, moves + 1)] + [moves]
    assert sent[-2].payload["view"]["over"] is False and sent[-1].payload["view"]["over"] is True


@pytest.mark.django_db
def test_the_snapshot_follows_the_status_and_forgets_an_earlier_attempt(in_process_sandbox, store):
    bots = [Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "random")]
    match = services.create_match("endgame", bots, purpose=Match.Purpose.CHALLENGE, rated=False)
    queued = spectating.snapshot(match.pk, with_view=True)
    assert queued.payload == {"status": "queued", "step": None, "view": None} and not queued.final
    claimed = services.claim(match.pk)
    # What an attempt that was lost had saved: not this attempt's.
    spectating.save_progress(match.pk, {"claim": str(uuid.uuid4()), "step": 7, "view": {"game": "endgame"}})
    running = spectating.snapshot(match.pk, with_view=True)
    assert running.payload["status"] == "running" and running.payload["step"] is None
    assert running.version != queued.version
    services.run(claimed)
    finished = spectating.snapshot(match.pk, with_view=True)
    assert finished.final and finished.payload["view"]["over"] is True and finished.version > running.version
    # Someone who may see the match but not its rules gets its status, no board.
    assert spectating.snapshot(match.pk, with_view=False).payload["view"] is None
    assert spectating.snapshot(10**9, with_view=True) is None


def endgame_match(purpose=Match.Purpose.CHALLENGE) -> Match:
    bots = [Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "random")]
    return services.create_match("endgame", bots, purpose=purpose, rated=False)


@pytest.mark.django_db
def test_whoever_may_not_see_the_match_gets_no_stream(client, make_user):
    hidden = endgame_match(Match.Purpose.GRADING)  # a grading game: its course's staff only
    url = f"/matches/{hidden.pk}/stream/"
    assert client.get(url)["Location"].startswith("/accounts/login/")
    client.force_login(make_user("eve"))
    assert client.get(url).status_code == 404
    assert client.get(f"/matches/{10**9}/stream/").status_code == 404
    # A match being played is for the signed-in only; the same student may watch a challenge.
    played = endgame_match()
    response = client.get(f"/matches/{played.pk}/stream/", {"last_event_id": "nonsense"},
                          headers={"Last-Event-ID": "-1"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")
    response.close()


def test_a_spectator_reads_the_match_over_http_as_it_is_played(transactional_db, live_server, in_process_sandbox,
                                                                 settings, make_user):
    from sse_client import Stream

    settings.ARENA_SPECTATOR_INTERVAL_SECONDS = 0
    match = endgame_match()
    session = live_server_session(live_server, make_user("eve"))
    with Stream(f"{live_server.url}/matches/{match.pk}/stream/", cookies=session) as stream:
        first = stream.next_event()
        assert first["data"]["payload"]["status"] == "queued"
        play_now(match)
        events = []
        while (event := stream.next_event()) is not None:
            events.append(event["data"])
    assert events[-1]["final"] and events[-1]["payload"]["status"] == "finished"
    assert events[-1]["payload"]["view"]["over"] is True
    assert [int(event["version"]) for event in events] == sorted({int(event["version"]) for event in events})


def live_server_session(live_server, user) -> str:
    """A session cookie for `user` on the live server (as a browser signed in would send it)."""
    from django.conf import settings as django_settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"{django_settings.SESSION_COOKIE_NAME}={client.cookies[django_settings.SESSION_COOKIE_NAME].value}"


@pytest.mark.django_db
def test_a_tournament_sets_its_games_spectator_delay_by_the_api_and_refuses_a_bad_one(make_user, api_client):
    from tournament_helpers import accepted, course_with_bots

    from arena.tournaments import services as tournaments

    course, instructor, bots = course_with_bots(make_user, "endgame", 2)
    api_client.force_authenticate(instructor)
    new = {"course": course.pk, "name": "Held back", "game": "endgame", "format": "round-robin"}
    for bad in [-1, 1001, "three", True, None, 2.5, [1]]:
        assert api_client.post("/api/tournaments/", {**new, "spectator_delay": bad}, format="json").status_code == 400
    answer = api_client.post("/api/tournaments/", {**new, "spectator_delay": 4}, format="json")
    assert answer.status_code == 201 and answer.json()["spectator_delay"] == 4
    tournament = course.tournaments.get(pk=answer.json()["id"])
    for bot in bots:
        accepted(tournaments.add_entrant(instructor, tournament, bot))
    tournaments.start(instructor, tournament)
    delays = set(Match.objects.filter(series_game__series__tournament=tournament).values_list("spectator_delay", flat=True))
    assert delays == {4}
