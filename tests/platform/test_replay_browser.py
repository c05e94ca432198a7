"""The replay viewer and the site's pages in a real browser (Debian's chromium), on a wide screen and a
phone: each game's table is drawn, stepping, jumping and switching views work. Screenshots of every page
are saved for a reviewer (the path is printed)."""

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from arena.bots.models import Bot
from arena.matches import services
from arena.matches.models import Match
from platform_helpers import wait_for
from tournament_helpers import course_with_bots, entered
from arena.tournaments import services as tournament_services
from arena.tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)

WIDE = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
TABLES = {"endgame": ("optimal", "greedy"), "crazyking": ("random", "most-suit", "tactician"),
          "sortinggame": ("honest", "random", "shrewd")}


@pytest.fixture
def matches(django_user_model, live_worker):
    """One finished rated match of each game between built-in bots, played by the real worker (this test
    commits, so its matches reach the broker). Made before the browser starts: its event loop forbids
    database calls in this thread."""
    django_user_model.objects.create_user("dana", password="dana-browser-pass")
    played = {}
    for game, names in TABLES.items():
        bots = [Bot.objects.builtin(game, name) for name in names]
        played[game] = services.create_match(game, bots, purpose="challenge", rated=True).pk
    played_out(played.values())
    played["optimal"] = Bot.objects.builtin("endgame", "optimal").pk
    return played


def played_out(pks) -> None:
    """Wait until the worker has ended each match (however long a loaded machine takes: up to the platform's
    own deadline for an attempt, not a guess), then insist each one finished."""
    pks = list(pks)
    over = Match.objects.filter(pk__in=pks).exclude(status__in=[Match.Status.QUEUED, Match.Status.RUNNING])
    wait_for(lambda: over.count() == len(pks), settings.ARENA_MATCH_DEADLINE_SECONDS, "the matches to end")
    unfinished = list(over.exclude(status=Match.Status.FINISHED).values_list("pk", "status", "error"))
    assert not unfinished, unfinished


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("screenshots")
    print(f"\nscreenshots: {folder}")
    yield folder
    print(f"\nscreenshots saved in {folder}")


def sign_in(page, url, username="dana", password="dana-browser-pass"):
    page.goto(f"{url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main button[type=submit]")
    page.wait_for_selector("text=Your bots")


# Every rating chart has followed its box to the window's new width (rating-chart.js resizes it when its
# ResizeObserver reports the change, a frame or more after the window's).
CHARTS_FOLLOWED = """() => [...document.querySelectorAll('.uplot')].every(chart =>
  Math.abs(chart.querySelector('.u-wrap').offsetWidth - chart.parentElement.clientWidth) <= 2)"""


