"""Operators re-queue and cancel matches from the Django admin; finished matches are never re-run."""

import pytest

from arena.bots.models import Bot
from arena.matches import services
from arena.matches.models import Match
from platform_helpers import play_now

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("op", password="operator-pass-1234"))
    return client


def new_match() -> Match:
    bots = [Bot.objects.builtin("endgame", "greedy"), Bot.objects.builtin("endgame", "random")]
    return services.create_match("endgame", bots, purpose=Match.Purpose.CHALLENGE, rated=True)


def admin_action(client, action: str, *matches: Match):
    return client.post("/admin/matches/match/", {"action": action, "_selected_action": [m.pk for m in matches]},
                       follow=True)


def test_cancel_then_requeue_from_the_admin(operator_client):
    queued, finished = new_match(), play_now(new_match())
    response = admin_action(operator_client, "cancel_matches", queued, finished)
    assert "1 match(es) cancelled" in response.content.decode()
    queued.refresh_from_db()
    assert queued.status == Match.Status.CANCELLED

    response = admin_action(operator_client, "requeue_matches", queued, finished)
    assert "1 match(es) re-queued" in response.content.decode()
    queued.refresh_from_db()
    finished.refresh_from_db()
    assert (queued.status, finished.status) == (Match.Status.QUEUED, Match.Status.FINISHED)
    assert play_now(queued).status == Match.Status.FINISHED


def test_students_cannot_open_the_admin(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("student", password="student-pass-1234"))
    assert client.get("/admin/matches/match/").status_code == 302


def test_an_operator_finds_a_set_aside_match_reads_its_fault_and_requeues_it(operator_client, monkeypatch, settings):
    from platform_helpers import failing_on_the_platform

    broken, fine = new_match(), play_now(new_match())
    with monkeypatch.context() as patched:
        failing_on_the_platform(patched, broken)
        for _ in range(settings.ARENA_MATCH_MAX_ATTEMPTS):
            play_now(broken)
    assert broken.status == Match.Status.SET_ASIDE

    listed = operator_client.get("/admin/matches/match/", {"status__exact": "set_aside"}).content.decode()
    assert f"/admin/matches/match/{broken.pk}/change/" in listed and f"/match/{fine.pk}/change/" not in listed
    assert "RuntimeError: the sandbox engine fell over" in listed  # its reason, in the list
    page = operator_client.get(f"/admin/matches/match/{broken.pk}/change/").content.decode()
    assert "Traceback (most recent call last)" in page and "in play" in page  # where it raised

    response = admin_action(operator_client, "requeue_matches", broken)
    assert "1 match(es) re-queued" in response.content.decode()
    broken.refresh_from_db()
    assert (broken.status, broken.attempts, broken.error) == (Match.Status.QUEUED, 0, "")
    assert play_now(broken).status == Match.Status.FINISHED
