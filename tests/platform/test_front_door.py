"""The front door and one clock: what Arena is, the latest ladder matches open to anyone (never code or
logs, never course, grading or tournament games), and every time in the viewer's zone, named."""

import datetime
import types
import zoneinfo

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.utils import timezone

from arena.accounts.models import profile_of
from arena.accounts.timezones import viewer_zone
from arena.bots.models import BotVersion
from grading_helpers import course_with_people, open_assignment
from arena.matches import services as match_services
from arena.matches.models import Match
from arena.notifications.models import Notification
from platform_helpers import EXAMPLE_BOT, play_now
from tournament_helpers import LOOKAHEAD_BOT, accepted_bot
from arena.variants.services import create_variant
from arena.core.templatetags.arena import time_to

pytestmark = pytest.mark.django_db
WINTER_NOON = datetime.datetime(2026, 1, 15, 12, 0, tzinfo=datetime.timezone.utc)


@pytest.fixture
def ladder_match(make_user, settings):
    settings.ARENA_SANDBOX = "none"
    ada, bob = make_user("ada"), make_user("bob")
    mine = accepted_bot(ada, "endgame", "mine", EXAMPLE_BOT.decode())
    his = accepted_bot(bob, "endgame", "his", LOOKAHEAD_BOT)
    return play_now(match_services.create_match("endgame", [mine, his], purpose="ladder", rated=True))


def test_home_says_what_arena_is_and_lists_the_latest_ladder_matches_to_anyone(ladder_match):
    page = Client().get("/").content.decode()
    intro = page[page.index('class="intro"'):page.index("</div>", page.index('class="intro"'))]
    assert intro.count("<p>") == 3 and "bot" in intro and "algorithm courses" in intro
    assert f'href="/matches/{ladder_match.pk}/"' in page[page.index('id="ladder-matches"'):]


def test_an_anonymous_visitor_watches_a_ladder_match_and_its_replay_but_never_code_or_logs(ladder_match):
    visitor = Client()
    page = visitor.get(f"/matches/{ladder_match.pk}/")
    assert page.status_code == 200 and "ada/mine" in page.content.decode()
    assert "/code/" not in page.content.decode() and "stderr" not in page.content.decode().lower()
    for path in ("replay/", "replay/data/", "replay/file/", "live/"):
        assert visitor.get(f"/matches/{ladder_match.pk}/{path}").status_code == 200, path
    version = ladder_match.seats.first().version
    response = visitor.get(f"/bots/{version.bot_id}/versions/{version.number}/code/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_the_operator_can_close_the_front_door(ladder_match, settings):
    settings.ARENA_PUBLIC_MATCHES = False
    visitor = Client()
    assert visitor.get(f"/matches/{ladder_match.pk}/")["Location"].startswith("/accounts/login/")
    assert 'id="ladder-matches"' not in visitor.get("/").content.decode()


def test_course_grading_and_tournament_games_stay_behind_the_sign_in(make_user, settings):
    settings.ARENA_SANDBOX = "none"
    course, people = course_with_people(make_user)
    variant = create_variant(people["instructor"], course, game="sortinggame", name="deck", config={"max_rounds": 3})
    others = [Match.objects.create(game="sortinggame", purpose=Match.Purpose.CHALLENGE, variant=variant,
                                   status=Match.Status.FINISHED, finished_at=timezone.now(), seed=1, replay={})]
    for purpose in (Match.Purpose.GRADING, Match.Purpose.TOURNAMENT, Match.Purpose.VALIDATION):
        others.append(Match.objects.create(game="endgame", purpose=purpose, status=Match.Status.FINISHED,
                                           finished_at=timezone.now(), seed=1, replay={}))
    visitor = Client()
    for match in others:
        for path in ("", "replay/", "replay/data/"):
            response = visitor.get(f"/matches/{match.pk}/{path}")
            assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), match.purpose
    home = visitor.get("/").content.decode()
    assert all(f'href="/matches/{match.pk}/"' not in home for match in others)


