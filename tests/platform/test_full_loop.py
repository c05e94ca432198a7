"""The whole student loop over HTTP, with a real Celery worker, the real broker and the Docker sandbox."""

import pytest
import requests

from platform_helpers import EXAMPLE_BOT, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


class Student:
    """A student using the REST API of the live server with a token."""

    def __init__(self, base: str, username: str):
        self.base = base
        self.http = requests.Session()
        registered = self.http.post(f"{base}/api/auth/register/",
                                    json={"username": username, "email": f"{username}@loop.example", "password": "a-long-test-password"})
        assert registered.status_code == 201, registered.text
        token = self.http.post(f"{base}/api/auth/token/",
                               data={"username": username, "password": "a-long-test-password"}).json()["token"]
        self.http.headers["Authorization"] = f"Token {token}"

    def get(self, path: str, **params):
        response = self.http.get(self.base + path, params=params, timeout=30)
        response.raise_for_status()
        return response.json()

    def post(self, path: str, **kwargs):
        return self.http.post(self.base + path, timeout=30, **kwargs)


def test_register_upload_validate_challenge_replay_ladder(live_server, live_worker):
    ada = Student(live_server.url, "ada")
    bot = ada.post("/api/bots/", json={"name": "greedy-ada", "game": "endgame"}).json()
    version = ada.post(f"/api/bots/{bot['id']}/versions/", files={"file": ("greedy.py", EXAMPLE_BOT)}).json()
    assert version["status"] == "validating"

    validated = wait_for(
        lambda: (v := ada.get(f"/api/versions/{version['id']}/"))["status"] != "validating" and v, 120,
        "validation of the upload",
    )
    assert validated["status"] == "accepted", validated["verdict"] + validated["validation_log"]
    assert ada.get(f"/api/bots/{bot['id']}/")["active_version"]["number"] == 1

    builtin = next(b for b in ada.get("/api/bots/", game="endgame", active="1")["results"]
                   if b["label"] == "builtin:random")
    ladder_before = {row["bot"]["id"]: row for row in ada.get("/api/ladder/endgame/")["results"]}
    assert ladder_before[bot["id"]]["played"] == 0

    refused = ada.post("/api/matches/", json={"bot": bot["id"], "opponents": [builtin["id"]], "rated": True})
    assert refused.status_code == 400 and "challenges are unrated practice" in refused.text
    practice = ada.post("/api/matches/", json={"bot": bot["id"], "opponents": [builtin["id"]]})
    assert practice.status_code == 201, practice.text
    wait_for(lambda: ada.get(f"/api/matches/{practice.json()['id']}/")["status"] in ("finished", "set_aside"),
             120, "the challenge to finish")
    # The ladder's match, as the platform's matchmaking would start it.
    from arena.bots.models import Bot
    from arena.matches import services as match_services
    from arena.matches.models import Match

    match_id = match_services.create_match("endgame", list(Bot.objects.filter(pk__in=[bot["id"], builtin["id"]])),
                                           purpose=Match.Purpose.LADDER, rated=True).pk
    match = wait_for(lambda: (m := ada.get(f"/api/matches/{match_id}/"))["status"] in ("finished", "set_aside") and m,
                     120, "the ladder match to finish")
    assert match["status"] == "finished", match["error"]
    mine = next(seat for seat in match["seats"] if seat["bot"] == bot["id"])
    theirs = next(seat for seat in match["seats"] if seat["bot"] == builtin["id"])
    assert mine["status"] == "ok" and mine["log"] is not None
    assert mine["rating_before"] == theirs["rating_before"] == 0  # the documented initial rating, mu - 3 sigma

    replay = ada.get(f"/api/matches/{match_id}/replay/")
    moves = [frame["event"] for frame in replay["frames"] if frame["event"]]
    assert len(moves) == sum(seat["decisions"] for seat in match["seats"])
    assert all({"best_value", "move_value", "points_lost"} <= set(move["analysis"]) for move in moves)
    assert replay["points_lost"][mine["seat"]] >= 0

    ladder = {row["bot"]["id"]: row for row in ada.get("/api/ladder/endgame/")["results"]}
    assert ladder[bot["id"]]["played"] == 1
    assert ladder[bot["id"]]["rating"] == pytest.approx(mine["rating_after"])
    assert ladder[builtin["id"]]["rating"] == pytest.approx(theirs["rating_after"])
    outcome = "wins" if mine["placing"] == 1 and theirs["placing"] == 2 else \
        "draws" if mine["placing"] == 1 else "losses"
    assert ladder[bot["id"]][outcome] == 1
    history = ada.get(f"/api/bots/{bot['id']}/ratings/")
    assert [point["match"] for point in history] == [match_id]


def test_a_match_whose_worker_died_is_requeued_and_finished_once(live_worker, monkeypatch):
    from django.utils import timezone

    from arena.bots.models import Bot
    from arena.matches import services
    from arena.matches.models import Match
    from arena.matches.tasks import requeue_stuck_matches
    from arena.ratings.models import Rating

    with monkeypatch.context() as patch:
        patch.setattr(services, "dispatch", lambda match, **options: None)
        match = services.create_match("endgame", [Bot.objects.builtin("endgame", "greedy"),
                                                  Bot.objects.builtin("endgame", "parity")],
                                      purpose=Match.Purpose.CHALLENGE, rated=True)
    # A worker claimed it and died mid-match: nothing will ever record its result.
    assert isinstance(services.claim(match.pk), services.Claim)
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timezone.timedelta(seconds=1))

    assert requeue_stuck_matches() == 1  # what the scheduler runs every minute
    wait_for(lambda: Match.objects.get(pk=match.pk).status == Match.Status.FINISHED, 60, "the re-queued match")
    match.refresh_from_db()
    assert match.attempts == 2
    assert sorted(Rating.objects.values_list("played", flat=True)) == [1, 1]
