"""The demo data that README's first command starts with."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from accounts.models import Course
from matches.models import Match
from tournaments.models import Tournament
from variants.models import Variant
from web.management.commands.seed_demo import ACCOUNTS

pytestmark = pytest.mark.django_db


def test_demo_data_signs_in_with_the_readme_passwords_and_has_finished_matches(in_process_sandbox):
    call_command("seed_demo")
    for username, (password, _) in ACCOUNTS.items():
        assert Client().login(username=username, password=password), username
    finished = Match.objects.filter(status=Match.Status.FINISHED)
    assert {"endgame", "crazyking", "sortinggame", "sorted", "sprouts"} <= set(finished.values_list("game", flat=True))
    assert not Match.objects.exclude(status=Match.Status.FINISHED).exists()
    assert Variant.objects.filter(course__code="algo-demo", game="sortinggame").count() == 1
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

    before = counts()
    call_command("seed_demo")  # a second start adds nothing
    assert counts() == before


def counts() -> dict[str, int]:
    """How many rows the demo made of each kind, counted now (a queryset would recount when compared)."""
    from django.contrib.auth import get_user_model

    from bots.models import Bot, BotVersion

    return {"users": get_user_model().objects.count(), "bots": Bot.objects.count(),
            "versions": BotVersion.objects.count(), "matches": Match.objects.count(),
            "variants": Variant.objects.count()}


def test_readme_states_the_demo_passwords():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    for username, (password, _) in ACCOUNTS.items():
        assert f"`{username}` | `{password}`" in readme


def test_demo_data_has_a_graded_assignment_with_a_filled_dashboard(in_process_sandbox):
    from grading.models import GradingRun

    call_command("seed_demo")
    run = GradingRun.objects.get()
    assert run.status == GradingRun.Status.FINISHED and run.grades.count() == 2
    client = Client()
    client.login(username="assistant", password=ACCOUNTS["assistant"][0])
    page = client.get(f"/assignments/{run.assignment.pk}/").content.decode()
    assert 'id="histogram"' in page and "Everyone has submitted." in page
    assert page.count('class="total"') == 2
