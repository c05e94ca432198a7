"""The demo data that README's first command starts with."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from matches.models import Match
from variants.models import Variant
from web.management.commands.seed_demo import ACCOUNTS

pytestmark = pytest.mark.django_db


def test_demo_data_signs_in_with_the_readme_passwords_and_has_finished_matches(in_process_sandbox):
    call_command("seed_demo")
    for username, (password, _) in ACCOUNTS.items():
        assert Client().login(username=username, password=password), username
    finished = Match.objects.filter(status=Match.Status.FINISHED)
    assert {"endgame", "crazyking", "sortinggame"} <= set(finished.values_list("game", flat=True))
    assert not Match.objects.exclude(status=Match.Status.FINISHED).exists()
    assert Variant.objects.filter(course__code="algo-demo", game="sortinggame").count() == 1

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
