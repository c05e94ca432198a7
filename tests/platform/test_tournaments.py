"""Tournaments on the platform, played in this process: the state machine, seats, freezing, steering."""

import pytest
from games import get_game

from arena.bots.models import Bot
from arena.matches.models import Match, MatchSeat
from platform_helpers import EXAMPLE_BOT, failing_on_the_platform, play_now
from tournament_helpers import accepted_bot, course_with_bots, entered, play_out
from arena.tournaments import services
from arena.tournaments.models import Series, Tournament
from arena.tournaments.signals import tournament_status_changed

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def trusted_bots(in_process_sandbox):
    """The tests' own bots run as plain processes here; the sandboxed runs are in test_tournaments_live."""


def test_a_single_elimination_plays_n_minus_one_series_to_a_champion(make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 5)
    tournament = entered(instructor, course, bots, game="endgame", format="single-elimination",
                         games_per_series=2)
    services.start(instructor, tournament)
    tournament = play_out(tournament)

    assert tournament.status == Tournament.Status.FINISHED
    played = tournament.series.filter(bye=False)
    assert played.count() == 4  # n - 1
    assert tournament.series.filter(bye=True).count() == 3  # 8 places, 5 entrants: byes to the top 3 seeds
    final = played.order_by("-round").first()
    assert tournament.champion.seed == final.winner
    for row in played:
        games = list(row.games.select_related("match"))
        assert len(games) >= 2 and len(games) % 2 == 0
        # Each pair of games shares one board with the seats swapped: every bot moves first once.
        for first, second in zip(games[::2], games[1::2]):
            assert first.match.seed == second.match.seed
            assert first.seats == second.seats[::-1]
        assert all(g.match.purpose == Match.Purpose.TOURNAMENT and not g.match.rated for g in games)


def test_entrants_are_frozen_at_the_start_and_a_bot_without_a_valid_version_is_withdrawn(make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 3)
    late = Bot.objects.create(owner=bots[0].owner, game="endgame", name="unvalidated")
    tournament = entered(instructor, course, [*bots, late], game="endgame", format="round-robin",
                         games_per_series=2)
    services.start(instructor, tournament)

    frozen = {e.bot_id: e.version for e in tournament.entrants.all()}
    assert frozen[late.pk] is None and tournament.entrants.get(bot=late).withdrawn
    # A newer version uploaded after the start changes nothing: the tournament plays the frozen one.
    newer = accepted_bot(bots[0].owner, "endgame", "other", "def act(o):\n    return 'left'\n").versions.get()
    newer.bot = bots[0]
    newer.number = 2
    newer.save()
    tournament = play_out(tournament)
    played_versions = set(MatchSeat.objects.filter(match__series_game__series__tournament=tournament, bot=bots[0])
                          .values_list("version", flat=True))
    assert played_versions == {frozen[bots[0].pk].pk}
    # The withdrawn bot lost every series without a game.
    withdrawn_seed = tournament.entrants.get(bot=late).seed
    walkovers = [row for row in tournament.series.all() if withdrawn_seed in row.entrants]
    assert walkovers and all(row.walkover and not row.games.exists() for row in walkovers)
    assert tournament.status == Tournament.Status.FINISHED


def test_a_rated_tournament_changes_elo_and_an_unrated_one_does_not(make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 2)
    unrated = entered(instructor, course, bots, game="endgame", format="round-robin", games_per_series=2)
    services.start(instructor, unrated)
    play_out(unrated)
    assert not Match.objects.filter(seats__rating_after__isnull=False).exists()

    rated = entered(instructor, course, bots, game="endgame", format="round-robin", games_per_series=2,
                    rated=True, name="Rated cup")
    services.start(instructor, rated)
    play_out(rated)
    assert Match.objects.filter(series_game__series__tournament=rated, seats__rating_after__isnull=False).exists()


