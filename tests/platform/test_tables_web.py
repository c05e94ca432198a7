"""Tables through the API and the pages: opening, moving, what each person sees, hostile bodies, the replay."""

import re
import uuid

import pytest
from django.conf import settings as django_settings
from django.test import override_settings
from django.utils import timezone
from hypothesis import HealthCheck, given, settings, strategies as st
from rest_framework.test import APIClient

from arena.accounts.models import Course
from arena.bots.models import Bot
from arena.tables import services
from arena.tables.models import Table
from arena.tables.services import SeatChoice
from hostile import DEEPEST, nested
from quick_tier import examples

pytestmark = pytest.mark.django_db

BOARD = [-1, 3, 9, 4, 7, 2]


def client_of(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def ada(make_user):
    return make_user("ada")


@pytest.fixture
def ben(make_user):
    return make_user("ben")


def test_a_person_opens_a_table_against_a_built_in_and_plays_it_through_the_api(ada):
    api = client_of(ada)
    opened = api.post("/api/tables/", {"game": "endgame", "config": {"board": BOARD}, "move_seconds": 60,
                                       "seats": [{"kind": "me"}, {"kind": "builtin", "builtin": "greedy"}]},
                      format="json")
    assert opened.status_code == 201, opened.content
    state = opened.json()
    assert state["your_seat"] == 0 and state["on_move"] == 0 and state["deadline"] is not None
    assert [choice["label"] for choice in state["choices"]] == ["take -1 from the left end",
                                                                "take 2 from the right end"]
    moved = api.post(f"/api/tables/{state['id']}/move/", {"turn": 0, "action": "right"}, format="json")
    assert moved.status_code == 200 and moved.json()["turn"] == 1 and moved.json()["choices"] == []
    again = api.post(f"/api/tables/{state['id']}/move/", {"turn": 0, "action": "left"}, format="json")
    assert again.status_code == 409  # the double click
    services.play_bot_turns(state["id"])  # the worker's task: greedy takes its end
    assert api.get(f"/api/tables/{state['id']}/").json()["turn"] == 2
    assert [row["id"] for row in api.get("/api/tables/").json()["results"]] == [state["id"]]


def test_an_invitation_by_link_seats_the_person_who_opens_it(ada, ben, client):
    opened = client_of(ada).post("/api/tables/", {"game": "endgame", "seats": [{"kind": "me"}, {"kind": "invite"}]},
                                 format="json").json()
    assert opened["status"] == "waiting"
    link = opened["seats"][1]["invitation"]
    assert link and client_of(ben).get(f"/api/tables/{opened['id']}/").status_code == 404  # not seated yet
    client.force_login(ben)
    assert "invites you to play End Game" in client.get(link).content.decode()
    assert client.post(link).status_code == 302
    seen = client_of(ben).get(f"/api/tables/{opened['id']}/").json()
    assert seen["status"] == "playing" and seen["your_seat"] == 1 and seen["seats"][1]["invitation"] is None
    assert client.post(link).status_code == 404  # spent


def test_nobody_but_a_seats_person_sees_its_observation(ada, ben, make_user, in_process_sandbox):
    """Crazy-KING, two people and two bots at a table of a course: each person sees their own hand only; the
    instructor and a classmate watching see the public view, with no hand at all."""
    teacher, cleo = make_user("teacher"), make_user("cleo")
    course = Course.objects.create(code="algo", name="Algorithms")
    course.students.add(ada, ben, cleo)
    course.instructors.add(teacher)
    bot = Bot.objects.builtin("crazyking", "random")
    table = services.open_table(ada, "crazyking", [SeatChoice(user=ada), SeatChoice(bot=bot), SeatChoice(user=ben),
                                                   SeatChoice(bot=bot)], course=course, seed=987_654_321)
    full = services.current(table).state.full_view()
    ada_sees = client_of(ada).get(f"/api/tables/{table.pk}/").json()
    ben_sees = client_of(ben).get(f"/api/tables/{table.pk}/").json()
    teacher_sees = client_of(teacher).get(f"/api/tables/{table.pk}/").json()
    cleo_sees = client_of(cleo).get(f"/api/tables/{table.pk}/").json()
    assert ada_sees["view"]["hand"] == full["hands"][0] and ben_sees["view"]["hand"] == full["hands"][2]
    assert cleo_sees["view"] == teacher_sees["view"] and cleo_sees["your_seat"] is None
    for seen, others in [(ada_sees, [1, 2, 3]), (ben_sees, [0, 1, 3]), (teacher_sees, [0, 1, 2, 3]),
                         (cleo_sees, [0, 1, 2, 3])]:
        text = str(seen)
        assert all(str(full["hands"][seat]) not in text for seat in others)
        assert "hands" not in seen["view"] and str(table.seed) not in text
    assert teacher_sees["your_seat"] is None and teacher_sees["choices"] == [] and "hand" not in teacher_sees["view"]
    services.play_bot_turns(table.pk)  # the bots before the first person, if a bot begins
    ada_sees = client_of(ada).get(f"/api/tables/{table.pk}/").json()
    on_move, waiting = (ada, ben) if ada_sees["on_move"] == 0 else (ben, ada)
    seen = client_of(on_move).get(f"/api/tables/{table.pk}/").json()
    assert seen["choices"] and not client_of(waiting).get(f"/api/tables/{table.pk}/").json()["choices"]
    move = {"turn": seen["turn"], "action": seen["choices"][0]["action"]}
    assert client_of(waiting).post(f"/api/tables/{table.pk}/move/", move, format="json").status_code == 409
    assert client_of(on_move).post(f"/api/tables/{table.pk}/move/", move, format="json").status_code == 200


def test_the_play_form_opens_a_table_its_course_watches_and_one_only_its_people_see(ada, ben, make_user, client):
    """Watched by "everyone in" a course: its students and staff watch (a classmate at the table page); without
    a course, a classmate gets 404; a course the opener does not take is refused with the reason."""
    cleo = make_user("cleo")
    course = Course.objects.create(code="algo", name="Algorithms")
    course.students.add(ada, ben, cleo)
    other = Course.objects.create(code="other", name="Other")
    greedy = Bot.objects.builtin("endgame", "greedy")
    client.force_login(ada)
    form = {"seat0": "me", "seat1": f"bot:{greedy.pk}", "move_seconds": "60"}
    assert "everyone in Algorithms" in client.get("/play/?game=endgame").content.decode()
    watched = client.post("/play/?game=endgame", {**form, "course": str(course.pk)})
    private = client.post("/play/?game=endgame", form)
    for refused in [str(other.pk), "x", "9" * 30]:
        answer = client.post("/play/?game=endgame", {**form, "course": refused})
        assert answer.status_code == 400 and "one of the courses you take" in answer.content.decode()
    client.force_login(cleo)
    assert client.get(watched["Location"]).status_code == 200
    assert client.get(private["Location"]).status_code == 404


@pytest.fixture
def playing(ada):
    return services.open_table(ada, "endgame", [SeatChoice(user=ada), SeatChoice(invite=True)], move_seconds=None)


hostile_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.one_of(
    hostile_values,
    st.fixed_dictionaries({"turn": hostile_values, "action": hostile_values}),
    st.fixed_dictionaries({"game": st.sampled_from(["endgame", "crazyking", "sprouts", "x"]),
                           "seats": st.lists(st.fixed_dictionaries({"kind": hostile_values, "bot": hostile_values,
                                                                    "builtin": hostile_values}), max_size=7),
                           "config": hostile_values, "move_seconds": hostile_values, "course": hostile_values}),
))
def test_hostile_bodies_are_refused_with_a_4xx_and_never_a_500(ada, body):
    table = Table.objects.filter(opened_by=ada).first() or services.open_table(
        ada, "endgame", [SeatChoice(user=ada), SeatChoice(bot=Bot.objects.builtin("endgame", "greedy"))])
    fresh = {"default": {**django_settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}
    api = client_of(ada)
    with override_settings(CACHES=fresh):
        for url in ["/api/tables/", f"/api/tables/{table.pk}/move/", "/api/tables/join/"]:
            response = api.post(url, body, format="json")
            assert response.status_code < 500, (url, response.content[:300])
            if response.status_code >= 400:
                assert "detail" in response.json() or isinstance(response.json(), dict)
    assert Table.objects.get(pk=table.pk).facts["events"] in ([], [{"seat": 0, "action": "left"}],
                                                             [{"seat": 0, "action": "right"}])


@pytest.mark.parametrize("action", [nested(DEEPEST // 1000), "x" * 100_000, {"end": "left"}, None, [], 1e308])
def test_a_move_no_game_takes_is_a_400_recording_nothing(ada, action):
    table = services.open_table(ada, "endgame", [SeatChoice(user=ada), SeatChoice(bot=Bot.objects.builtin("endgame", "greedy"))])
    response = client_of(ada).post(f"/api/tables/{table.pk}/move/", {"turn": 0, "action": action}, format="json")
    assert response.status_code == 400, response.content[:300]
    assert Table.objects.get(pk=table.pk).facts["events"] == []


@pytest.mark.parametrize("path", ["/api/tables/99999999999999999999/", "/tables/99999999999999999999/",
                                  "/api/tables/abc/", "/tables/0/data/"])
def test_a_table_that_cannot_exist_is_a_404(ada, client, path):
    client.force_login(ada)
    assert client.get(path).status_code == 404


def test_the_play_page_opens_a_table_and_the_table_page_shows_the_seats_moves(ada, client):
    client.force_login(ada)
    assert "Open the table" in client.get("/play/?game=endgame").content.decode()
    greedy = Bot.objects.builtin("endgame", "greedy")
    response = client.post("/play/?game=endgame", {"seat0": "me", "seat1": f"bot:{greedy.pk}", "move_seconds": "90"})
    table = Table.objects.get(opened_by=ada)
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert "take" in page and "from the left end" in page and table.move_seconds == 90
    refused = client.post("/play/?game=endgame", {"seat0": "me", "seat1": "bot:999999", "move_seconds": "x"})
    assert refused.status_code == 400 and Table.objects.count() == 1


def test_the_play_form_opens_a_table_with_the_options_typed(ada, client):
    client.force_login(ada)
    greedy = Bot.objects.builtin("endgame", "greedy")
    form = {"seat0": "me", "seat1": f"bot:{greedy.pk}", "move_seconds": "90"}
    assert client.post("/play/?game=endgame", {**form, "config": '{"length": 8}'}).status_code == 302
    assert Table.objects.get(opened_by=ada).config["length"] == 8
    for refused, reason in [("{", "not JSON"), ("[8]", "a JSON object"), ('{"size": 8}', "unknown option")]:
        answer = client.post("/play/?game=endgame", {**form, "config": refused})
        assert answer.status_code == 400 and reason in answer.content.decode(), refused
    # A hostile student's options: nested past any reader's depth, too long, numbers out of range or of the
    # wrong type. Each is a 400 with the form again, never a server error, and opens nothing.
    for hostile in ['{"length": ' + "[" * 5000 + "]" * 5000 + "}", "{" + " " * 30_000 + "}", '{"length": 1e400}',
                    '{"length": 99999999999999999999}', '{"length": "8"}', '{"length": -1}', '{"length": null}']:
        answer = client.post("/play/?game=endgame", {**form, "config": hostile})
        assert answer.status_code == 400 and 'id="open-table"' in answer.content.decode(), hostile[:40]
    assert Table.objects.count() == 1


def test_the_finished_tables_replay_shows_the_points_each_move_lost(ada, ben, client):
    table = services.open_table(ada, "endgame", [SeatChoice(user=ada), SeatChoice(user=ben)],
                                config={"board": BOARD})
    for number, action in enumerate(["left", "left", "left", "right", "left", "left"]):
        services.move(Table.objects.get(pk=table.pk), [ada, ben][number % 2], number, action)
    client.force_login(ada)
    page = client.get(f"/tables/{table.pk}/replay/").content.decode()
    assert "Points lost against optimal play" in page and f"/tables/{table.pk}/replay/data/" in page
    data = client.get(f"/tables/{table.pk}/replay/data/").json()
    lost = [frame["event"]["analysis"]["points_lost"] for frame in data["frames"][1:]]
    assert data["points_lost"] == [sum(lost[0::2]), sum(lost[1::2])] == [3, 0]  # ada threw away 3 points
    own = client.get(f"/tables/{table.pk}/replay/data/?seat=0").json()  # ada's own moves' analysis only
    assert [frame["event"]["analysis"] is not None for frame in own["frames"][1:]] == [True, False] * 3
    assert client.get(f"/tables/{table.pk}/replay/file/").json()["players"] == ["ada", "ben"]


def test_leaving_asks_for_a_confirmation_and_is_offered_only_while_the_seat_plays(ada, ben, make_user, client):
    table = services.open_table(ada, "endgame", [SeatChoice(user=ada), SeatChoice(user=ben)],
                                config={"board": BOARD})
    client.force_login(ada)
    page = client.get(f"/tables/{table.pk}/").content.decode()
    # Two steps without a script (the CSP forbids inline ones): the summary opens the form that leaves.
    assert '<details id="leave">' in page and "<summary>Leave the game</summary>" in page
    assert page.index("<summary>") < page.index('id="leave-form"') < page.index("</details>")
    assert client.get(f"/tables/{table.pk}/data/").json()["may_leave"] is True
    assert client.post(f"/tables/{table.pk}/leave/").status_code == 302
    # Over: the page's live stream says so (the page hides the control), and a reload draws it hidden.
    assert client.get(f"/tables/{table.pk}/data/").json()["may_leave"] is False
    assert '<details id="leave" hidden>' in client.get(f"/tables/{table.pk}/").content.decode()
    client.force_login(ben)
    assert client.get(f"/tables/{table.pk}/data/").json()["may_leave"] is False
    waiting = services.open_table(ada, "endgame", [SeatChoice(user=ada), SeatChoice(invite=True)])
    client.force_login(ada)
    assert client.get(f"/tables/{waiting.pk}/data/").json()["may_leave"] is False  # nothing to leave yet
    assert client.get(f"/tables/{waiting.pk}/data/").json()["home"] is None  # no room's table


def test_the_play_form_counts_seats_from_1_and_leaves_the_seats_beyond_the_games_minimum_empty(ada, client):
    client.force_login(ada)
    page = client.get("/play/?game=crazyking").content.decode()  # 2 to 5 seats
    assert "Seat 1 <select" in page and "Seat 5 <select" in page and "Seat 0" not in page
    chosen = dict(re.findall(r'<select name="(seat\d)".*?<option value="([^"]*)"[^>]*selected', page, re.S))
    assert chosen.pop("seat1").startswith("bot:")  # a built-in in the seats the game needs, no seat beyond
    assert chosen == {"seat0": "me", "seat2": "", "seat3": "", "seat4": ""}
    refused = client.post("/play/?game=crazyking", {"seat0": "me", "seat1": "bot:999999"})
    assert "seat 2: no such bot" in refused.content.decode()


def test_the_course_page_lists_the_tables_its_class_plays_and_those_finished_lately(ada, ben, make_user, client):
    course = Course.objects.create(name="Algorithms", code="ALG1")
    teacher = make_user("teacher")
    course.instructors.add(teacher)
    course.students.add(ada, ben)
    other = Course.objects.create(name="Other", code="OTH1")

    def table(course=None, over=False):
        opened = services.open_table(ada, "endgame", [SeatChoice(user=ada), SeatChoice(user=ben)],
                                     config={"board": BOARD}, course=course)
        if over:
            services.leave(opened, ben)
        return opened.pk

    playing, finished = table(course), table(course, over=True)
    table(), table(other)  # tables the course does not watch
    long_ago = table(course, over=True)
    Table.objects.filter(pk=long_ago).update(finished_at=timezone.now() - services.RECENTLY_FINISHED * 2)
    for viewer in (teacher, ada):
        client.force_login(viewer)
        page = client.get(f"/courses/{course.pk}/").content.decode()
        shown = set(map(int, re.findall(r'<tr data-table="(\d+)"', page)))
        assert shown == {playing, finished}, viewer
        assert f'href="/tables/{finished}/replay/"' in page and f'href="/tables/{playing}/"' in page
    assert services.course_tables(make_user("stranger"), course) == []
