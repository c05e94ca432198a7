"""The pages and API answers that list rows issue as many queries for 3N rows as for N (no N+1 queries).

Each case fills N rows of what the page shows (bots on the ladder, matches in a list), counts the queries
of one request, fills 2N more and asserts the same request, now showing 3N rows, stays within that count.
"""

import io
import re

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from grading_helpers import open_assignment
from arena.matches.models import Match
from platform_helpers import EXAMPLE_BOT
from tournament_helpers import accepted, accepted_bot, course_with_bots, entered

pytestmark = pytest.mark.django_db

N = 6  # rows first shown; 3N stays within one page (25), so that every added row is really shown


def fill(prefix: str, bots: int, matches: int) -> None:
    call_command("fill_scale_data", bots=bots, courses=1, matches=matches, replays=2, prefix=prefix,
                 stdout=io.StringIO())


def query_count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(queries)


def assert_flat(client, url, django_assert_max_num_queries, grow) -> None:
    """`url`'s query count does not grow when `grow()` triples the rows it shows."""
    first = query_count(client, url)
    grow()
    with django_assert_max_num_queries(first):
        assert client.get(url).status_code == 200


@pytest.fixture
def viewer(client, django_user_model):
    """A signed-in student with no bot of their own: every seat they see is someone else's (private checks)."""
    user = django_user_model.objects.create_user("viewer", password="x-viewer-1234")
    client.force_login(user)
    return client


@pytest.fixture
def no_cache(settings):
    """Every request does its own work (the ladder page is cached for a few seconds otherwise)."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


@pytest.mark.parametrize("url, rows_per_page", [
    ("/ladder/endgame/", None), ("/api/ladder/endgame/", None),  # N + 4 built-ins, then 3N + 4: one page
    ("/ladder/endgame/?page=2", 8), ("/api/ladder/endgame/?page=2", 8)])  # page 2 shows 2 rows, then 8
def test_ladder(client, no_cache, monkeypatch, url, rows_per_page, django_assert_max_num_queries):
    """Signed in as the owner of a bot on the ladder: the page also says where it stands."""
    from arena.core.pagination import StrictPageNumberPagination
    from arena.ratings import pages as ladder_pages

    if rows_per_page:
        monkeypatch.setattr(ladder_pages, "LADDER_PAGE_ROWS", rows_per_page)
        monkeypatch.setattr(StrictPageNumberPagination, "page_size", rows_per_page)
    fill("a", bots=N, matches=N)
    client.force_login(Match.objects.first().seats.first().bot.owner)
    assert_flat(client, url, django_assert_max_num_queries, lambda: fill("b", bots=2 * N, matches=2 * N))


@pytest.mark.parametrize("url", ["/api/matches/", "/api/bots/?game=endgame"])
def test_api_lists(viewer, url, django_assert_max_num_queries):
    fill("a", bots=N, matches=N)
    assert_flat(viewer, url, django_assert_max_num_queries, lambda: fill("b", bots=2 * N, matches=2 * N))


def test_api_match_list_reads_the_logs_an_operator_may_see_at_once(client, django_user_model,
                                                                   django_assert_max_num_queries):
    """Every seat's log and failure note are an operator's to see: read for the whole page in one query."""
    client.force_login(django_user_model.objects.create_superuser("operator", password="x-operator-1234"))
    fill("a", bots=N, matches=N)
    assert_flat(client, "/api/matches/", django_assert_max_num_queries, lambda: fill("b", bots=2 * N, matches=2 * N))


def test_home_page_recent_matches(client, django_user_model, django_assert_max_num_queries):
    fill("a", bots=2, matches=3)
    client.force_login(django_user_model.objects.get(username="a-00000"))
    assert_flat(client, "/", django_assert_max_num_queries, lambda: _more_matches_of("a-00000", 6))


def test_bot_page_matches(viewer, django_assert_max_num_queries):
    fill("a", bots=2, matches=N)
    bot = Match.objects.first().seats.first().bot
    assert_flat(viewer, f"/bots/{bot.pk}/", django_assert_max_num_queries, lambda: _more_matches_of(bot.owner.username, 2 * N))


@pytest.mark.parametrize("page", ["/matches/{pk}/", "/matches/{pk}/replay/", "/matches/{pk}/replay/data/",
                                  "/api/matches/{pk}/", "/api/matches/{pk}/replay/"])
def test_match_and_replay(viewer, page, django_assert_max_num_queries):
    """One match's pages cost the same whatever else is in the database."""
    fill("a", bots=2, matches=1)
    url = page.format(pk=Match.objects.get().pk)
    assert_flat(viewer, url, django_assert_max_num_queries, lambda: fill("b", bots=3 * N, matches=3 * N))