def test_advance_is_idempotent_and_a_cancelled_game_is_played_again(make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 4)
    tournament = entered(instructor, course, bots, game="endgame", format="single-elimination")
    services.start(instructor, tournament)
    games_before = Match.objects.filter(series_game__series__tournament=tournament).count()
    for _ in range(3):
        services.advance(tournament.pk)
    assert Match.objects.filter(series_game__series__tournament=tournament).count() == games_before == 4

    failed = Match.objects.filter(series_game__series__tournament=tournament).first()
    Match.objects.filter(pk=failed.pk).update(status=Match.Status.CANCELLED)  # by an operator
    services.advance(tournament.pk)
    failed.refresh_from_db()
    assert failed.status == Match.Status.QUEUED
    assert play_out(tournament).status == Tournament.Status.FINISHED


def test_pause_cancels_queued_games_and_resume_plays_them(make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 4)
    tournament = entered(instructor, course, bots, game="endgame", format="round-robin")
    services.start(instructor, tournament)
    services.pause(instructor, tournament)
    games = Match.objects.filter(series_game__series__tournament=tournament)
    assert set(games.values_list("status", flat=True)) == {Match.Status.CANCELLED}
    services.advance(tournament.pk)  # a paused tournament creates nothing
    assert set(games.values_list("status", flat=True)) == {Match.Status.CANCELLED}

    services.resume(instructor, tournament)
    assert set(games.values_list("status", flat=True)) == {Match.Status.QUEUED}
    tournament = play_out(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.series.filter(bye=False).count() == 6  # 4 entrants meet pairwise once


def test_every_status_change_is_announced_once_with_the_status_before_and_the_cancel_too(make_user):
    heard = []

    def receiver(sender, tournament, previous, status, **kwargs):
        # Sent inside the change's transaction: the row already holds the new status.
        heard.append((tournament.name, previous, status, Tournament.objects.get(pk=tournament.pk).status))

    tournament_status_changed.connect(receiver)
    try:
        course, instructor, bots = course_with_bots(make_user, "endgame", 3)
        cup = entered(instructor, course, bots, game="endgame", format="round-robin")
        services.start(instructor, cup)
        services.pause(instructor, cup)
        services.resume(instructor, cup)
        services.cancel(instructor, cup)
        with pytest.raises(services.TournamentConflict):
            services.cancel(instructor, cup)  # already over: refused, and nothing announced
        final = play_out(services.start(instructor, entered(instructor, course, bots[:2], name="Final",
                                                            game="endgame", format="single-elimination")))
    finally:
        tournament_status_changed.disconnect(receiver)
    assert heard == [("Cup", "draft", "running", "running"), ("Cup", "running", "paused", "paused"),
                     ("Cup", "paused", "running", "running"), ("Cup", "running", "cancelled", "cancelled"),
                     ("Final", "draft", "running", "running"), ("Final", "running", "finished", "finished")]
    assert final.champion is not None


def test_only_the_course_instructors_steer_and_bad_setups_are_refused(make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 2)
    student = bots[0].owner
    with pytest.raises(services.TournamentError, match="instructors"):
        services.create_tournament(student, course, name="Mine", game="endgame", format="round-robin")
    with pytest.raises(services.TournamentError, match="3 to 6"):
        services.create_tournament(instructor, course, name="Heats", game="crazyking", format="heats",
                                   players_per_game=2)
    with pytest.raises(services.TournamentError, match="played by"):
        services.create_tournament(instructor, course, name="Heats", game="endgame", format="heats")
    tournament = entered(instructor, course, bots[:1], game="endgame", format="round-robin")
    with pytest.raises(services.TournamentError, match="at least two"):
        services.start(instructor, tournament)
    with pytest.raises(services.TournamentError, match="instructors"):
        services.start(student, tournament)
    outsider = accepted_bot(make_user("outsider"), "endgame", "x", "def act(o):\n    return 'left'\n")
    with pytest.raises(services.TournamentError, match="nobody of"):
        services.add_entrant(instructor, tournament, outsider)


def test_heats_seat_pods_and_send_the_best_to_a_final_table(make_user):
    course, instructor, _ = course_with_bots(make_user, "crazyking", 0)
    bots = [Bot.objects.builtin("crazyking", name) for name in sorted(get_game("crazyking").builtin_bots())]
    tournament = entered(instructor, course, bots, game="crazyking", format="heats", players_per_game=3,
                         advance=1, games_per_series=3)
    services.start(instructor, tournament)
    tournament = play_out(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    final = tournament.series.order_by("-round").first()
    assert final.status == Series.Status.DECIDED and tournament.champion.seed == final.winner


def test_a_level_round_robin_series_ends_drawn_after_its_games_while_elimination_breaks_the_tie(make_user):
    same = (EXAMPLE_BOT.decode(),)  # one strategy on both sides, seats swapped on one board: always level
    course, instructor, bots = course_with_bots(make_user, "endgame", 2, codes=same)
    league = entered(instructor, course, bots, game="endgame", format="round-robin", games_per_series=2)
    services.start(instructor, league)
    league = play_out(league)
    series = league.series.get()
    assert series.games.count() == 2
    assert series.placings == {"0": 1, "1": 1} and series.points == {"0": 0.5, "1": 0.5}
    assert series.winner is None

    cup = entered(instructor, course, bots, game="endgame", format="single-elimination", games_per_series=2,
                  name="Cup 2")
    services.start(instructor, cup)
    cup = play_out(cup)
    final = cup.series.get()
    assert final.winner == 0, "level on games and points after the extra games: the higher seed goes on"
    assert final.games.count() > 2, "the tie-break played more games before falling back on the seed"


def test_a_finished_game_advances_only_its_own_series_and_the_sweep_looks_at_all(make_user, monkeypatch):
    course, instructor, bots = course_with_bots(make_user, "endgame", 4)
    tournament = entered(instructor, course, bots, game="endgame", format="round-robin")
    services.start(instructor, tournament)
    first, second = list(tournament.series.order_by("id"))[:2]
    failed = second.games.first().match
    Match.objects.filter(pk=failed.pk).update(status=Match.Status.CANCELLED)  # by an operator

    published = []
    monkeypatch.setattr(services, "publish_on_commit", lambda task, *args, **options: published.append((task, args)))
    play_now(first.games.first().match)  # recording it sends match_finished, whose receiver publishes
    assert published == [("tournaments.tasks.advance_tournament", (tournament.pk, first.pk))]

    services.advance(tournament.pk, first.pk)
    assert Match.objects.get(pk=failed.pk).status == Match.Status.CANCELLED, "another series was not looked at"
    services.advance(tournament.pk)  # the periodic sweep
    assert Match.objects.get(pk=failed.pk).status == Match.Status.QUEUED


def test_a_set_aside_game_holds_its_series_while_the_rest_plays_on_until_the_staff_replay_it(
        make_user, monkeypatch, settings, client, api_client):
    from django.urls import reverse

    from arena.notifications.models import Notification

    course, instructor, bots = course_with_bots(make_user, "endgame", 4)
    tournament = entered(instructor, course, bots, game="endgame", format="round-robin", games_per_series=2)
    services.start(instructor, tournament)
    held = tournament.series.order_by("id").first()
    broken = held.games.order_by("index").first().match
    games = Match.objects.filter(series_game__series__tournament=tournament)
    with monkeypatch.context() as patched:
        failing_on_the_platform(patched, broken)
        while (match := games.filter(status=Match.Status.QUEUED).order_by("id").first()) is not None:
            play_now(match)
            services.advance(tournament.pk)

    # Never paused: every other series was played and decided; the held one waits, nothing is rated.
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING, tournament.note
    broken.refresh_from_db()
    assert (broken.status, broken.attempts) == (Match.Status.SET_ASIDE, settings.ARENA_MATCH_MAX_ATTEMPTS)
    assert "the sandbox engine fell over" in broken.error
    assert tournament.series.filter(status=Series.Status.DECIDED).count() == 5
    held.refresh_from_db()
    assert held.status == Series.Status.PLAYING
    assert set(broken.seats.values_list("status", flat=True)) == {""}  # no seat's verdict: nobody lost it
    told = Notification.objects.filter(kind=Notification.Kind.SET_ASIDE)
    assert [n.user for n in told] == [instructor] and told.get().url == reverse("tournaments:detail",
                                                                                 args=[tournament.pk])
    client.force_login(instructor)
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert "incomplete: platform error" in page and "Play the set-aside games again" in page
    api_client.force_authenticate(instructor)
    shown = {row["key"]: row for row in api_client.get(f"/api/tournaments/{tournament.pk}/series/").json()}
    assert (shown[held.key]["status"], shown[held.key]["note"]) == ("held", "incomplete: platform error")
    assert api_client.get(f"/api/tournaments/{tournament.pk}/").json()["progress"]["held"] == 1

    # A student cannot replay it; the instructor, once it is fixed, does, and the tournament ends.
    student = api_as(bots[1].owner)
    assert student.post(f"/api/tournaments/{tournament.pk}/replay/").status_code == 403
    response = api_client.post(f"/api/tournaments/{tournament.pk}/replay/")
    assert response.status_code == 200, response.json()
    assert Match.objects.get(pk=broken.pk).status == Match.Status.QUEUED
    tournament = play_out(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.series.filter(status=Series.Status.DECIDED).count() == 6
    assert set(games.values_list("status", flat=True)) == {Match.Status.FINISHED}
    again = api_client.post(f"/api/tournaments/{tournament.pk}/replay/")
    assert again.status_code == 409  # a finished tournament plays nothing more


def api_as(user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user)
    return client


def test_an_elimination_bracket_plays_up_to_the_held_series_and_the_page_button_replays_it(make_user, monkeypatch,
                                                                                           client):
    from django.urls import reverse

    course, instructor, bots = course_with_bots(make_user, "endgame", 4)
    tournament = entered(instructor, course, bots, game="endgame", format="single-elimination", games_per_series=2)
    services.start(instructor, tournament)
    held, other = list(tournament.series.filter(bye=False).order_by("id"))
    broken = held.games.order_by("index").first().match
    games = Match.objects.filter(series_game__series__tournament=tournament)
    with monkeypatch.context() as patched:
        failing_on_the_platform(patched, broken)
        while (match := games.filter(status=Match.Status.QUEUED).order_by("id").first()) is not None:
            play_now(match)
            services.advance(tournament.pk)

    other.refresh_from_db()
    held.refresh_from_db()
    assert (other.status, held.status) == (Series.Status.DECIDED, Series.Status.PLAYING)
    assert tournament.series.count() == 2, "the final waits for the held semi-final's winner"
    client.force_login(instructor)
    response = client.post(reverse("tournaments:steer", args=[tournament.pk, "replay"]))
    assert response.status_code == 302
    tournament = play_out(tournament)
    assert tournament.status == Tournament.Status.FINISHED and tournament.series.count() == 3


def test_heats_that_can_never_narrow_a_larger_field_are_refused_at_creation_not_at_the_start(make_user, client):
    course, instructor, _ = course_with_bots(make_user, "crazyking", 0)
    with pytest.raises(services.TournamentError, match=r"pods of 3 and 2 advancing cannot narrow 4 entrants"):
        services.create_tournament(instructor, course, name="Heats", game="crazyking", format="heats",
                                   players_per_game=3, advance=2)
    client.force_login(instructor)
    response = client.post(f"/courses/{course.pk}/tournaments/", {
        "name": "Heats", "game": "crazyking", "format": "heats", "players_per_game": 3, "advance": 2,
        "games_per_series": 2, "visibility": "live", "seeding": "rating", "spectator_delay": 0})
    assert response.status_code == 400 and "cannot narrow 4 entrants" in response.content.decode()
    assert not course.tournaments.exists()


@pytest.mark.parametrize("format", ["round-robin", "single-elimination", "double-elimination", "swiss", "heats"])
def test_a_cooperative_game_is_refused_with_what_to_use_instead(make_user, client, format):
    course, instructor, _ = course_with_bots(make_user, "sorted", 0)
    with pytest.raises(services.TournamentError, match=r"Sorted! is cooperative.*ladder.*team score"):
        services.create_tournament(instructor, course, name="Team cup", game="sorted", format=format)
    client.force_login(instructor)
    form = client.get(f"/courses/{course.pk}/tournaments/").content.decode()
    assert 'value="sorted"' not in form and 'value="endgame"' in form
