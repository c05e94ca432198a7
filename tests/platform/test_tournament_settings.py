"""Tournament settings on the platform: the pure format code decides what can run (as the offline CLI does),
a draft whose settings cannot run with its entrants says why at once, and progress counts come from the
format. Every page of every tournament answers (a hang is caught by the test's time limit; how fast is bench's business)."""

import pytest
from django.db import transaction
from django.test import override_settings
from hypothesis import HealthCheck, given, settings, strategies as st

from tournament_helpers import course_with_bots, entered
from arena.tournaments import services
from arena.tournaments.models import Tournament
from quick_tier import examples

pytestmark = pytest.mark.django_db
ANY_CODE = "def act(observation):\n    return observation['legal_actions'][0]\n"


@pytest.fixture(autouse=True)
def streams_end_at_once():
    """The live part (/live/, a stream) sends what it shows now and ends, rather than following a running
    tournament for a minute."""
    with override_settings(ARENA_LIVE_STREAM_SECONDS=0):
        yield


def pages(client, api_client, tournament) -> dict[str, str]:
    """The texts of the tournament's page, its live part and its API answer, each answered 200."""
    texts = {}
    for name, get in (("page", lambda: client.get(f"/tournaments/{tournament.pk}/")),
                      ("live", lambda: client.get(f"/tournaments/{tournament.pk}/live/")),
                      ("api", lambda: api_client.get(f"/api/tournaments/{tournament.pk}/"))):
        response = get()
        assert response.status_code == 200, name
        texts[name] = b"".join(response.streaming_content if response.streaming else [response.content]).decode()
    return texts


@pytest.mark.timeout(60)
def test_heats_that_cannot_narrow_four_entrants_answer_at_once_and_refuse_to_start(client, api_client, make_user):
    """A draft saved before creation checked every field size (such settings are refused at creation now:
    test_tournaments.py) still says why on its pages and refuses to start."""
    course, instructor, bots = course_with_bots(make_user, "crazyking", 4, codes=(ANY_CODE,))
    tournament = entered(instructor, course, bots, game="crazyking", format="heats", players_per_game=3, advance=1)
    Tournament.objects.filter(pk=tournament.pk).update(advance=2)
    tournament.refresh_from_db()
    client.force_login(instructor)
    api_client.force_authenticate(instructor)
    texts = pages(client, api_client, tournament)
    reason = "cannot narrow 4 entrants down"
    assert reason in texts["page"] and reason in texts["api"]
    with pytest.raises(services.TournamentError, match=reason):
        services.start(instructor, tournament)


def test_options_no_field_can_play_are_refused_at_creation_with_the_formats_reason(make_user):
    course, instructor, _ = course_with_bots(make_user, "crazyking", 0)
    with pytest.raises(services.TournamentError, match="advance must be 1 to pod size - 1"):
        services.create_tournament(instructor, course, name="x", game="crazyking", format="heats",
                                   players_per_game=3, advance=3)
    with pytest.raises(services.TournamentError, match="without rematches"):
        services.create_tournament(instructor, course, name="x", game="endgame", format="swiss", rounds=40)


def test_progress_counts_the_series_the_format_plays(client, make_user):
    course, instructor, bots = course_with_bots(make_user, "crazyking", 10, codes=(ANY_CODE,))
    heats = entered(instructor, course, bots, game="crazyking", format="heats", players_per_game=4, advance=2)
    services.start(instructor, heats)
    client.force_login(instructor)
    # 10 by pods of 4, 2 going on: pods 4 3 3, then 6 in pods 3 3, then a final table: 6 series.
    live = client.get(f"/tournaments/{heats.pk}/live/")
    assert "0 of 6 series decided" in b"".join(live.streaming_content).decode()


FORMAT_CASES = st.sampled_from(Tournament.Format.values).flatmap(lambda format: st.tuples(
    st.just(format), st.integers(2, 8),
    st.fixed_dictionaries({"rounds": st.integers(1, 5)}) if format == "swiss" else
    st.fixed_dictionaries({"players_per_game": st.integers(3, 5), "advance": st.integers(1, 4)})
    if format == "heats" else st.just({})))


@pytest.mark.timeout(300)
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=FORMAT_CASES)
def test_every_setting_is_refused_with_a_message_or_its_pages_answer(client, api_client, make_user, case):
    format, count, options = case
    with transaction.atomic():  # each example starts from an empty course
        course, instructor, bots = course_with_bots(make_user, "crazyking", count, codes=(ANY_CODE,))
        client.force_login(instructor)
        api_client.force_authenticate(instructor)
        try:
            tournament = entered(instructor, course, bots, game="crazyking", format=format, **options)
        except services.TournamentError as refusal:
            assert str(refusal)
        else:
            pages(client, api_client, tournament)
            try:
                services.start(instructor, tournament)
            except services.TournamentError as refusal:
                assert str(refusal)
            else:
                texts = pages(client, api_client, tournament)
                assert f"of {services.format_of(tournament).series_bound()} series decided" in texts["live"]
        transaction.set_rollback(True)
