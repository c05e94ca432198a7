"""Whole tournaments through real Celery workers and Docker sandboxes, one surviving a SIGKILLed worker.

Only the start is called here; everything after it (every game, every series decided, every round
created, the champion) is the workers' doing through the match_finished hook and the advance task.
"""

import os
import sys
from pathlib import Path

import pytest

from arena.celery import app as celery_app
from celery_lab import BEAT, CeleryProcess
from arena.matches.models import Match
from platform_helpers import EXAMPLE_BOT, database_url, wait_for
from tournament_helpers import LOOKAHEAD_BOT, course_with_bots, entered
from arena.tournaments import services
from arena.tournaments.models import Series, SeriesGame, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
CRAZYKING_BOT = (ROOT / "docs" / "bots" / "examples" / "crazyking_example.py").read_text()
# Each bot thinks 0.3 s a move (within the 1 s per decision), so a game lasts long enough to be killed
# mid-way; two different strategies, so that series are decided without many tie-break games.
SLOW_BOTS = tuple("import time\n" + code.replace("    board = observation['board']\n",
                                                 "    time.sleep(0.3)\n    board = observation['board']\n", 1)
                  for code in (EXAMPLE_BOT.decode(), LOOKAHEAD_BOT))


def run_to_the_end(tournament: Tournament, timeout: float) -> Tournament:
    def over():
        tournament.refresh_from_db()
        return tournament.status in (Tournament.Status.FINISHED, Tournament.Status.PAUSED,
                                     Tournament.Status.CANCELLED)

    wait_for(over, timeout, f"{tournament.name} to finish")
    assert tournament.status == Tournament.Status.FINISHED, tournament.note
    return tournament


def assert_played_once_and_fairly(tournament: Tournament) -> None:
    """Every series decided once from finished games, seats balanced, and nothing left queued."""
    matches = Match.objects.filter(series_game__series__tournament=tournament)
    assert set(matches.values_list("status", flat=True)) == {Match.Status.FINISHED}
    for row in tournament.series.filter(bye=False, walkover=False):
        assert row.status == Series.Status.DECIDED and row.decided_at
        games = list(row.games.order_by("index"))
        assert [g.index for g in games] == list(range(len(games)))
        assert len(games) % len(row.entrants) == 0
        for seat in range(len(row.entrants)):  # every entrant sat in every seat equally often
            counts = {e: sum(1 for g in games if g.seats[seat] == e) for e in row.entrants}
            assert len(set(counts.values())) == 1, (row.key, counts)


def test_a_16_bot_end_game_single_elimination_runs_to_its_champion(live_worker, make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 16)
    tournament = entered(instructor, course, bots, game="endgame", format="single-elimination",
                         games_per_series=2, config={"length": 8})
    services.start(instructor, tournament)
    tournament = run_to_the_end(tournament, 600)
    assert_played_once_and_fairly(tournament)
    played = tournament.series.filter(bye=False)
    assert played.count() == 15 and [r.round for r in played.order_by("round")][-1] == 4
    final = played.get(round=4)
    assert tournament.champion.seed == final.winner


def test_an_8_bot_crazyking_heats_event_runs_to_its_final_table(live_worker, make_user):
    course, instructor, bots = course_with_bots(make_user, "crazyking", 8, codes=(CRAZYKING_BOT,))
    tournament = entered(instructor, course, bots, game="crazyking", format="heats", players_per_game=4,
                         advance=2, games_per_series=4)
    services.start(instructor, tournament)
    tournament = run_to_the_end(tournament, 900)
    assert_played_once_and_fairly(tournament)
    heats, final = list(tournament.series.filter(round=1)), tournament.series.get(bracket="final")
    assert len(heats) == 2 and all(len(pod.entrants) == 4 for pod in heats)
    advanced = {seed for pod in heats for seed, place in pod.placings.items() if place <= 2}
    assert {str(seed) for seed in final.entrants} == advanced
    assert tournament.champion.seed == final.winner


