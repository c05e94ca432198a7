"""Pages that follow what they show through the live stream (arena.core.live, core/live.js) instead of
polling, in a real browser (Debian's chromium, the site's Content-Security-Policy on): a change made
elsewhere (a worker's game, a task's step) shows on the open page without a reload. One browser and one
test server for them all."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from arena.bots import services as bots
from arena.celery import app as celery_app
from arena.bots.models import BotVersion
from arena.grading import runs
from arena.grading import services as grading
from arena.matches.models import Match
from arena.tournaments import services as tournaments
from grading_helpers import course_with_people, open_assignment, play_run, submitted_bots
from platform_helpers import EXAMPLE_BOT, play_now
from test_tables_browser import browser_as
from tournament_helpers import course_with_bots, entered, play_out

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.fixture(autouse=True)
def games_played_here(monkeypatch):
    """No task of these tests reaches a Celery worker: each test plays its games itself, at the moment it
    chooses (a live worker another test of the session started would otherwise play them first)."""
    monkeypatch.setattr(celery_app, "send_task", lambda *args, **kwargs: None)


def session_of(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def elsewhere(change, *args):
    """`change(*args)` in another thread, as a worker would make it: the browser's event loop forbids the
    database in this one."""
    def run():
        try:
            return change(*args)
        finally:
            connection.close()  # this thread's own: the test database is dropped at the end

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(run).result()


def not_reloaded(page) -> None:
    """Marks the page's window: a reload would lose the mark."""
    page.evaluate("window.sameDocument = true")


def still_same_document(page) -> bool:
    return page.evaluate("window.sameDocument === true")


@pytest.fixture
def running_cup(make_user, in_process_sandbox):
    """A running single-elimination cup of two bots (one series of two games), its instructor's session.
    Made before the browser starts."""
    course, instructor, bots = course_with_bots(make_user, "endgame", 2)
    tournament = entered(instructor, course, bots, game="endgame", format="single-elimination", games_per_series=2)
    tournaments.start(instructor, tournament)
    return tournament, session_of(instructor)


def test_a_tournament_page_follows_its_games_to_the_champion_without_reloading(running_cup, live_server, chromium):
    tournament, session = running_cup
    page = browser_as(chromium, live_server.url, session)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    page.wait_for_selector("#progress:has-text('0 of 1 series decided')")
    assert page.locator("#champion").count() == 0
    not_reloaded(page)
    elsewhere(play_out, tournament)  # the games played and the tournament advanced, as the workers do
    page.wait_for_selector("#champion")
    assert page.locator("#status").inner_text() == "Finished"
    assert "1 of 1 series decided" in page.locator("#progress").inner_text()
    assert still_same_document(page)


@pytest.fixture
def grading_run(make_user, in_process_sandbox):
    """A grading run going: ann's bot against greedy, two games queued; the instructor's session."""
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course)
    grading.add_part(people["instructor"], assignment, "win_rate", 100, {"opponent": "greedy", "games": 2})
    submitted_bots(assignment, people, {"ann": EXAMPLE_BOT.decode()})
    run = runs.start_run(people["instructor"], assignment)
    assert run.games.count() == 2
    return run, session_of(people["instructor"])


def play_one_game(run):
    play_now(run.games.filter(match__status=Match.Status.QUEUED).order_by("match_id").first().match)
    runs.advance_run(run.pk)


def test_a_grading_run_shows_each_game_played_then_its_grades(grading_run, live_server, chromium):
    run, session = grading_run
    page = browser_as(chromium, live_server.url, session)
    page.goto(f"{live_server.url}/assignments/{run.assignment_id}/")
    page.wait_for_selector("#run-progress:has-text('0 of 2 games played')")
    not_reloaded(page)
    elsewhere(play_one_game, run)
    page.wait_for_selector("#run-progress:has-text('1 of 2 games played')")  # without a reload
    assert still_same_document(page) and page.locator("#run-status").inner_text() == "Running"
    elsewhere(play_run, run)
    # The run's end changes the whole page (its grades): the page loads itself again.
    page.wait_for_selector("#run-status:has-text('Finished')")
    page.wait_for_selector("#grades .total, table .total")
    assert not still_same_document(page)


@pytest.fixture
def validating(make_user):
    """ada's bot with two versions being validated (their matches queued); her session."""
    ada = make_user("ada")
    bot = bots.create_bot(ada, "endgame", "twice")
    for _ in range(2):
        bots.upload_version(bot, EXAMPLE_BOT, "bot.py")
    return bot, session_of(ada)


def validate(bot, number: int) -> None:
    version = BotVersion.objects.get(bot=bot, number=number)
    play_now(version.validation_match)


def test_the_versions_table_follows_each_validation(validating, in_process_sandbox, live_server, chromium):
    bot, session = validating
    page = browser_as(chromium, live_server.url, session)
    page.goto(f"{live_server.url}/bots/{bot.pk}/")
    assert page.locator("#versions tr.version-validating").count() == 2
    not_reloaded(page)
    elsewhere(validate, bot, 1)
    page.wait_for_selector("#versions tr.version-accepted")  # v1's verdict, without a reload
    assert page.locator("#versions tr.version-validating").count() == 1 and still_same_document(page)
    elsewhere(validate, bot, 2)
    # None validates any more: the page loads again, for what the verdicts change (the challenge form).
    page.wait_for_selector("#versions-part:not([data-live-url])", state="attached")
    assert page.locator("#versions tr.version-accepted").count() == 2 and not still_same_document(page)
