"""Replays stored in the database before the replay was typed (games.contracts.Replay) still load: the
typed replay is the JSON as it was stored, so a match recorded by an earlier release replays, is analysed
and is shown as before, with nothing to migrate."""

import json

import pytest
from django.utils import timezone

from arena.bots.models import Bot
from arena.matches import services
from arena.matches.models import Match
from arena.matches.replays import finished_view
from platform_helpers import active_bot

pytestmark = pytest.mark.django_db

# A rated End Game challenge as the workers stored it (games.referee's replay, the seats named by the
# platform's labels), copied from the database: the shape every existing row has.
STORED = json.loads("""
{"format": "arena-replay", "version": 1, "game": "endgame",
 "config": {"length": 20, "min_value": -10, "max_value": 50, "board": [3, 9, 1, 7, 4, 2]}, "seed": 7,
 "num_players": 2, "players": ["ada/mine", "builtin:random"],
 "events": [{"seat": 0, "action": "left"}, {"seat": 1, "action": "right"}, {"seat": 0, "action": "left"},
            {"seat": 1, "action": "left"}, {"seat": 0, "action": "left"}, {"seat": 1, "action": "left"}],
 "result": {"winners": [0], "scores": [19, 7], "placings": [1, 2], "statuses": ["ok", "ok"]}}
""")

# The same match had the random bot timed out at its first move: a seat's failure is an event too.
STORED_WITH_A_VERDICT = {**STORED, "events": [{"seat": 0, "action": "left"}, {"seat": 1, "verdict": "timeout"}],
                         "result": {"winners": [0], "scores": [3, 0], "placings": [1, 2],
                                    "statuses": ["ok", "timeout"]}}


def stored_match(make_user, replay: dict) -> Match:
    mine = active_bot(make_user("ada"), name="mine")
    match = services.create_match("endgame", [mine, Bot.objects.builtin("endgame", "random")],
                                  purpose=Match.Purpose.CHALLENGE, rated=False, rotate=False)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, finished_at=timezone.now(),
                                             winners=replay["result"]["winners"], replay=replay)
    return Match.objects.get(pk=match.pk)


def test_a_replay_stored_today_replays_with_its_analysis_and_losses(make_user):
    match = stored_match(make_user, STORED)
    assert match.replay == STORED  # as stored, read back

    view = finished_view(match, None)
    assert len(view["frames"]) == 7 and view["players"] == ["ada/mine", "builtin:random"]
    moves = [frame["event"] for frame in view["frames"][1:]]
    assert [move["text"].split(" takes")[0] for move in moves][:2] == ["ada/mine", "builtin:random"]
    assert all(move["analysis"]["text"].startswith("best ") for move in moves)
    assert view["points_lost"] == [sum(move["analysis"]["points_lost"] for move in moves[seat::2]) for seat in (0, 1)]
    assert view["result"]["scores"] == [19, 7]


def test_a_stored_replay_with_a_seat_that_failed_shows_the_verdict(make_user, client):
    match = stored_match(make_user, STORED_WITH_A_VERDICT)
    view = finished_view(match, 0)
    assert [frame["event"] for frame in view["frames"]][2] == {
        "seat": 1, "verdict": "timeout", "text": "builtin:random is out: timeout"}
    client.force_login(match.created_by or match.seats.get(seat=0).bot.owner)
    assert client.get(f"/matches/{match.pk}/replay/").status_code == 200
    data = client.get(f"/matches/{match.pk}/replay/data/").json()
    assert data["frames"][2]["event"]["text"] == "builtin:random is out: timeout"
