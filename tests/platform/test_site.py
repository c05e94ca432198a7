"""The site as a student or instructor meets it: error pages, the offline API page, the ladder, challenges
from anywhere, forms that keep what was typed, and match pages that name the winner."""

import io
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from arena.bots.models import Bot
from arena.ratings.models import Rating
from arena.matches import services
from platform_helpers import EXAMPLE_BOT, active_bot, play_now
from sse_client import page_stream

pytestmark = pytest.mark.django_db


def test_404_page_has_the_site_header(client):
    response = client.get("/no/such/page/")
    page = response.content.decode()
    assert response.status_code == 404
    assert 'class="site-header"' in page and "Page not found" in page and "/no/such/page/" in page


def test_500_page_has_the_site_header(settings):
    settings.ROOT_URLCONF = "site_error_urls"
    response = Client(raise_request_exception=False).get("/boom/")
    page = response.content.decode()
    assert response.status_code == 500
    assert 'class="site-header"' in page and "Something went wrong on our side" in page


def test_api_page_loads_swagger_from_our_static_files_not_a_cdn(client):
    page = client.get("/api/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    assert "cdn" not in page.lower()
    assert client.get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js").status_code == 200


def test_game_of_fixed_size_says_two_players(client):
    page = client.get("/").content.decode()
    assert "End Game</strong> (2 players)" in page and "2–2" not in page
    assert "Crazy-KING</strong> (2–5 players)" in page


def _rated(bots, times):
    for _ in range(times):
        play_now(services.create_match("endgame", bots, purpose="ladder", rated=True))


def test_ladder_ranks_only_bots_sure_enough_of_their_rating(client, settings):
    optimal, random_bot, greedy = (Bot.objects.builtin("endgame", name) for name in ("optimal", "random", "greedy"))
    _rated([optimal, random_bot], 3)
    _rated([greedy, random_bot], 1)
    sigma = dict(Rating.objects.values_list("bot__builtin_name", "sigma"))
    assert sigma["greedy"] > max(sigma["optimal"], sigma["random"]), "more matches, less uncertainty"
    settings.ARENA_PROVISIONAL_SIGMA = (sigma["greedy"] + max(sigma["optimal"], sigma["random"])) / 2
    page = client.get("/ladder/endgame/").content.decode()
    ranked = page[page.index('id="ladder"'):page.index('id="provisional"')]
    provisional = page[page.index('id="provisional"'):page.index("Rating history")]
    # Ranked: only the two sure enough, numbered 1 and 2; the 1-match and never-played bots apart.
    assert "builtin:optimal" in ranked and "builtin:random" in ranked and "builtin:greedy" not in ranked
    assert "<td>1</td>" in ranked and "<td>2</td>" in ranked and "<td>3</td>" not in ranked
    assert "builtin:greedy" in provisional and "builtin:parity" in provisional
    assert provisional.index("builtin:greedy") < provisional.index("builtin:parity")  # played before never played
    assert 'id="rating-chart-data"' in page and "uPlot-1.6.32.iife.min.js" in page


def test_bot_page_has_its_own_rating_chart(client, signed_in):
    optimal, random_bot = Bot.objects.builtin("endgame", "optimal"), Bot.objects.builtin("endgame", "random")
    _rated([optimal, random_bot], 2)
    page = client.get(f"/bots/{optimal.pk}/").content.decode()
    chart = json.loads(page.split('id="rating-chart-data" type="application/json">')[1].split("</script>")[0])
    # Its own line only: from the initial rating through each of its two rated matches.
    assert chart["x"] == [0, 1, 2] and [line["label"] for line in chart["series"]] == ["builtin:optimal"]
    values = chart["series"][0]["values"]
    assert values[0] == 0 and values[2] == round(optimal.rating.value, 1)  # mu - 3 sigma of the prior: 0


def test_challenge_button_on_the_ladder_leads_to_my_bot_with_the_opponent_chosen(client, signed_in):
    mine = active_bot(signed_in)
    greedy = Bot.objects.builtin("endgame", "greedy")
    ladder = client.get("/ladder/endgame/").content.decode()
    assert f'href="/bots/{greedy.pk}/challenge-with-mine/"' in ladder
    assert f"/bots/{mine.pk}/challenge-with-mine/" not in ladder  # no button to challenge yourself
    response = client.get(f"/bots/{greedy.pk}/challenge-with-mine/")
    assert response.url == f"/bots/{mine.pk}/?against={greedy.pk}#challenge"
    page = client.get(response.url).content.decode()
    assert f'<option value="{greedy.pk}" selected>builtin:greedy</option>' in page


def test_the_cached_ladder_tables_give_each_viewer_their_own_challenge_buttons(make_user):
    ada, bob = make_user("ada"), make_user("bob")
    adas = active_bot(ada)
    greedy = Bot.objects.builtin("endgame", "greedy")

    def buttons(user) -> set[int]:
        client = Client()
        if user:
            client.force_login(user)
        page = client.get("/ladder/endgame/").content.decode()
        assert f'id="bot-{adas.pk}"' in page and f'id="bot-{greedy.pk}"' in page
        return {int(pk) for pk in re.findall(r'href="/bots/(\d+)/challenge-with-mine/"', page)}

    # The same ladder state read in turn: each drawing must not be served to a viewer it was not drawn for.
    for _ in range(2):
        assert buttons(None) == set()  # nobody to challenge with
        assert adas.pk not in buttons(ada) and greedy.pk in buttons(ada)  # never your own bot
        assert {adas.pk, greedy.pk} <= buttons(bob)


def test_challenge_button_asks_which_bot_when_there_are_several(client, signed_in):
    first, second = active_bot(signed_in, name="one"), active_bot(signed_in, name="two")
    greedy = Bot.objects.builtin("endgame", "greedy")
    page = client.get(f"/bots/{greedy.pk}/challenge-with-mine/").content.decode()
    assert f"/bots/{first.pk}/?against={greedy.pk}" in page and f"/bots/{second.pk}/?against={greedy.pk}" in page
    page = client.get(f"/bots/{Bot.objects.builtin('crazyking', 'random').pk}/challenge-with-mine/").content.decode()
    assert "You have no Crazy-KING bot" in page


def test_a_refused_bot_name_keeps_what_was_typed(client, signed_in):
    client.post("/bots/new/", {"name": "twice", "game": "endgame"})
    response = client.post("/bots/new/", {"name": "twice", "game": "endgame"})
    page = response.content.decode()
    assert response.status_code == 400
    assert 'value="twice"' in page and 'class="errorlist' in page


def test_match_page_names_the_winning_bot_and_prints_whole_scores(client, signed_in):
    honest, random_bot = Bot.objects.builtin("sortinggame", "honest"), Bot.objects.builtin("sortinggame", "random")
    match = play_now(services.create_match("sortinggame", [honest, random_bot], purpose="challenge", rated=False))
    page = client.get(f"/matches/{match.pk}/").content.decode()
    winner = match.seats.get(placing=1).bot.label
    assert f"<strong><a href=\"/bots/{match.seats.get(placing=1).bot_id}/\">{winner}</a></strong>" in page
    assert ".0</td>" not in page
    assert "Watch the replay with analysis" in page  # SortingGame's rulings are its analysis
    crazy = play_now(services.create_match("crazyking", [Bot.objects.builtin("crazyking", "random"),
                                                         Bot.objects.builtin("crazyking", "most-suit")],
                                           purpose="challenge", rated=False))
    page = client.get(f"/matches/{crazy.pk}/").content.decode()
    assert "Watch the replay</a>" in page and "with analysis" not in page


def _rebuilt(data, index):
    """A frame's view as the browser's viewer rebuilds it from the compact payload (viewer.js viewOf)."""
    frame = data["frames"][index]
    logs = {key: data["logs"][key][segment][:length] for key, (segment, length) in frame["lengths"].items()}
    return {**data["fixed"], **frame["view"], **logs}


@pytest.mark.parametrize("game, names", [("crazyking", ("random", "most-suit", "tactician")),
                                         ("sortinggame", ("honest", "random", "shrewd"))])
def test_the_viewers_compact_replay_rebuilds_every_frame_and_is_much_smaller(client, signed_in, game, names):
    from arena.matches.replays import replay_view

    match = play_now(services.create_match(game, [Bot.objects.builtin(game, n) for n in names],
                                           purpose="challenge", rated=False))
    for seat in (None, 1):
        full = replay_view(match.replay, seat)
        response = client.get(f"/matches/{match.pk}/replay/data/" + ("" if seat is None else f"?seat={seat}"))
        compact = response.json()
        assert [_rebuilt(compact, i) for i in range(len(compact["frames"]))] == \
            json.loads(json.dumps([frame["view"] for frame in full["frames"]]))
        assert len(response.content) * 2 < len(json.dumps(full))
    assert client.get(f"/matches/{match.pk}/replay/data/?seat=9").status_code == 400
    replay_file = client.get(f"/matches/{match.pk}/replay/file/")
    assert replay_file.json() == match.replay and "match-" in replay_file["Content-Disposition"]


def test_a_finished_replay_is_worked_out_once_and_the_browser_may_keep_it(client, signed_in):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    bots = [Bot.objects.builtin("crazyking", n) for n in ("random", "most-suit")]
    match = play_now(services.create_match("crazyking", bots, purpose="challenge", rated=False))
    for seat in ("", "?seat=1"):
        first = client.get(f"/matches/{match.pk}/replay/data/{seat}")
        with CaptureQueriesContext(connection) as queries:
            again = client.get(f"/matches/{match.pk}/replay/data/{seat}")
        assert again.json() == first.json()
        assert not [query for query in queries if '"replay"' in query["sql"]], "the replay was read again"
        assert "private" in again["Cache-Control"] and "max-age=86400" in again["Cache-Control"]
    assert client.get(f"/matches/{match.pk}/replay/data/").json() != client.get(
        f"/matches/{match.pk}/replay/data/?seat=1").json(), "each seat's view is kept apart"


def test_a_seats_view_shows_the_decisions_of_that_seat_only(client, signed_in):
    bots = [Bot.objects.builtin("crazyking", n) for n in ("random", "most-suit")]
    match = play_now(services.create_match("crazyking", bots, purpose="challenge", rated=False))
    frames = client.get(f"/matches/{match.pk}/replay/data/?seat=0").json()["frames"]
    events = [frame["event"] for frame in frames if frame["event"] and "action" in frame["event"]]
    assert all(event["decision"] is None for event in events if event["seat"] == 1)
    own = [event["decision"] for event in events if event["seat"] == 0]
    assert own and all(d["options"][d["chosen"]] in event["text"] for d, event in
                       zip(own, (e for e in events if e["seat"] == 0)))


def test_the_match_page_polls_a_live_fragment_until_the_match_is_over(client, signed_in):
    mine = active_bot(signed_in)
    match = services.challenge(signed_in, mine, [Bot.objects.builtin("endgame", "greedy")], rated=False)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert f'hx-get="/matches/{match.pk}/live/"' in page and "position 1 in the queue" in page
    assert "bank" in page  # the time limits, bank included, are explained while the match waits
    play_now(match)
    fragment = client.get(f"/matches/{match.pk}/live/").content.decode()
    assert fragment.startswith('<div id="match-live">') and "hx-get" not in fragment  # over: polling stops
    assert "Watch the replay with analysis" in fragment
    greedy = Bot.objects.builtin("endgame", "greedy")
    assert f'href="/bots/{greedy.pk}/challenge-with-mine/"' in fragment  # a rematch from the result
    assert f"/bots/{mine.pk}/challenge-with-mine/" not in fragment


def test_the_versions_table_follows_the_validation_then_reloads_the_page(client, signed_in, in_process_sandbox,
                                                                       settings, django_capture_on_commit_callbacks):
    settings.ARENA_LIVE_STREAM_SECONDS = 0  # a stream sends what it shows now and ends
    bot = Bot.objects.create(owner=signed_in, game="endgame", name="fresh")
    client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("mine.py", EXAMPLE_BOT)})
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert f'data-live-url="/bots/{bot.pk}/versions/live/?last_event_id=' in page and 'data-live-html data-live-end="reload"' in page
    events = b"".join(client.get(f"/bots/{bot.pk}/versions/live/").streaming_content).decode()
    assert "version-validating" in events and '"final":false' in events
    # Its commit publishes the change, as in production: the streams' shared snapshot is read again.
    with django_capture_on_commit_callbacks(execute=True):
        play_now(bot.versions.get().validation_match)
    events = b"".join(client.get(f"/bots/{bot.pk}/versions/live/").streaming_content).decode()
    assert "version-accepted" in events and '"final":true' in events  # the page reloads then
    assert "data-live-url" not in client.get(f"/bots/{bot.pk}/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_versions_stream_sends_only_what_changed_since_the_page_was_rendered(client, signed_in,
                                                                                in_process_sandbox, live_server):
    """The bot's page renders its versions while one validates; the stream it names then sends nothing until
    they change. It used to send the table again as soon as it opened, replacing it right after the page
    loaded (a click on a version's link or its stderr landing in that moment was lost)."""
    bot = Bot.objects.create(owner=signed_in, game="endgame", name="fresh")
    client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("mine.py", EXAMPLE_BOT)})
    page, stream = page_stream(live_server, client, f"/bots/{bot.pk}/", "versions-part")
    with stream:
        assert "version-validating" in page and "<td>v2</td>" not in page
        client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("again.py", EXAMPLE_BOT + b"\n# again\n")})
        event = stream.next_event()

    assert "<td>v2</td>" in event["data"]["payload"]["html"]


