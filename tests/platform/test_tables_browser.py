"""People playing at a table in real browsers (Debian's chromium, the site's Content-Security-Policy on): two
people against each other to the end, a person against a sandboxed bot, and a web server restarted mid-game."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from platform_helpers import (BROWSER_TIMEOUT_MS, EXAMPLE_BOT, active_bot, database_url, free_port, stop_process,
                              wait_for)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"width": 390, "height": 844}
BOARD_SIZE = 20  # End Game's default board: the moves of a whole game
MOVES_SHOWN = 12  # the table page lists the last moves (the replay has them all)


@pytest.fixture
def people(django_user_model):
    """ada and ben, each with a session of their own in the database (any web process reads it: a restarted
    one too). Made before the browser starts: its event loop forbids database calls in this thread."""
    sessions = {}
    for name in ("ada", "ben"):
        client = Client()
        client.force_login(django_user_model.objects.create_user(name))
        sessions[name] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return sessions


def browser_as(chromium, base: str, session: str):
    """A separate browser context (its own cookies: another person) signed in with `session`, on the home page."""
    context = chromium.new_context()
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": base, "value": session}])
    page = context.new_page()
    page.set_default_timeout(BROWSER_TIMEOUT_MS)
    page.goto(f"{base}/")
    page.wait_for_selector("#play-link")
    return page


def open_table(page, base: str, seat1: str, move_seconds: str = "600") -> str:
    """ada opens an End Game table from the Play page, herself in seat 0; the table page's address."""
    page.click("#play-link")
    # The page's script hides the Choose button once it submits the form on a change of game: before then,
    # choosing a game changes nothing (a person is as quick as the script, a test is quicker).
    page.wait_for_selector("#choose-game[hidden]", state="attached")
    if page.locator("#game-choice").input_value() != "endgame":
        with page.expect_navigation():
            page.select_option("#game-choice", "endgame")
    page.select_option("#seat1", seat1)
    page.fill("#move-seconds", move_seconds)
    page.click("#open")
    page.wait_for_selector("#status")
    return page.url


def invite(ada, ben) -> None:
    """ada's table waits for the person she invited; ben opens her link and takes the seat."""
    ada.wait_for_selector("#status[data-status=waiting]")
    link = ada.locator("#invitations a.invitation").inner_text()  # the whole address, to send to someone
    ben.goto(link)
    ben.click("#take-seat")
    ben.wait_for_selector("#status[data-status=playing]")
    ada.wait_for_selector("#status[data-status=playing]")  # without reloading: the page follows the table


def play_turn(page, turn: int, choice: int = 0) -> None:
    """The person on move at `turn` clicks one of the moves offered."""
    page.wait_for_selector(f"#status[data-turn='{turn}']")
    page.wait_for_selector("#choice-list button.choice")
    assert page.locator("#status").inner_text().startswith("Your move")
    page.locator("#choice-list button.choice").nth(choice).click()
    # Past this turn: a bot on move next may have answered before the page shows turn + 1, and the page
    # then skips it (it shows only the newest table).
    page.wait_for_selector(f"#status:not([data-turn='{turn}'])")


def test_two_people_play_end_game_to_the_end_in_two_browsers(people, live_server, chromium):
    ada, ben = (browser_as(chromium, live_server.url, people[name]) for name in ("ada", "ben"))
    open_table(ada, live_server.url, "invite")
    invite(ada, ben)
    for turn in range(BOARD_SIZE):
        mover, other = (ada, ben) if turn % 2 == 0 else (ben, ada)
        play_turn(mover, turn, choice=turn % 2)
        # The move appears for the other person, whose turn it now is (or whose game is over).
        other.wait_for_selector(f"#status[data-turn='{turn + 1}']")
        assert other.locator("#moves li").count() == min(turn + 1, MOVES_SHOWN)
        assert mover.locator("#choice-list button").count() == 0  # nothing to click out of turn
    for page in (ada, ben):
        page.wait_for_selector("#status[data-status=finished]")
        assert "Game over" in page.locator("#status").inner_text()
        page.set_viewport_size(PHONE)
        assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1
    ada.click("#replay-link")
    ada.wait_for_selector("#moves tbody tr")
    assert ada.locator("#moves tbody tr").count() == BOARD_SIZE
    assert "Points lost" in ada.locator("#moves thead").inner_text()