# --- One clock ------------------------------------------------------------------------------------------------

def test_times_are_shown_in_the_course_zone_with_the_zone_named(client, make_user):
    course, people = course_with_people(make_user)  # Europe/Paris
    ann = people["ann"]
    bot = accepted_bot(ann, "endgame", "mine", EXAMPLE_BOT.decode())
    BotVersion.objects.filter(bot=bot).update(uploaded_at=WINTER_NOON)
    note = Notification.objects.create(user=ann, kind=Notification.Kind.MATCH, text="a match ended")
    Notification.objects.filter(pk=note.pk).update(created_at=WINTER_NOON)
    client.force_login(ann)

    bot_page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert '<time datetime="2026-01-15T12:00:00+00:00" title="Europe/Paris">2026-01-15 13:00 CET</time>' in bot_page
    assert "Times are shown in Europe/Paris." in bot_page
    assert "2026-01-15 13:00 CET" in client.get("/inbox/").content.decode()


def test_without_a_course_times_are_in_the_site_zone_and_say_so(client, ladder_match):
    client.force_login(ladder_match.seats.first().bot.owner)
    page = client.get(f"/bots/{ladder_match.seats.first().bot_id}/").content.decode()
    assert "Times are shown in UTC." in page and " UTC</time>" in page


def test_the_viewer_zone_prefers_a_profile_then_the_course_then_the_site(make_user):
    course, people = course_with_people(make_user)
    request = types.SimpleNamespace(user=people["ann"])
    assert viewer_zone(request) == zoneinfo.ZoneInfo("Europe/Paris")
    profile = profile_of(people["ann"])  # the zone she chose on her profile page
    profile.time_zone = "America/Chicago"
    profile.save(update_fields=["time_zone"])
    people["ann"].refresh_from_db()
    assert viewer_zone(request) == zoneinfo.ZoneInfo("America/Chicago")
    assert viewer_zone(types.SimpleNamespace(user=make_user("loner"))) == zoneinfo.ZoneInfo("UTC")
    assert viewer_zone(types.SimpleNamespace(user=AnonymousUser())) == zoneinfo.ZoneInfo("UTC")


def test_a_deadline_reads_as_a_date_and_the_time_left(client, make_user):
    course, people = course_with_people(make_user)
    due = timezone.now() + datetime.timedelta(days=2, hours=3, minutes=30)
    assignment = open_assignment(people["instructor"], course, deadline=due)
    client.force_login(people["ann"])
    page = client.get("/").content.decode()
    section = page[page.index('id="deadlines"'):]
    local = timezone.localtime(due, zoneinfo.ZoneInfo("Europe/Paris"))
    assert assignment.title in section and local.strftime("%Y-%m-%d %H:%M") in section
    assert "(in 2 days 3 h)" in section


@pytest.mark.parametrize(("delta", "said"), [
    (datetime.timedelta(days=2, hours=3, minutes=20), "in 2 days 3 h"),
    (datetime.timedelta(days=1), "in 1 day"),
    (datetime.timedelta(hours=3, minutes=20), "in 3 h 20 min"),
    (datetime.timedelta(minutes=12, seconds=30), "in 12 min"),
    (datetime.timedelta(seconds=20), "now"),
    (-datetime.timedelta(hours=5), "5 h ago"),
])
def test_time_left_reads_like_a_person_says_it(delta, said):
    assert time_to(WINTER_NOON + delta, now=WINTER_NOON) == said


def test_the_api_keeps_speaking_utc_whatever_the_viewer_zone(api_client, make_user):
    course, people = course_with_people(make_user)  # Europe/Paris
    bot = accepted_bot(people["ann"], "endgame", "mine", EXAMPLE_BOT.decode())
    BotVersion.objects.filter(bot=bot).update(uploaded_at=WINTER_NOON)
    api_client.force_authenticate(people["ann"])
    data = api_client.get(f"/api/bots/{bot.pk}/").json()
    assert data["active_version"]["uploaded_at"] == "2026-01-15T12:00:00Z"