def _ladder_order(most_sigma: float) -> tuple[list[int], int]:
    """(bot ids in ladder order, how many are ranked), worked out here from the ratings: ranked bots (sigma
    at most `most_sigma`) by rating, then provisional ones most-played first, then by rating (never rated:
    0, 0 played)."""
    rows = [(bot.pk, getattr(bot, "rating", None)) for bot in Bot.objects.active().for_game("endgame")]
    rows = [(pk, rating.value if rating else 0, rating.played if rating else 0, rating.sigma if rating else 25 / 3)
            for pk, rating in rows]
    ranked = sorted((row for row in rows if row[3] <= most_sigma), key=lambda row: (-row[1], row[0]))
    provisional = sorted((row for row in rows if row[3] > most_sigma), key=lambda row: (-row[2], -row[1], row[0]))
    return [row[0] for row in ranked + provisional], len(ranked)


def test_ladder_pages_continue_the_ranks_and_say_where_my_bots_stand(client, settings, monkeypatch):
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from arena.ratings import pages as ladder_pages

    monkeypatch.setattr(ladder_pages, "LADDER_PAGE_ROWS", 4)
    call_command("fill_scale_data", bots=10, courses=1, matches=40, replays=2, prefix="p", stdout=io.StringIO())
    sigmas = sorted(Rating.objects.values_list("sigma", flat=True))
    settings.ARENA_PROVISIONAL_SIGMA = (sigmas[4] + sigmas[5]) / 2  # half the bots ranked
    expected, ranked = _ladder_order(most_sigma=settings.ARENA_PROVISIONAL_SIGMA)
    assert 0 < ranked < len(expected), "the data should give both ranked and provisional bots"
    shown = []
    for number in range(1, (len(expected) + 3) // 4 + 1):
        page = client.get("/ladder/endgame/", {"page": number}).content.decode()
        shown += re.findall(r'<tr id="bot-(\d+)"[^>]*><td>([^<]*)</td>', page)
    assert [int(pk) for pk, _ in shown] == expected
    assert [rank for _, rank in shown] == [str(n) for n in range(1, ranked + 1)] + ["–"] * (len(expected) - ranked)

    # A student finds their own bots, ranked or not, with the page each is on.
    for place in (ranked, ranked + 1):  # the last ranked bot and the first provisional one
        bot = Bot.objects.get(pk=expected[place - 1])
        client.force_login(bot.owner)
        page = client.get("/ladder/endgame/").content.decode()
        mine = page[page.index('id="my-bots"'):page.index("</p>", page.index('id="my-bots"'))]
        state = f"rank {place}" if place <= ranked else "provisional"
        assert f'href="?page={(place - 1) // 4 + 1}#bot-{bot.pk}"' in mine and f"({state}, page" in mine
    client.force_login(get_user_model().objects.create_user("no-bots"))
    assert 'id="my-bots"' not in client.get("/ladder/endgame/").content.decode()


def test_the_cached_ladder_page_shows_a_rated_match_as_soon_as_it_finishes(client):
    optimal, random_bot = Bot.objects.builtin("endgame", "optimal"), Bot.objects.builtin("endgame", "random")
    assert "No rated matches yet." in client.get("/ladder/endgame/").content.decode()  # now in the cache
    _rated([optimal, random_bot], 1)
    page = client.get("/ladder/endgame/").content.decode()
    assert 'id="rating-chart-data"' in page and "No rated matches yet." not in page


def test_an_unrated_match_leaves_the_cached_ladder_page_in_place(client, make_user):
    """Only rated matches and validations change a ladder: a tournament's unrated games finishing many
    times a second must not make every viewer redraw it."""
    bot = active_bot(make_user("ada"), name="before")
    optimal, random_bot = Bot.objects.builtin("endgame", "optimal"), Bot.objects.builtin("endgame", "random")
    assert "ada/before" in client.get("/ladder/endgame/").content.decode()  # now in the cache
    Bot.objects.filter(pk=bot.pk).update(name="after")  # as an operator would, with no match
    play_now(services.create_match("endgame", [optimal, random_bot], purpose="challenge", rated=False))
    assert "ada/before" in client.get("/ladder/endgame/").content.decode()
    _rated([optimal, random_bot], 1)
    assert "ada/after" in client.get("/ladder/endgame/").content.decode()


def test_while_a_ladder_page_is_worked_out_again_other_viewers_get_the_copy_before(client, make_user, monkeypatch):
    """After a rated match (or once the copy expires) one request works the page out again; the viewers
    arriving meanwhile are served the copy before at once instead of all working it out together."""
    from arena.ratings import presentation

    bot = active_bot(make_user("ada"), name="before")
    assert "ada/before" in client.get("/ladder/endgame/").content.decode()  # now in the cache
    Bot.objects.filter(pk=bot.pk).update(name="after")
    _rated([Bot.objects.builtin("endgame", "optimal"), Bot.objects.builtin("endgame", "random")], 1)
    meanwhile = []
    work_out = presentation.standing_rows

    def another_viewer_arrives(*args):
        meanwhile.append(Client().get("/ladder/endgame/").content.decode())
        return work_out(*args)

    monkeypatch.setattr(presentation, "standing_rows", another_viewer_arrives)
    assert "ada/after" in client.get("/ladder/endgame/").content.decode()
    assert len(meanwhile) == 1 and "ada/before" in meanwhile[0] and "ada/after" not in meanwhile[0]


def test_a_sprouts_replay_page_comes_at_once_and_its_analysis_move_by_move(client, signed_in):
    bots = [Bot.objects.builtin("sprouts", n) for n in ("random", "random")]
    match = play_now(services.create_match("sprouts", bots, purpose="challenge", rated=False, config={"spots": 10}))
    page = client.get(f"/matches/{match.pk}/replay/").content.decode()
    assert "Moves and the analysis" in page and 'id="analysis-progress"' in page and "rulings" not in page
    data = client.get(f"/matches/{match.pk}/replay/data/").json()
    assert data["streamed_analysis"] and not any(frame["event"] and frame["event"]["analysis"] for frame in data["frames"])
    assert data["frames"][0]["view"]["drawing"].startswith("<svg")
    moves = len(data["frames"]) - 1
    last = client.get(f"/matches/{match.pk}/replay/analysis/{moves - 1}/").json()["analysis"]
    assert last["step"] == moves - 1 and last["verdict"] in ("keeps_win", "throws_win", "lost_position")
    assert client.get(f"/matches/{match.pk}/replay/analysis/{moves}/").status_code == 404
    endgame = play_now(services.create_match("endgame", [Bot.objects.builtin("endgame", "greedy")] * 2,
                                             purpose="challenge", rated=False))
    assert client.get(f"/matches/{endgame.pk}/replay/analysis/0/").status_code == 404
