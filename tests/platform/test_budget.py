"""One budget for bot work (arena/core/budget.py): challenges, validations of uploads, tables with bots and pairing
rooms' games draw from one per-user limit in flight and one rate; the queue plays the platform's grading runs and
tournaments, then staff work, before students' work, and students' work round-robin between owners.

The reported fault: 15 tables of bots alone opened in 2.2 s, none refused, while another student's challenge
waited 31 s behind them.
"""

import heapq
import itertools
import threading

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

from arena.accounts.models import Course
from arena.bots.models import Bot
from arena.core import budget, queue
from arena.core.queue import Priority
from arena.matches import batches, services
from arena.matches.models import Match
from arena.tables import services as tables
from arena.tables.models import Table
from platform_helpers import EXAMPLE_BOT, active_bot, wait_for
from required import require

pytestmark = pytest.mark.django_db

BOTS_ALONE = {"game": "endgame", "seats": [{"kind": "builtin", "builtin": "greedy"},
                                           {"kind": "builtin", "builtin": "random"}]}


def refused(response, words: str) -> None:
    """A 429 that says which limit and when to come back, in words and in Retry-After."""
    assert response.status_code == 429, response.content
    detail = response.json()["detail"]
    assert words in detail and "Try again in" in detail
    assert 1 <= int(response["Retry-After"]) <= 3600


def challenge(api_client, bot, **extra):
    return api_client.post("/api/matches/", {"bot": bot.pk, "opponents": [Bot.objects.builtin("endgame", "random").pk],
                                             **extra}, format="json")


def upload(api_client, bot):
    return api_client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("b.py", EXAMPLE_BOT)},
                           format="multipart")


def test_a_burst_of_30_tables_of_bots_alone_meets_a_refusal_that_says_when_to_return(api_client, ada, settings):
    limit = settings.ARENA_BUDGET["in_flight"]
    answers = [api_client.post("/api/tables/", BOTS_ALONE, format="json") for _ in range(30)]

    assert [answer.status_code for answer in answers] == [201] * limit + [429] * (30 - limit)
    refused(answers[-1], f"the most at once ({limit})")
    assert Table.objects.filter(opened_by=ada).count() == limit
    # A table that ends gives its place back: the database says what is in flight.
    Table.objects.filter(pk=Table.objects.filter(opened_by=ada).first().pk).update(status=Table.Status.FINISHED)
    assert api_client.post("/api/tables/", BOTS_ALONE, format="json").status_code == 201


def test_the_rate_counts_tables_too_and_says_when_the_oldest_leaves_it(api_client, ada, settings):
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 1000, "rate": "10/min"}
    answers = [api_client.post("/api/tables/", BOTS_ALONE, format="json").status_code for _ in range(12)]
    assert answers == [201] * 10 + [429] * 2
    response = api_client.post("/api/tables/", BOTS_ALONE, format="json")
    refused(response, "at most 10 per minute")
    assert int(response["Retry-After"]) <= 60


def test_challenges_tables_and_validations_share_one_budget(api_client, ada, settings):
    bot = active_bot(ada)
    assert challenge(api_client, bot).status_code == 201
    assert challenge(api_client, bot).status_code == 201
    assert api_client.post("/api/tables/", BOTS_ALONE, format="json").status_code == 201
    assert api_client.post("/api/tables/", BOTS_ALONE, format="json").status_code == 201
    assert upload(api_client, bot).status_code == 201  # its validation: the fifth in flight

    refused(challenge(api_client, bot), "games of bots queued or being played")
    refused(api_client.post("/api/tables/", BOTS_ALONE, format="json"), "a table of bots cannot start now")
    refused(upload(api_client, bot), "the validation of this upload cannot start now")
    assert bot.versions.count() == 2  # the refused upload stored nothing
    # A person at a table with a bot holds no place (the bot moves at the person's pace): only the rate counts it.
    with_me = {"game": "endgame", "seats": [{"kind": "me"}, {"kind": "builtin", "builtin": "greedy"}]}
    assert api_client.post("/api/tables/", with_me, format="json").status_code == 201
    # Another student's budget is their own.
    other = active_bot(ada.__class__.objects.create_user("ben"))
    api_client.force_authenticate(other.owner)
    assert challenge(api_client, other).status_code == 201


