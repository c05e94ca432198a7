"""Pages that follow what they show through the live stream (arena.core.live, core/live.js) instead of
polling, in a real browser (Debian's chromium, the site's Content-Security-Policy on): a change made
elsewhere (a worker's game, a task's step) shows on the open page without a reload. One browser and one
test server for them all."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from arena.tournaments import services as tournaments
from test_tables_browser import browser_as
from tournament_helpers import course_with_bots, entered, play_out

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


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
