"""A platform match at the bot boundary: a hostile bot's line is a verdict against it through the match
task (a rated loss, a replay PostgreSQL stores as jsonb, no container kept), and a match that ends by an
exception leaves no sandbox of any backend behind."""

import hashlib
import json
import os

import pytest
from django.db import connection
from hostile import HOSTILE_LINES, assert_storable_text, hostile_bot_source
from left_behind import left_behind
from platform_helpers import active_bot, wait_for
from required import require

import sandbox
from arena.bots.models import Bot
from games.core import Verdict
from games.endgame import EndGameState
from arena.matches import runner, services
from arena.matches.models import Match
from sandbox.pool import REUSABLE_VERDICTS, WARM_LABEL


def challenge(bot) -> Match:
    """A rated challenge of `bot` (seat 0) against the greedy built-in (seat 1), queued."""
    return services.create_match("endgame", [bot, Bot.objects.builtin("endgame", "greedy")], rated=True,
                                 purpose=Match.Purpose.CHALLENGE, rotate=False)


def warm_containers_of(seat) -> list[str]:
    """The warm containers kept for the version `seat` played (sandbox/pool.py labels them by its key)."""
    from sandbox.docker_backend import client

    digest = hashlib.sha256(repr(runner.warm_key(seat.bot, seat.version)).encode()).hexdigest()[:16]
    return [c.name for c in client().containers.list(all=True, filters={"label": f"{WARM_LABEL}={digest}"})]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("line", sorted(HOSTILE_LINES))
def test_a_hostile_line_through_the_match_task_is_a_rated_loss_with_a_stored_replay(live_worker, make_user, line):
    lines, verdict, evidence = HOSTILE_LINES[line]
    match = challenge(active_bot(make_user("mallory"), code=hostile_bot_source(lines).encode()))

    wait_for(lambda: Match.objects.get(pk=match.pk).is_over, 120, "the match task")
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED, match.error
    attacker, opponent = services.with_seats(match).seats.all()
    assert (attacker.status, attacker.placing, opponent.placing, match.winners) == (verdict, 2, 1, [1])
    assert evidence in attacker.detail
    assert_storable_text(attacker.log)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_typeof(replay)::text, (replay -> 'result' -> 'statuses')::text FROM matches_match "
                       "WHERE id = %s", [match.pk])
        stored, statuses = cursor.fetchone()
    assert stored == "jsonb" and json.loads(statuses) == [verdict, "ok"]
    # Played in a warm container (a challenge): discarded after a verdict that can leave it unclean, else
    # reset and kept, idle, for the bot's next match.
    assert len(warm_containers_of(attacker)) <= (1 if Verdict(verdict) in REUSABLE_VERDICTS else 0)


def raise_from_the_third_move(state, action, applied=EndGameState._apply):
    """End Game with a bug that strikes once every bot has started and decided (the sandboxes are in use)."""
    if state.step >= 2:
        raise RuntimeError("a bug of the game")
    applied(state, action)


@pytest.mark.django_db
@pytest.mark.parametrize("backend", ["docker", "docker-warm", "bwrap", "none"])
def test_a_game_that_raises_mid_match_leaves_no_sandbox_of_the_runner(backend, make_user, settings, monkeypatch):
    from sandbox.bwrap_backend import bwrap_works

    require(bwrap_works() if backend == "bwrap" else backend == "none" or sandbox.docker_ready(),
            f"the {backend} sandbox")
    settings.ARENA_SANDBOX = "docker" if backend.startswith("docker") else backend
    settings.ARENA_WARM_SANDBOX = backend == "docker-warm"
    match = services.with_seats(challenge(active_bot(make_user("ada"))))
    assert runner.match_backend(match) == backend
    before = left_behind(os.getpid())  # this process's idle warm containers, kept by earlier tests, may stay
    monkeypatch.setattr(EndGameState, "_apply", raise_from_the_third_move)

    with pytest.raises(RuntimeError, match="a bug of the game"):
        runner.play(match, list(match.seats.all()))

    assert left_behind(os.getpid()) - before == set()