@pytest.fixture
def ada_with_bot(people, django_user_model):
    return active_bot(django_user_model.objects.get(username="ada"), name="lefty", code=EXAMPLE_BOT)


@pytest.mark.docker
def test_a_person_plays_a_sandboxed_bot_and_the_replay_shows_the_analysis_of_their_moves(
        live_worker, people, ada_with_bot, live_server, chromium):
    ada = browser_as(chromium, live_server.url, people["ada"])
    open_table(ada, live_server.url, f"bot:{ada_with_bot.pk}")  # the bot in seat 1, ada moving first
    for turn in range(0, BOARD_SIZE, 2):
        play_turn(ada, turn)
        # The bot decides in a Docker sandbox, through the worker; its move shows on ada's page.
        if turn + 2 < BOARD_SIZE:
            ada.wait_for_selector(f"#status[data-turn='{turn + 2}']")
    ada.wait_for_selector("#status[data-status=finished]")
    assert ada.locator("#moves li").count() == MOVES_SHOWN
    assert all(text.startswith("ada/lefty takes") for text in ada.locator("#moves li.seat-1").all_inner_texts())
    ada.click("#replay-link")
    ada.wait_for_selector("#moves tbody tr")
    rows = ada.locator("#moves tbody tr").all()
    assert len(rows) == BOARD_SIZE
    # Every move has its solver's line (best value, move value, points lost), ada's as the bot's.
    assert all(len(row.locator("td").all_inner_texts()) == 5 and row.locator("td").nth(4).inner_text() != ""
               for row in rows)


def start_web_server(port: int, log_path: Path):
    """The site in gunicorn on the test database, with production's settings (gunicorn.conf.py: threads for the
    live streams beside the pages'), one process."""
    env = {**os.environ, "DATABASE_URL": database_url(), "SECRET_KEY": settings.SECRET_KEY,
           "ARENA_WEB_BIND": f"127.0.0.1:{port}", "ARENA_WEB_WORKERS": "1",
           "CELERY_BROKER_URL": settings.CELERY_BROKER_URL, "ARENA_VAR_DIR": str(settings.VAR_DIR),
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "platform"), os.environ.get("PYTHONPATH", "")]),
           # Longer than stop_process waits: a stop that waited for its live streams would end in a SIGKILL.
           "GUNICORN_CMD_ARGS": "--graceful-timeout 600"}
    with open(log_path, "a") as log:
        server = subprocess.Popen([sys.executable, "-m", "gunicorn"], env=env, cwd=ROOT, stdout=log,
                                  stderr=subprocess.STDOUT)

    def answers() -> bool:
        import urllib.request

        try:
            return urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=2).status == 200
        except OSError:
            return server.poll() is not None
    wait_for(answers, 60, "the web server")
    assert server.poll() is None, log_path.read_text()[-3000:]
    return server


def test_a_web_server_restarted_mid_game_loses_nothing_and_the_game_resumes(people, tmp_path, chromium):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log_path = tmp_path / "web.log"
    server = start_web_server(port, log_path)
    try:
        ada, ben = (browser_as(chromium, base, people[name]) for name in ("ada", "ben"))
        open_table(ada, base, "invite")
        invite(ada, ben)
        play_turn(ada, 0)
        play_turn(ben, 1)
        # The web server goes away mid-game (the table is its database row alone); it ends the two pages'
        # live streams rather than wait for them, and stops by itself.
        stop_process(server)
        assert server.returncode == 0, log_path.read_text()[-3000:]
        server = start_web_server(port, log_path)
        for turn in range(2, BOARD_SIZE):
            play_turn((ada, ben)[turn % 2], turn)
        for page in (ada, ben):
            page.wait_for_selector("#status[data-status=finished]")
            assert page.locator("#moves li").last.get_attribute("value") == str(BOARD_SIZE)
    finally:
        stop_process(server)
