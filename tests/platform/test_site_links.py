"""Every link of every page a student or an instructor reaches is a page of the site: a crawler signs in as each
(and as an operator, who also has the operator guide), follows every internal link of every page it renders,
and no link answers 404 (nor a server error). The guides' links were written for the repository: an example
bot's `examples/endgame_example.py`, `../bot-protocol.md`, the tournament form's "See docs/tournaments.md"."""

import re
from collections import deque
from html import unescape

import pytest

from arena.variants.game_docs import SITE_DOCS
from grading_helpers import course_with_people, open_assignment
from platform_helpers import EXAMPLE_BOT, active_bot, play_now
from tournament_helpers import accepted_bot, entered

pytestmark = pytest.mark.django_db
HREF = re.compile(r"""<a\s[^>]*href="([^"]+)\"""")
# Not followed: live streams (they stay open), signing out, the admin (Django's own), the API's browsable pages.
NOT_FOLLOWED = re.compile(r"/(stream|events|live)/|^/accounts/logout|^/admin/|^/api/")
LIMIT = 600
# Of the links that differ only in their numbers (a match, another match...), two are followed: the same page
# with other data says nothing new about links.
PER_SHAPE = 2


@pytest.fixture
def course_world(make_user, in_process_sandbox):
    from arena.matches import services as matches

    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course)
    bots = [accepted_bot(people[name], "endgame", f"{name}-bot", EXAMPLE_BOT.decode()) for name in ("ann", "ben")]
    entered(people["instructor"], course, bots, game="endgame", format="round-robin", name="Cup")
    play_now(matches.create_match("endgame", bots, purpose="challenge", rated=False))
    active_bot(people["instructor"], name="teachers")
    people["operator"] = make_user("operator", is_staff=True)
    return {"course": course, "assignment": assignment, "people": people}


def crawl(client, starts: list[str]) -> tuple[set[str], list[tuple]]:
    """(pages read, [(page, link, status)] of links answered 404 or 5xx or pages without a title of their own),
    breadth first from `starts`."""
    seen, broken, queue = set(starts), [], deque((None, url) for url in starts)
    shapes: dict[str, int] = {}
    while queue and len(seen) < LIMIT:
        origin, url = queue.popleft()
        response = client.get(url)
        if response.status_code == 404 or response.status_code >= 500:
            broken.append((origin, url, response.status_code))
            continue
        if "text/html" not in response.get("Content-Type", ""):
            continue
        page = response.content.decode()
        if "<title>Arena · Arena</title>" in page:  # a page with no title of its own
            broken.append((origin, url, "untitled"))
        for href in HREF.findall(page):
            link = unescape(href).split("#")[0]
            shape = re.sub(r"[0-9]+", "N", link.split("?")[0])
            if link.startswith("/") and not link.startswith("//") and link not in seen \
                    and not NOT_FOLLOWED.search(link) and shapes.get(shape, 0) < PER_SHAPE:
                shapes[shape] = shapes.get(shape, 0) + 1
                seen.add(link)
                queue.append((url, link))
    return seen, broken


@pytest.mark.parametrize("who", ["ann", "instructor", "operator"])
def test_no_link_of_any_page_a_person_reaches_is_a_404(client, course_world, who):
    client.force_login(course_world["people"][who])
    course, assignment = course_world["course"], course_world["assignment"]
    member = [f"/courses/{course.pk}/", f"/courses/{course.pk}/tournaments/", f"/assignments/{assignment.pk}/"]
    pages, broken = crawl(client, ["/", "/games/endgame/", *(member if who != "operator" else [])])
    assert broken == []
    assert len(pages) > 30  # the crawl reached the site, not one page
    guides = {f"/docs/{slug}/" for slug, doc in SITE_DOCS.items() if not doc.staff_only or who == "operator"}
    assert guides <= pages, guides - pages
    assert {f"/games/{game}/example.py" for game in ("endgame", "sorted", "sprouts")} <= pages


def test_the_guides_links_are_the_sites_pages(client):
    page = client.get("/games/sortinggame/").content.decode()
    assert 'href="/docs/platform-api/#course-variants"' in page and 'href="/docs/bot-protocol/#at-a-persons-table"' in page
    assert 'href="/games/sortinggame/example.py"' in page and ".md" not in re.findall(r'href="[^"]*"', page).__str__()
    api_guide = client.get("/docs/platform-api/").content.decode()
    assert 'id="course-variants"' in api_guide and "<script>" not in api_guide


def test_the_operator_guide_is_for_the_sites_staff(client, make_user):
    client.force_login(make_user("ann"))
    response = client.get("/docs/operator-guide/")
    assert response.status_code == 403 and "for the site's operators" in unescape(response.content.decode())
    assert client.get("/docs/no-such-guide/").status_code == 404