def test_a_9_bot_swiss_of_4_rounds_pairs_without_rematches(live_worker, make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 9)
    tournament = entered(instructor, course, bots, game="endgame", format="swiss", rounds=4,
                         games_per_series=2, config={"length": 8})
    services.start(instructor, tournament)
    tournament = run_to_the_end(tournament, 600)
    rows = list(tournament.series.all())
    assert sorted({r.round for r in rows}) == [1, 2, 3, 4]
    assert sum(1 for r in rows if r.bye) == 4, "one bye a round with 9 players"
    byes = [r.entrants[0] for r in rows if r.bye]
    assert len(set(byes)) == 4, "nobody gets a second bye"
    pairs = [frozenset(r.entrants) for r in rows if not r.bye]
    assert len(pairs) == len(set(pairs)) == 16
    assert_played_once_and_fairly(tournament)
    # A Swiss may end with first place shared after both tie-breaks; then there is no single champion.
    leaders = [row for row in services.format_of(tournament).standings(services.played_outcomes(tournament))
               if row.place == 1]
    assert (tournament.champion is not None) == (len(leaders) == 1)
    if tournament.champion:
        assert tournament.champion.seed == leaders[0].entrant


@pytest.fixture
def kill_lab(django_db_setup, sandbox_backend, tmp_path, settings):
    """Two workers and a scheduler of this test's own, on a queue of its own on the real broker."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.fail("PostgreSQL is needed: the worker processes share the test database")
    queue = f"arena-kill-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    default_queue = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = queue
    settings.ARENA_MATCH_DEADLINE_SECONDS = 10
    env = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
           "ARENA_QUEUE": queue, "ARENA_MATCH_DEADLINE_SECONDS": "10", "ARENA_VAR_DIR": str(settings.VAR_DIR),
           "ARENA_SANDBOX": sandbox_backend, "SECRET_KEY": settings.SECRET_KEY}
    celery_app.control.purge()
    started = []

    def worker(name):
        started.append(CeleryProcess.worker(name, queue, env, tmp_path))
        return started[-1]

    def scheduler():
        process = CeleryProcess("beat", [sys.executable, "-c", BEAT, "1", str(tmp_path / "beat-schedule")],
                                env, tmp_path, "beat: Starting...")
        started.append(process)
        process.wait_ready()
        return process

    try:
        yield worker, scheduler
    finally:
        celery_app.conf.task_default_queue = default_queue
        for process in started:
            process.terminate()
        for process in started:
            process.stop()
        for process in started:
            print(f"--- {process.log.name} ---\n{process.tail()}")


def test_a_tournament_survives_a_worker_sigkilled_mid_round_with_every_series_decided_once(kill_lab, make_user):
    worker, scheduler = kill_lab
    doomed, survivor = worker("doomed"), worker("survivor")
    scheduler()
    course, instructor, bots = course_with_bots(make_user, "endgame", 4, codes=SLOW_BOTS)
    tournament = entered(instructor, course, bots, game="endgame", format="single-elimination",
                         games_per_series=2, config={"length": 6})
    services.start(instructor, tournament)

    # Mid-round: both workers playing a first-round game.
    running = lambda: Match.objects.filter(series_game__series__tournament=tournament,  # noqa: E731
                                           status=Match.Status.RUNNING).count()
    wait_for(lambda: running() >= 2, 120, "two games of the first round to be running")
    doomed.kill()
    assert Match.objects.filter(series_game__series__tournament=tournament, status=Match.Status.RUNNING).exists()

    tournament = run_to_the_end(tournament, 300)
    assert_played_once_and_fairly(tournament)
    assert tournament.series.filter(bye=False).count() == 3
    assert SeriesGame.objects.filter(series__tournament=tournament).count() == Match.objects.filter(
        series_game__series__tournament=tournament).count()
    retried = Match.objects.filter(series_game__series__tournament=tournament, attempts__gt=1)
    assert retried.exists(), "the killed worker's game was played again by the survivor"
    assert survivor.process.poll() is None