def test_the_forms_say_when_to_come_back(client, signed_in, settings):
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 1}
    greedy, random = Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "random")
    bots_alone = {"seat0": f"bot:{greedy.pk}", "seat1": f"bot:{random.pk}", "move_seconds": ""}
    assert client.post("/play/?game=endgame", bots_alone).status_code == 302
    form = client.post("/play/?game=endgame", bots_alone)
    # The form again, filled as sent, with the refusal and when to come back.
    assert form.status_code == 429 and int(form["Retry-After"]) >= 1
    assert "a table of bots cannot start now" in form.content.decode() and 'name="seat0"' in form.content.decode()
    bot = active_bot(signed_in)
    upload_page = client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("b.py", EXAMPLE_BOT)})
    assert upload_page.status_code == 429 and int(upload_page["Retry-After"]) >= 1
    assert "the validation of this upload cannot start now" in upload_page.content.decode()
    assert bot.versions.count() == 1 and Table.objects.filter(opened_by=signed_in).count() == 1


def test_staff_have_limits_of_their_own(api_client, make_user, settings):
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 2, "staff_in_flight": 4}
    teacher = make_user("teacher")
    Course.objects.create(code="algo", name="Algorithms").instructors.add(teacher)
    api_client.force_authenticate(teacher)
    answers = [api_client.post("/api/tables/", BOTS_ALONE, format="json").status_code for _ in range(5)]
    assert answers == [201] * 4 + [429]
    bot = active_bot(teacher)
    Table.objects.filter(opened_by=teacher).update(status=Table.Status.FINISHED)
    match = services.challenge(teacher, bot, [Bot.objects.builtin("endgame", "random")], rated=False)
    assert match.priority == Priority.STAFF


# --- the queue's order: what the workers play first ------------------------------------------------------------

class Broker:
    """The run-task messages as Redis hands them out: lower priority numbers first, in the order sent within one
    (kombu's priority lists); what publish_on_commit sends lands here once the transaction commits."""

    def __init__(self):
        self.messages: list = []
        self.sent = itertools.count()

    def send_task(self, name, args=(), priority=0, **options):
        if name == "matches.tasks.run_match":
            heapq.heappush(self.messages, (priority, next(self.sent), args[0]))

    def next(self) -> int:
        return heapq.heappop(self.messages)[2]


@pytest.fixture
def broker(monkeypatch):
    broker = Broker()
    monkeypatch.setattr(queue.current_app, "send_task", broker.send_task)
    return broker


def play_in_turn(broker: Broker, django_capture_on_commit_callbacks, workers: int = 1) -> list[int]:
    """What `workers` worker processes play, in order, taking the broker's messages as a worker does
    (matches.tasks.run_match's claim): each match played ends before that worker takes its next message."""
    played, playing = [], []
    while broker.messages or playing:
        if len(playing) == workers or not broker.messages:
            done = playing.pop(0)
            services.change_status(done, Match.Status.FINISHED, expected=[Match.Status.RUNNING],
                                   finished_at=timezone.now(), replay={})
            continue
        match_id, passes = broker.next(), 0
        with django_capture_on_commit_callbacks(execute=True):
            claimed = services.claim(match_id, services.Route())
            while isinstance(claimed, services.Busy):  # its bots' warm containers are in play: the task waits
                passes += 1
                claimed = services.claim(match_id, services.Route(passes, wait=False))
        if isinstance(claimed, services.Claim):
            played.append(claimed.match.pk)
            playing.append(claimed.match)
    return played


def queued_challenges(user, count: int) -> list[int]:
    bot = Bot.objects.filter(owner=user).first() or active_bot(user)
    return [services.challenge(user, bot, [Bot.objects.builtin("endgame", "random")], rated=False).pk
            for _ in range(count)]