def _more_matches_of(username: str, count: int) -> None:
    """`count` more finished matches, each with `username`'s bot in a seat (copies of one of its matches)."""
    from arena.matches.models import MatchSeat

    template = Match.objects.filter(seats__bot__owner__username=username).first()
    seats = list(template.seats.all())
    for _ in range(count):
        copy = Match.objects.create(game=template.game, seed=template.seed, status=template.status, rated=False,
                                    winners=template.winners, replay=template.replay,
                                    started_at=template.started_at, finished_at=template.finished_at)
        MatchSeat.objects.bulk_create([MatchSeat(match=copy, seat=s.seat, bot=s.bot, version=s.version,
                                                 placing=s.placing, score=s.score, status=s.status) for s in seats])


def _students_with_bots(course, make_user, first: int, count: int) -> list:
    bots = []
    for number in range(first, first + count):
        student = make_user(f"student{number:02}")
        course.students.add(student)
        bots.append(accepted_bot(student, "endgame", f"bot{number}", EXAMPLE_BOT.decode()))
    return bots


@pytest.mark.parametrize("start", [False, True], ids=["draft", "running"])
def test_tournament_page(client, make_user, start, django_assert_max_num_queries):
    """The entrants (and, once started, every series of the round robin) cost no query each."""
    from arena.tournaments import services as tournaments

    course, instructor, bots = course_with_bots(make_user, "endgame", N)
    tournament = entered(instructor, course, bots, game="endgame", format="round-robin")
    client.force_login(instructor)

    def more_entrants():
        for bot in _students_with_bots(course, make_user, N, 2 * N):
            accepted(tournaments.add_entrant(instructor, tournament, bot))
        if start:
            tournaments.start(instructor, tournament)

    if start:  # a second tournament, started with N entrants, gives the count of a running one
        smaller = entered(instructor, course, bots, game="endgame", format="round-robin", name="Small cup")
        tournaments.start(instructor, smaller)
        first = query_count(client, f"/tournaments/{smaller.pk}/")
    else:
        first = query_count(client, f"/tournaments/{tournament.pk}/")
    more_entrants()
    with django_assert_max_num_queries(first):
        assert client.get(f"/tournaments/{tournament.pk}/").status_code == 200


def test_grading_dashboard(client, make_user, django_assert_max_num_queries):
    """The staff's view of an assignment lists every submission without a query per student."""
    from arena.grading import services as grading

    course, instructor, _ = course_with_bots(make_user, "endgame", 0)
    assignment = open_assignment(instructor, course)
    client.force_login(instructor)

    def submit(first, count):
        for bot in _students_with_bots(course, make_user, first, count):
            grading.submit(bot.owner, assignment, bot)

    submit(0, N)
    assert_flat(client, f"/assignments/{assignment.pk}/", django_assert_max_num_queries, lambda: submit(N, 2 * N))


def test_ladder_page_shows_a_page_of_bots_at_a_time(viewer):
    from arena.ratings.pages import LADDER_PAGE_ROWS

    fill("a", bots=LADDER_PAGE_ROWS + 5, matches=10)
    first, second = viewer.get("/ladder/endgame/"), viewer.get("/ladder/endgame/?page=2")
    links = [len(re.findall(r'href="/bots/[0-9]+/"', response.content.decode())) for response in (first, second)]
    # The built-in bots of End Game are on the ladder too.
    assert links[0] == LADDER_PAGE_ROWS
    assert 5 <= links[1] < LADDER_PAGE_ROWS
    assert "page 2 of 2" in second.content.decode()


def test_match_page_costs_the_same_for_two_seats_as_for_five(viewer, make_user, django_assert_max_num_queries):
    """Who may see each seat's log is worked out for all the seats at once."""
    from arena.matches import services
    from platform_helpers import active_bot

    bots = [active_bot(make_user(f"player{n}"), game="crazyking") for n in range(5)]
    pair = services.create_match("crazyking", bots[:2], purpose="challenge", rated=False)
    table = services.create_match("crazyking", bots, purpose="challenge", rated=False)
    with django_assert_max_num_queries(query_count(viewer, f"/matches/{pair.pk}/")):
        assert viewer.get(f"/matches/{table.pk}/").status_code == 200
