"""The demo data that README's first command starts with."""

import contextlib
import os
import subprocess
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from arena.accounts.models import Course
from arena.matches.models import Match
from arena.rooms.models import Room
from arena.tables.models import Table
from arena.tournaments.models import Tournament
from arena.variants.models import Variant
from platform_helpers import wait_for
from arena.core.management.commands.seed_demo import ACCOUNTS

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_demo_data_signs_in_with_the_readme_passwords_and_has_finished_matches(in_process_sandbox):
    call_command("seed_demo")
    for username, (password, _) in ACCOUNTS.items():
        assert Client().login(username=username, password=password), username
    finished = Match.objects.filter(status=Match.Status.FINISHED)
    assert {"endgame", "crazyking", "sortinggame", "sorted", "sprouts"} <= set(finished.values_list("game", flat=True))
    assert not Match.objects.exclude(status=Match.Status.FINISHED).exists()
    assert Variant.objects.filter(course__code="algo-demo", game="sortinggame").count() == 1
    # Every rating comes from matches the platform chose: the ladders' (and the staff's rated cup).
    rated = Match.objects.filter(rated=True)
    assert set(rated.values_list("purpose", flat=True)) == {Match.Purpose.LADDER, Match.Purpose.TOURNAMENT}
    assert not rated.filter(purpose=Match.Purpose.LADDER, created_by__isnull=False).exists()
    assert {"endgame", "crazyking", "sortinggame", "sorted", "sprouts"} <= set(
        rated.filter(purpose=Match.Purpose.LADDER).values_list("game", flat=True))
    for game in ("crazyking", "sortinggame"):
        ladder = Client().get(f"/ladder/{game}/").content.decode()
        assert "&mu;" in ladder and "&sigma;" in ladder and 'id="provisional"' in ladder, game
    cup = Tournament.objects.get(course__code="algo-demo")
    assert cup.status == Tournament.Status.FINISHED and cup.champion is not None
    assert cup.series.filter(bracket="losers").exists(), "the demo shows a double-elimination bracket"
    # Starting a course: an instructor who may create one, and a roster invitation still waiting.
    teacher = Client()
    teacher.login(username="teacher", password=ACCOUNTS["teacher"][0])
    assert teacher.get("/courses/new/").status_code == 200
    course = Course.objects.get(code="algo-demo")
    assert sorted(course.roster.values_list("user__username", "student_id")) == [("alice", "2026001"),
                                                                                  ("bob", "2026002")]
    assert course.invitations.pending().get().email == "dora@demo.example"
    # Playing in the browser: a finished table, one with alice on move that no clock ends before a newcomer
    # opens it (with the usual 5 minutes a move she was out on time by then), an open pairing room.
    assert Table.objects.filter(status=Table.Status.FINISHED, game="endgame").exists()
    on_move = Table.objects.get(status=Table.Status.PLAYING)
    assert on_move.move_seconds is None and on_move.seats.filter(user__username="alice").exists()
    assert Room.objects.filter(course=course, status=Room.Status.OPEN).count() == 1

    before = counts()
    call_command("seed_demo")  # a second start adds nothing
    assert counts() == before


def counts() -> dict[str, int]:
    """How many rows the demo made of each kind, counted now (a queryset would recount when compared)."""
    from django.contrib.auth import get_user_model

    from arena.bots.models import Bot, BotVersion

    return {"users": get_user_model().objects.count(), "bots": Bot.objects.count(),
            "versions": BotVersion.objects.count(), "matches": Match.objects.count(),
            "variants": Variant.objects.count()}


def test_readme_states_the_demo_passwords():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    for username, (password, _) in ACCOUNTS.items():
        assert f"`{username}` | `{password}`" in readme


def test_demo_data_has_a_graded_assignment_with_a_filled_dashboard(in_process_sandbox):
    from arena.grading.models import GradingRun

    call_command("seed_demo")
    run = GradingRun.objects.get()
    assert run.status == GradingRun.Status.FINISHED and run.grades.count() == 2
    client = Client()
    client.login(username="assistant", password=ACCOUNTS["assistant"][0])
    page = client.get(f"/assignments/{run.assignment.pk}/").content.decode()
    assert 'id="histogram"' in page and "Everyone has submitted." in page
    assert page.count('class="total"') == 2


# --- Stopping the demo -------------------------------------------------------------------------------------
# `scripts/demo` is started for real (web server, Celery worker with its embedded scheduler, the embedded
# SQLite database and filesystem broker) in a session of its own, a rated challenge makes the worker start
# warm sandbox containers, then the signal a person sends: Ctrl-C (SIGINT to the whole foreground process
# group, as a terminal sends it) or `kill` (SIGTERM to the script alone). Everything must be gone in 10 s.

STOP_SECONDS = 10


@pytest.fixture(scope="module")
def demo_var_dir(tmp_path_factory):
    """One var/ for both starts: the second start finds the demo data made and seeds nothing."""
    return tmp_path_factory.mktemp("demo-var")