def test_another_students_challenge_is_not_queued_behind_a_burst(make_user, broker, settings,
                                                                 django_capture_on_commit_callbacks):
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 30, "rate": "30/min"}
    with django_capture_on_commit_callbacks(execute=True):  # each sent to the broker as its request commits
        burst = queued_challenges(make_user("ann"), 30)
        bens = queued_challenges(make_user("ben"), 1)
        cats = queued_challenges(make_user("cat"), 2)

    played = play_in_turn(broker, django_capture_on_commit_callbacks, workers=2)

    # Round-robin between owners, not first come: each of ben's and cat's within the first few, ann's burst
    # then in its own order. First come would have played ben's 31st.
    assert sorted(played) == sorted(burst + bens + cats)
    assert played.index(bens[0]) <= 3 and played.index(cats[0]) <= 3 and played.index(cats[1]) <= 6
    assert [pk for pk in played if pk in burst] == burst
    assert Match.objects.filter(status=Match.Status.FINISHED).count() == 33


def test_a_grading_runs_games_are_played_before_a_student_burst(make_user, broker, settings,
                                                               django_capture_on_commit_callbacks):
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 20, "rate": "20/min"}
    with django_capture_on_commit_callbacks(execute=True):
        burst = queued_challenges(make_user("ann"), 20)
        staffs = queued_challenges(make_user("teacher", is_staff=True), 2)
        bots = [Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "random")]
        grading = [batches.queue("endgame", bots, purpose=Match.Purpose.GRADING, seed=n, versions={}, config={}).pk
                   for n in range(3)]
        tournament = [batches.queue("endgame", bots, purpose=Match.Purpose.TOURNAMENT, seed=n, versions={},
                                    config={}).pk for n in range(2)]

    # Even a message of the student burst, taken first (an embedded broker has no priorities), plays the grading
    # run's first game: the database says what runs next.
    with django_capture_on_commit_callbacks(execute=True):
        first = services.claim(burst[0], services.Route())
    assert first.match.pk == grading[0]
    Match.objects.filter(pk=grading[0]).update(status=Match.Status.FINISHED, finished_at=timezone.now(), replay={})

    played = play_in_turn(broker, django_capture_on_commit_callbacks, workers=2)
    assert played[:6] == grading[1:] + tournament + staffs
    assert played[6:] == burst


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_plays_the_grading_run_first_and_another_student_before_the_burst(live_worker, make_user,
                                                                                       settings):
    """The production path: Redis, a Celery worker of two processes, the sandbox. Everything is queued in one
    commit, the burst's messages first; what the worker starts first is read from the matches' start times."""
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 8, "rate": "8/min"}
    ann, ben = make_user("ann"), make_user("ben")
    bots = [Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "random")]
    with transaction.atomic():
        burst = queued_challenges(ann, 8)
        bens = queued_challenges(ben, 1)
        grading = [batches.queue("endgame", bots, purpose=Match.Purpose.GRADING, seed=n, versions={}, config={}).pk
                   for n in range(2)]
    everything = Match.objects.filter(pk__in=burst + bens + grading)
    wait_for(lambda: not everything.exclude(status=Match.Status.FINISHED).exists(), 180, "the worker to play them all")

    started = list(everything.order_by("started_at").values_list("pk", flat=True))
    assert set(started[:2]) == set(grading)
    assert bens[0] in started[2:5]  # within ann's first two, not after her eight


def test_the_broker_hands_out_the_more_urgent_classes_first():
    ordered = sorted([(queue.broker_priority(p), p) for p in Priority])
    assert [p for _, p in ordered] == [Priority.GRADING, Priority.TOURNAMENT, Priority.STAFF, Priority.STUDENT,
                                       Priority.LADDER]
    # kombu has four steps: the ladder's matches share the students' last one on the broker (the database's
    # claim still takes a student's first), and no class is sent behind it.
    assert queue.broker_priority(Priority.LADDER) == queue.broker_priority(Priority.STUDENT) == 9
    # Work sent again goes ahead of its class, never behind it, and within kombu's steps 0-9.
    for p in Priority:
        assert 0 <= queue.broker_priority(p, ahead=True) <= queue.broker_priority(p) <= 9


