"""A spectator in a real browser (Debian's chromium, under the site's Content-Security-Policy) watches a bot
match played by a real worker in the Docker sandbox: moves arrive on the live board before the match ends,
then the board becomes the match's replay, without a reload."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from arena.bots.models import Bot
from arena.matches import services
from arena.matches.models import Match
from platform_helpers import BROWSER_TIMEOUT_MS, active_bot

pytestmark = pytest.mark.django_db(transaction=True)

# End Game's take-the-larger-end bot, thinking a little over each move (well within its 1 s a decision), so
# that the match lasts a few seconds: long enough for a person to watch it.
THINKING_BOT = b"""import time

def act(observation):
    time.sleep(0.3)
    board = observation['board']
    return 'left' if board[0] >= board[-1] else 'right'
"""


@pytest.fixture
def people(django_user_model):
    # Made before the browser starts: its event loop forbids database calls in this thread.
    carol = django_user_model.objects.create_user("carol", password="carol-browser-pass")
    django_user_model.objects.create_user("dora", password="dora-browser-pass")
    return active_bot(carol, code=THINKING_BOT)


def queue_match(bot) -> Match:
    try:
        return services.create_match("endgame", [bot, Bot.objects.builtin("endgame", "greedy")],
                                     purpose=Match.Purpose.CHALLENGE, rated=False)
    finally:
        connection.close()  # this thread's own: the test database is dropped at the end


def spectating(chromium, live_server, bot, *, cut_stream: bool = False):
    """dora, signed in, on the page of a match of `bot` queued meanwhile: the page, and the match. With
    `cut_stream`, every request for its stream fails (a proxy that buffers events, a connection that drops)."""
    page = chromium.new_context().new_page()  # the site's policy holds: no bypass
    page.set_default_timeout(BROWSER_TIMEOUT_MS)
    if cut_stream:
        page.route("**/stream/**", lambda route: route.abort())
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "dora")
    page.fill("input[name=password]", "dora-browser-pass")
    page.click("button[type=submit]")
    page.wait_for_selector("text=Your bots")
    # Queued now, while the spectator is signed in (from another thread: the browser's loop forbids the database
    # in this one).
    with ThreadPoolExecutor(1) as thread:
        match = thread.submit(queue_match, bot).result()
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    return page, match


def test_a_spectator_sees_the_moves_as_they_are_played_then_the_replay(live_server, live_worker, people, chromium):
    page, match = spectating(chromium, live_server, people)
    # A number taken on the board while the page still says the match is being played: a move seen live.
    page.wait_for_selector('#live[data-status="running"] #board .cell.taken')
    assert page.locator("#board .cell").count() == 20
    assert page.inner_text("#live-position").startswith("step ")

    page.wait_for_selector("#status:has-text('finished')")
    # Without a reload, the live board becomes the replay viewer at the final position, every move listed.
    page.wait_for_selector('#live[data-mode="replay"] #moves tr[data-step]')
    steps = page.locator("#moves tr[data-step]").count()
    assert steps == 20 and page.inner_text("#position") == f"step {steps} / {steps}"
    assert page.locator("#board .cell.taken").count() == 20
    assert page.url.endswith(f"/matches/{match.pk}/")
    page.click("#first")  # its controls work there
    assert page.inner_text("#position").startswith("step 0 /")
    assert page.locator("#board .cell.taken").count() == 0
    page.click("text=Watch the replay")  # and the replay page is linked, as for whoever comes later
    page.wait_for_selector("#moves tr[data-step]")
    assert page.inner_text("#position").startswith("step 0 /")


def test_a_page_whose_stream_is_cut_still_learns_that_the_match_ended(live_server, live_worker, people, chromium):
    page, _ = spectating(chromium, live_server, people, cut_stream=True)
    # Its status part, fetched again while the match is queued and then running, follows it to the end.
    page.wait_for_selector("#status:has-text('finished')")
    assert page.locator("#replay-link").is_visible()
    assert all(score.strip() for score in page.locator("#seats .score").all_inner_texts())