# "cold": the worker is given no time for a warm shutdown (ARENA_DEMO_STOP_SECONDS=0), as when a match in
# play outlasts it: the cold shutdown's leftovers must go too. "in flight": Ctrl-C while the worker plays a
# match that outlasts the warm shutdown (a slow upload's validation), its containers running.
@pytest.mark.docker  # the demo's worker plays in the sandbox: the full tier's
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm", "cold", "ctrl-c in flight"])
def test_the_demo_stops_with_every_process_and_container_within_10_seconds(how, demo_var_dir):
    import signal

    from platform_helpers import free_port, session_processes, session_sandbox_containers
    from required import require

    import sandbox

    require(sandbox.docker_ready(), "Docker with the sandbox image (python -m sandbox.image build)")
    port = free_port()
    env = {key: value for key, value in os.environ.items()
           if key not in {"DATABASE_URL", "CELERY_BROKER_URL", "ARENA_CACHE_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update({"ARENA_DEMO_SETUP": "0", "ARENA_VAR_DIR": str(demo_var_dir), "PORT": str(port),
                "ARENA_SANDBOX": "docker", **({"ARENA_DEMO_STOP_SECONDS": "0"} if how == "cold" else {})})
    output = demo_var_dir / f"demo-{how}.out"
    with open(output, "w") as out:
        # SIGINT as a terminal leaves it, whoever started the suite: a suite run in the background of a
        # non-interactive shell inherits SIGINT ignored, and a shell started with it ignored can't trap it.
        demo = subprocess.Popen(["scripts/demo"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: demo.poll() is not None or answers(base), 300, "the demo's web server")
        assert demo.poll() is None, output.read_text()[-3000:]
        token = play_a_challenge(base)
        if how.endswith("in flight"):
            upload_a_slow_version(base, token)
        processes = session_processes(demo.pid)
        containers = session_sandbox_containers(processes)
        assert len(processes) >= 5, processes  # the script, the web server, the worker, its pool and beat
        assert containers, "the challenge left warm containers to remove"

        if how.startswith("ctrl-c"):
            os.killpg(demo.pid, signal.SIGINT)
        else:
            demo.send_signal(signal.SIGTERM)
        start = time.monotonic()
        left = None
        while time.monotonic() - start < STOP_SECONDS:
            left = (alive(processes), session_sandbox_containers(processes) & containers)
            if left == ([], set()):
                break
            time.sleep(0.2)
        assert left == ([], set()), (f"{how}: still there after {STOP_SECONDS} s: {left} {commands(left[0])}\n"
                                     f"{(demo_var_dir / 'worker.log').read_text()[-3000:]}")
    finally:
        # Every process of the demo's session, each in a process group of its own (the script's `set -m`),
        # then the containers they leave: a failed stop leaves nothing running for the tests after it.
        for pid in session_processes(demo.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        demo.wait()
        sandbox.cleanup_leftovers()


def answers(base: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"{base}/", timeout=2):
            return True
    except OSError:
        return False


def play_a_challenge(base: str) -> str:
    """alice challenges bob through the API and the worker plays it (in warm Docker containers); alice's API
    token."""
    import json
    import urllib.request

    def call(path, data=None, token=None):
        request = urllib.request.Request(f"{base}/api/{path}", data=json.dumps(data).encode() if data else None,
                                         headers={"Content-Type": "application/json",
                                                  **({"Authorization": f"Token {token}"} if token else {})})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    token = call("auth/token/", {"username": "alice", "password": ACCOUNTS["alice"][0]})["token"]
    bots = {bot["label"]: bot["id"] for bot in call("bots/?game=endgame", token=token)["results"]}
    match = call("matches/", {"bot": bots["alice/greedy"], "opponents": [bots["bob/lookahead"]]}, token=token)
    wait_for(lambda: call(f"matches/{match['id']}/", token=token)["status"] == "finished", 120,
             "the demo worker to play the challenge")
    return token


# Each decision takes most of End Game's second: its validation match lasts well beyond the demo's warm stop.
SLOW_BOT = b"""import time


def act(observation):
    time.sleep(0.8)
    return observation["legal_actions"][0]
"""


def upload_a_slow_version(base: str, token: str) -> None:
    """alice uploads a slow version of her bot; returns once its validation match has been in play a while."""
    import requests

    headers = {"Authorization": f"Token {token}"}
    bots = requests.get(f"{base}/api/bots/?game=endgame&mine=1", headers=headers, timeout=30).json()["results"]
    bot = next(bot for bot in bots if bot["label"] == "alice/greedy")
    uploaded = requests.post(f"{base}/api/bots/{bot['id']}/versions/", headers=headers, timeout=30,
                             files={"file": ("slow.py", SLOW_BOT)})
    assert uploaded.status_code == 201, uploaded.text
    version = uploaded.json()["id"]

    def in_play() -> bool:
        match = requests.get(f"{base}/api/versions/{version}/", headers=headers, timeout=30).json()["validation_match"]
        if match is None:
            return False
        status = requests.get(f"{base}/api/matches/{match}/", headers=headers, timeout=30).json()["status"]
        assert status in {"queued", "running"}, status  # not over before the signal
        return status == "running"

    wait_for(in_play, 60, "the slow version's validation match to start")
    time.sleep(2)  # a few of its decisions played: the match is well under way


def alive(pids: list[int]) -> list[int]:
    """Those of `pids` still running (a zombie has ended)."""
    living = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            living.append(pid)
    return living


def commands(pids: list[int]) -> list[str]:
    """What each of `pids` runs (for a failure's message)."""
    found = []
    for pid in pids:
        try:
            found.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:80])
        except OSError:
            continue
    return found