# --- attacks: races, hostile input ---------------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_requests_at_once_never_exceed_the_limit(make_user, settings):
    require(connection.vendor == "postgresql", "PostgreSQL (concurrent transactions)")
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 5, "rate": "100/min"}
    ann = make_user("ann")
    bot = active_bot(ann)
    opponent = Bot.objects.builtin("endgame", "random")
    builtins = [tables.SeatChoice(bot=Bot.objects.builtin("endgame", "greedy")), tables.SeatChoice(bot=opponent)]
    start = threading.Barrier(16)
    outcomes = []

    def one(number: int) -> None:
        try:
            start.wait()
            if number % 2:
                services.challenge(ann, bot, [opponent], rated=False)
            else:
                tables.open_table(ann, "endgame", builtins)
            outcomes.append("admitted")
        except budget.OverBudget:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=one, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["admitted"] * 5 + ["refused"] * 11
    in_flight = Match.objects.filter(created_by=ann).count() + Table.objects.filter(opened_by=ann).count()
    assert in_flight == 5


@hypothesis_settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.dictionaries(st.sampled_from(["priority", "purpose", "created_by", "staff", "budget", "rate", "x"]),
                             st.one_of(st.text(max_size=30), st.integers(-2**70, 2**70).map(str)), max_size=4),
       extra=st.dictionaries(st.sampled_from(["priority", "purpose", "created_by", "is_staff", "rated"]),
                             st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.text(max_size=30)),
                             max_size=3))
def test_hostile_query_strings_and_fields_never_buy_more_budget_or_priority(api_client, ada, settings, query, extra):
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "in_flight": 1, "rate": "100000/min"}
    Match.objects.filter(created_by=ada).delete()
    Table.objects.filter(opened_by=ada).delete()
    bot = Bot.objects.filter(owner=ada).first() or active_bot(ada)
    path = "/api/matches/?" + "&".join(f"{k}={v}" for k, v in query.items())
    opponents = [Bot.objects.builtin("endgame", "random").pk]
    answers = [api_client.post(path, {"bot": bot.pk, "opponents": opponents, **extra}, format="json")
               for _ in range(2)]
    assert answers[0].status_code in (201, 400) and answers[1].status_code in (400, 429)
    assert Match.objects.filter(created_by=ada).count() <= 1
    assert set(Match.objects.filter(created_by=ada).values_list("priority", "purpose")) <= {(Priority.STUDENT, "challenge")}
    tables_path = "/api/tables/?" + "&".join(f"{k}={v}" for k, v in query.items())
    Table.objects.filter(opened_by=ada).delete()
    statuses = [api_client.post(tables_path, {**BOTS_ALONE, **extra}, format="json").status_code for _ in range(2)]
    assert statuses[1] in (400, 429) and Table.objects.filter(opened_by=ada).count() <= 1


def test_a_pairing_rooms_round_is_admitted_whole_from_the_staffs_budget(make_user, settings):
    from arena.rooms import services as rooms

    course = Course.objects.create(name="Algorithms", code="ALG1")
    teacher = make_user("teacher")
    course.instructors.add(teacher)
    course.students.add(*[make_user(f"s{number}") for number in range(3)])
    room = rooms.open_room(teacher, course, "endgame")
    for student in course.students.all():
        rooms.join(student, room)
    # The odd student out plays the room's bot twice: two starts, past a staff rate of 1.
    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "staff_rate": "1/min"}
    with pytest.raises(budget.OverBudget, match="this round's games against the room's bot"):
        rooms.start_round(teacher, room)
    room.refresh_from_db()
    assert room.rounds == 0 and not Table.objects.exists()  # the round did not start at all

    settings.ARENA_BUDGET = {**settings.ARENA_BUDGET, "staff_rate": "2/min"}
    games = rooms.start_round(teacher, room)
    assert len(games) == 4 and Table.objects.count() == 2  # both first games; the second ones open later
