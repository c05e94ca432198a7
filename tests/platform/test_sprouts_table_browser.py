"""Sprouts at a table, in a real browser (Debian's chromium, the site's Content-Security-Policy on): the table
shows the game's drawing, and the move a person points at, tabs to or picks in the list is marked on it
before it is played (its two spots and the region its line goes through), by the keyboard as by the mouse;
clicking two spots of the drawing picks the first move between them."""

import pytest
from django.conf import settings
from django.test import Client

from arena.tables import services
from arena.tables.services import SeatChoice

from test_tables_browser import browser_as

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def expected(table) -> list[dict]:
    """The moves the person on move is offered, in the page's order, each with the region it goes through."""
    game_table = services.current(table)
    regions = game_table.state.picture()["move_regions"]
    return [{"move": choice.action["move"], "spots": choice.action["spots"], "region": regions[choice.action["move"]]}
            for choice in game_table.choices(game_table.seat_on_move)]


@pytest.fixture
def sprouts_tables(django_user_model):
    """ada's session and two Sprouts tables where she is on move: two spots after ben's loop (two regions,
    five moves: buttons), and the standard five spots (fifty moves: a list). Made before the browser starts."""
    ada, ben = (django_user_model.objects.create_user(name) for name in ("ada", "ben"))
    client = Client()
    client.force_login(ada)
    small = services.open_table(ada, "sprouts", [SeatChoice(user=ben), SeatChoice(user=ada)],
                                config={"spots": 2}, move_seconds=None)
    services.move(small, ben, 0, services.current(small).choices(0)[0].action)  # 1(3)1: a loop, two regions
    large = services.open_table(ada, "sprouts", [SeatChoice(user=ada), SeatChoice(user=ben)], move_seconds=None)
    return client.cookies[settings.SESSION_COOKIE_NAME].value, (small.pk, expected(small)), (large.pk, expected(large))


def assert_marked(page, move: dict) -> None:
    """The board names `move` and marks its spots and region, on the drawing and on the card view, only them."""
    page.wait_for_selector(f"#board[data-highlight='{move['move']}']")
    spots = set(move["spots"])
    for spot in spots:
        assert page.locator(f"#board svg g.spot.chosen[data-spot='{spot}']").count() == 1
        assert page.locator(f"#board .sprout-spot.chosen[data-spot='{spot}']").count() == 1
    assert page.locator("#board svg g.spot.chosen").count() == len(spots)
    assert page.locator(f"#board svg path.region.chosen[data-region='{move['region']}']").count() == 1
    assert page.locator("#board svg path.region.chosen").count() == 1
    assert page.locator(f"#board .sprout-region.chosen[data-region='{move['region']}']").count() == 1
    assert page.locator("#board figcaption").inner_text().startswith(f"{move['move']}: a line from")


def test_the_move_a_person_points_at_or_picks_is_marked_on_the_sprouts_drawing(sprouts_tables, live_server,
                                                                              chromium):
    session, (small, small_moves), (large, large_moves) = sprouts_tables
    page = browser_as(chromium, live_server.url, session)
    assert {move["region"] for move in small_moves} == {1, 2}  # the test tells the regions apart

    page.goto(f"{live_server.url}/tables/{small}/")
    page.wait_for_selector("#board svg.sprouts-drawing")
    buttons = page.locator("#choice-list button.choice")
    assert buttons.count() == len(small_moves) and page.get_attribute("#board", "data-highlight") is None
    page.hover("#choice-list button.choice >> nth=0")
    assert_marked(page, small_moves[0])
    buttons.nth(0).focus()
    for index in range(1, len(small_moves)):  # the keyboard alone, button after button
        page.keyboard.press("Tab")
        assert_marked(page, small_moves[index])
    page.keyboard.press("Enter")  # plays the move marked last
    page.wait_for_selector("#status[data-turn='2']")
    assert page.locator("#board svg .chosen").count() == 0  # not ada's move any more: nothing is marked

    page.goto(f"{live_server.url}/tables/{large}/")
    page.wait_for_selector("#choice-select")
    assert_marked(page, large_moves[0])  # the list's pick from the start: its first move
    page.focus("#choice-select")
    page.keyboard.press("ArrowDown")
    assert_marked(page, large_moves[1])
    # Or on the drawing: a spot, then another; the first move offered between them is picked and marked.
    between = next(index for index, move in enumerate(large_moves) if move["spots"] == [2, 4])
    page.click("#board svg g.spot[data-spot='4']")
    page.click("#board svg g.spot[data-spot='2']")
    assert_marked(page, large_moves[between])
    assert page.locator("#choice-select").input_value() == str(between)