def snap(page, shots, name):
    for label, size in (("wide", WIDE), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.wait_for_function(CHARTS_FOLLOWED)
        page.screenshot(path=str(shots / f"{name}-{label}.png"), full_page=True)
        # Nothing on the page is wider than the screen (no sideways scrolling on a phone).
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, f"{name} scrolls sideways by {overflow}px at {label} width"
    page.set_viewport_size(WIDE)


def open_replay(page, url, match_pk):
    sign_in(page, url)
    page.goto(f"{url}/matches/{match_pk}/replay/")
    step_and_jump(page)


def switch_to_seat(page, seat: int, other: int):
    """Choose `seat`'s view: its own hand face up, `other`'s face down (cards played on the table are public)."""
    page.select_option("#viewer", str(seat))
    page.wait_for_function(f"document.getElementById('offline').textContent.endsWith('--seat {seat}')")
    assert page.locator(f"#board .seat-box[data-seat='{seat}'] .hand .card:not(.back)").count() > 0
    assert page.locator(f"#board .seat-box[data-seat='{other}'] .hand .card:not(.back)").count() == 0
    assert page.locator(f"#board .seat-box[data-seat='{other}'] .hand .card.back").count() > 0


def position(page) -> str:
    return page.inner_text("#position")


PLAY_THEN_PAUSE = """() => new Promise((resolve) => {
  const position = document.getElementById('position'), button = document.getElementById('play');
  new MutationObserver((changes, observer) => {
    observer.disconnect();
    button.click();
    resolve(position.textContent);
  }).observe(position, {childList: true, characterData: true, subtree: true});
  button.click();
})"""


def step_and_jump(page):
    page.wait_for_selector("#board > *")
    assert position(page).startswith("step 0 /")
    page.click("#next")
    assert position(page).startswith("step 1 /")
    assert page.locator("#moves tr.current").count() == 1
    page.fill("#step-input", "12")
    page.dispatch_event("#step-input", "change")
    assert position(page).startswith("step 12 /")
    page.select_option("#speed", "25")
    # Play, and pause at the first step played, in the page itself: a pause clicked from here once a step
    # was seen came any time later on a loaded machine, and a short replay had meanwhile played to its end
    # (and stopped), so that the "pause" played it again from the start.
    played_to = page.evaluate(PLAY_THEN_PAUSE)
    assert played_to.startswith("step 13 /")
    assert page.inner_text("#play") == "Play" and position(page) == played_to  # paused there


def test_endgame_replay(live_server, matches, browser_page, shots):
    page = browser_page
    open_replay(page, live_server.url, matches["endgame"])
    assert page.locator("#board .cell.taken").count() == int(position(page).split()[1])  # one number a step
    assert page.locator("#round-control").is_hidden()  # End Game has no rounds
    page.click("#last")
    assert page.locator("#board .cell.taken").count() == page.locator("#board .cell").count()
    page.click("#first")
    assert "to decide" in page.inner_text("#decision")
    assert page.inner_text("#offline") == f"python -m games replay match-{matches['endgame']}.json --step 0"
    snap(page, shots, "replay-endgame")


def test_crazyking_replay_draws_cards_and_hides_other_hands_in_a_seats_view(live_server, matches, browser_page, shots):
    page = browser_page
    open_replay(page, live_server.url, matches["crazyking"])
    assert page.locator("#board .seat-box").count() == 3
    # The full view shows every hand face up.
    assert page.locator("#board .seat-box .card:not(.back)").count() > 0
    assert page.locator("#board .seat-box .card.back").count() == 0
    assert page.locator("#discard-pile .card").get_attribute("data-card")
    page.select_option("#round", label="round 2")
    assert "round 2" in position(page)
    page.click("#next-round")
    assert "round 3" in position(page)
    switch_to_seat(page, 1, other=0)
    snap(page, shots, "replay-crazyking-seat1")


def test_sortinggame_replay_shows_the_spots_and_rulings_without_sideways_scroll(live_server, matches, browser_page, shots):
    page = browser_page
    open_replay(page, live_server.url, matches["sortinggame"])
    assert page.locator("#board [data-spot]").count() == 3
    assert "Analysis" in page.inner_text("#moves thead")
    assert page.locator("#moves tbody tr td:nth-child(3)").first.inner_text()  # a ruling beside each move
    switch_to_seat(page, 0, other=1)
    snap(page, shots, "replay-sortinggame-seat0")


@pytest.fixture
def new_tables(live_worker):
    """A Sorted! match with the beginner tip (four helpers; its seed keeps the game going 12 turns) and a
    Sprouts match of five spots, played by the real worker."""
    get_user_model().objects.create_user("dana", password="dana-browser-pass")
    sorted_bots = [Bot.objects.builtin("sorted", "helper")] * 4
    sprouts_bots = [Bot.objects.builtin("sprouts", name) for name in ("random", "optimal")]
    played = {
        "sorted": services.create_match("sorted", sorted_bots, purpose="challenge", rated=False, seed=1,
                                        config={"beginner_tip": True}).pk,
        "sprouts": services.create_match("sprouts", sprouts_bots, purpose="challenge", rated=False, seed=3).pk,
        "sprouts10": services.create_match("sprouts", sprouts_bots, purpose="challenge", rated=False, seed=5,
                                           config={"spots": 10}).pk,
    }
    played_out(played.values())
    return played


def step_first_last(page):
    """Step forward, jump to the end and back to the start: the board is redrawn every time."""
    page.wait_for_selector("#board > *")
    last = int(position(page).split("/")[1].split()[0])
    page.click("#next")
    assert position(page).startswith("step 1 /")
    page.click("#last")
    assert position(page).startswith(f"step {last} /")
    page.click("#first")
    assert position(page).startswith("step 0 /")
    return last


def test_sorted_replay_highlights_the_mover_and_hides_a_seats_own_cards(live_server, new_tables, browser_page, shots):
    page = browser_page
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/matches/{new_tables['sorted']}/replay/")
    last = step_first_last(page)
    assert page.locator("#board .seat-box").count() == 4
    assert page.locator("#board .seat-box .card").count() == 16
    assert page.locator("#board .seat-box.to-move").get_attribute("data-seat") == "0"
    assert [cell.inner_text() for cell in page.locator("#moves thead th").all()] == ["#", "Move", "Turns still needed", "Wasted"]
    page.fill("#step-input", "3")
    page.dispatch_event("#step-input", "change")
    assert page.locator("#board .seat-box.to-move").get_attribute("data-seat") == "3"
    assert "last swap:" in page.inner_text("#last-swap")
    assert page.locator("#board .card.swapped").count() == 2
    assert page.locator("#board .card.back").count() == 0  # the full view: every card face up
    turned = page.locator("#board .seat-box[data-seat='0'] .card.turned").count()
    page.select_option("#viewer", "0")
    page.wait_for_function("document.getElementById('offline').textContent.endsWith('--seat 0')")
    own = "#board .seat-box[data-seat='0'] .card"
    # Seat 0 holds its cards facing away: it sees only those the beginner tip turned toward it.
    assert page.locator(f"{own}.back").count() == 4 - turned
    assert page.locator(f"{own}:not(.back)").count() == page.locator(f"{own}.turned").count() == turned
    assert page.locator("#board .seat-box[data-seat='1'] .card.back").count() == 0
    assert f"{turned} turned toward its holder" in page.inner_text("#board .seat-box[data-seat='0']")
    snap(page, shots, "replay-sorted-seat0")
    page.click("#last")
    assert page.inner_text("#outcome").split()[0] in ("won", "lost")
    assert position(page).startswith(f"step {last} /")


def test_sprouts_replay_draws_regions_spots_and_verdicts(live_server, new_tables, browser_page, shots):
    page = browser_page
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/matches/{new_tables['sprouts']}/replay/")
    step_first_last(page)
    assert page.inner_text("#notation") == "1;2;3;4;5"
    assert page.locator("#board .sprout-region").count() == 1
    assert page.locator("#board .sprout-stack").count() == 5
    assert page.locator("#board svg.sprouts-drawing .spot").count() == 5  # and the drawing beside the cards
    assert page.locator("#board .sprout-spot.lives-3").count() == 5
    page.click("#next")
    assert page.locator("#board .sprout-spot").count() == 6  # the move's new spot
    assert page.locator("#board .sprout-spot.lives-3").count() in (3, 4)  # two spots joined, or a loop on one
    assert page.locator("#board svg.sprouts-drawing .line.last-move").count() == 2
    assert "the analysis" in page.inner_text("#moves-side h2")
    page.wait_for_selector("#analysis-progress[data-done]", timeout=120_000)
    verdicts = page.locator("#moves tbody td:nth-child(3)").all_inner_texts()
    assert verdicts and all(verdicts)
    page.click("#last")
    assert "game over" in page.inner_text("#board")
    snap(page, shots, "replay-sprouts")


def test_a_ten_spot_sprouts_replay_draws_every_step_and_streams_every_moves_analysis(live_server, new_tables,
                                                                                     browser_page, shots):
    page = browser_page
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/matches/{new_tables['sprouts10']}/replay/")
    # The board is there before any analysis: the page is never blank while the solver works.
    page.wait_for_selector("#board svg.sprouts-drawing")
    assert page.inner_text("#notation") == "1;2;3;4;5;6;7;8;9;10"
    assert page.locator("#board svg.sprouts-drawing .spot.lives-3").count() == 10
    assert "analysis" in page.inner_text("#analysis-progress")
    last = int(position(page).split("/")[1].split()[0])
    assert 20 <= last <= 29  # a game of 10 spots lasts 20 to 29 moves
    for step in range(1, last + 1):
        page.click("#next")
        assert position(page).startswith(f"step {step} /")
        drawing = page.locator("#board svg.sprouts-drawing")
        assert drawing.locator(".spot").count() == 10 + step  # every move adds a spot
        assert drawing.locator(".line").count() == 2 * step and drawing.locator(".line.last-move").count() == 2
        assert drawing.locator(".region").count() == page.locator("#board .sprout-region").count()
        if step == 12:
            snap(page, shots, "replay-sprouts10-step12")
            page.locator("#board svg.sprouts-drawing").screenshot(path=str(shots / "sprouts10-drawing-step12.png"))
    assert "game over" in page.inner_text("#board")
    page.wait_for_selector("#analysis-progress[data-done]", timeout=300_000)
    texts = page.locator("#moves tbody td:nth-child(3)").all_inner_texts()
    assert len(texts) == last and all(texts)  # every move's analysis arrived (settled, or said not to be)
    settled = [text for text in texts if not text.startswith("not settled")]
    assert texts[0] in settled and texts[1] in settled, texts[:2]  # the opening book answers the first two
    assert len(settled) >= last // 2  # the late positions at least are solved within their time
    # The progress line counts what the table shows, and says why any move is left unsettled.
    progress = page.inner_text("#analysis-progress")
    assert progress.startswith(f"analysis: {len(settled)} of {last} moves settled"), progress
    assert (f"({last - len(settled)} early in the game, with many lives left, could not be solved in time: "
            "opening this page again searches them further" in progress) == (len(settled) < last), progress
    page.locator("#moves-side").evaluate("box => { box.scrollTop = 0; }")  # the progress line and the first moves
    snap(page, shots, "replay-sprouts10")


def test_the_other_pages_on_a_wide_screen_and_a_phone(live_server, matches, browser_page, shots):
    page = browser_page
    sign_in(page, live_server.url)
    snap(page, shots, "home")
    for game in TABLES:
        page.goto(f"{live_server.url}/ladder/{game}/")
        page.wait_for_selector("#rating-chart .uplot")
        snap(page, shots, f"ladder-{game}")
    page.goto(f"{live_server.url}/matches/{matches['crazyking']}/")
    assert "Winner:" in page.inner_text("#winners")
    snap(page, shots, "match-crazyking")
    page.goto(f"{live_server.url}/bots/{matches['optimal']}/")
    page.wait_for_selector("#rating-chart .uplot")
    assert page.locator("a.challenge").count() == 1  # challenge it from its own page
    snap(page, shots, "bot-optimal")
    page.goto(f"{live_server.url}/no/such/page/")
    assert page.locator(".site-header").count() == 1
    snap(page, shots, "not-found")
    page.goto(f"{live_server.url}/inbox/")
    snap(page, shots, "inbox")
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".swagger-ui .opblock")  # drawn from the sidecar's static files, offline
    page.screenshot(path=str(shots / "api-docs-wide.png"))


@pytest.fixture
def bracket(make_user, live_worker):
    """A single-elimination End Game tournament of four students, played to the end by the real worker
    (this test commits, so the tournament's tasks reach the broker; made before the browser starts)."""
    course, instructor, bots = course_with_bots(make_user, "endgame", 4)
    tournament = entered(instructor, course, bots, game="endgame", format="single-elimination", games_per_series=2)
    tournament_services.start(instructor, tournament)
    wait_for(lambda: Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED, 300,
             "the tournament to finish")
    return tournament.pk


def test_a_student_watches_the_bracket_on_a_phone(live_server, bracket, browser_page, shots):
    page = browser_page
    sign_in(page, live_server.url, "student00", "student00-pass-1234")
    page.goto(f"{live_server.url}/tournaments/{bracket}/")
    page.wait_for_selector("svg.bracket")
    assert page.locator(".site-header").count() == 1
    snap(page, shots, "tournament")
    page.goto(f"{live_server.url}/inbox/")
    assert "Cup, round 1: student00/bot0" in page.inner_text("#inbox")
    snap(page, shots, "inbox-after-tournament")


def test_the_sites_scripts_run_under_its_content_security_policy(live_server, matches, chromium):
    """The vendored scripts (htmx, the replay viewer and its game modules, the rating chart) are files of the
    site, so the policy (script-src 'self', no inline script) lets them all run: the viewer draws and steps, and
    the browser reports no violation on any page."""
    page = chromium.new_page()  # the policy enforced, unlike browser_page
    page.set_default_timeout(30_000)
    violations = []
    page.on("console", lambda message: violations.append(message.text)
            if "Content Security Policy" in message.text else None)
    sign_in(page, live_server.url)
    for game in ("endgame", "crazyking", "sortinggame"):
        page.goto(f"{live_server.url}/matches/{matches[game]}/replay/")
        page.wait_for_selector("#board > *")
        page.click("#next")
        assert position(page).startswith("step 1 /"), game
    for path in ("/", f"/matches/{matches['crazyking']}/", f"/bots/{matches['optimal']}/", "/ladder/endgame/",
                 "/inbox/"):
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
    assert violations == []
