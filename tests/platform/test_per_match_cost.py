"""The work a worker does for every match stays small: recording a result costs a fixed handful of
database statements, and advancing a tournament after a game never reads the games' replays.

A worker records thousands of matches an hour; each statement is a round trip inside the transaction that
holds the seats' rating rows locked. The seats loaded to play the match are the ones the receivers read
(ratings, notifications, validation), so nothing is fetched twice. A tournament advances after every
game; a long card game's replay is megabytes of JSON that the advance has no use for.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.matches import services
from arena.matches.models import Match
from arena.notifications.models import Notification
from platform_helpers import active_bot
from arena.ratings.models import Rating
from tournament_helpers import course_with_bots, entered
from arena.tournaments import services as tournament_services
from arena.tournaments.models import Series

pytestmark = pytest.mark.django_db

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")

# Reading the seats (with bots, owners, versions) to play; then the match, the seats' results, the ratings
# (lock the rows, write them, and the seats' before and after) and the inbox. A bot's first rated match
# creates its rating row too (2 statements more).
RATED_CHALLENGE_STATEMENTS = 7


def statements(queries) -> list[str]:
    return [query["sql"] for query in queries if not query["sql"].startswith(TRANSACTION_CONTROL)]


def test_a_rated_challenge_is_played_and_recorded_in_a_fixed_number_of_statements(make_user, in_process_sandbox,
                                                                                    settings):
    settings.ARENA_SPECTATOR_INTERVAL_SECONDS = 3600
    ada, bob = make_user("ada"), make_user("bob")
    mine, theirs = active_bot(ada, name="mine"), active_bot(bob, name="theirs")
    first = services.create_match("endgame", [mine, theirs], purpose=Match.Purpose.LADDER, rated=True)
    assert services.run(services.claim(first.pk))  # the bots' first rated match creates their ratings
    match = services.create_match("endgame", [mine, theirs], purpose=Match.Purpose.LADDER, rated=True)
    claimed = services.claim(match.pk)
    before_sigma = {bot_id: sigma for bot_id, sigma in Rating.objects.values_list("bot_id", "sigma")}

    with CaptureQueriesContext(connection) as queries:
        assert services.run(claimed)

    # What spectators see is saved in Redis, or without it in a row: one statement at the end, and
    # at most one more every ARENA_SPECTATOR_INTERVAL_SECONDS of play (none here: the interval is long).
    spectators = 0 if settings.ARENA_LIVE_REDIS_URL else 1
    assert len(statements(queries)) <= RATED_CHALLENGE_STATEMENTS + spectators, "\n".join(statements(queries))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.replay["events"]
    seats = list(match.seats.order_by("seat"))
    ratings = {rating.bot_id: rating for rating in Rating.objects.all()}
    before = {seat.bot_id: seat.rating_after for seat in first.seats.all()}
    for seat in seats:
        assert seat.decisions > 0 and seat.placing in (1, 2)
        assert seat.rating_before == before[seat.bot_id] and seat.rating_after == ratings[seat.bot_id].value
        assert ratings[seat.bot_id].played == 2
    assert all(rating.sigma < before_sigma[bot_id] for bot_id, rating in ratings.items()), "each match teaches"
    # A ladder match, one of many a day the platform plays, tells nobody (a challenge does).
    assert not Notification.objects.filter(url=f"/matches/{match.pk}/").exists()


def test_a_bots_first_rated_match_creates_its_rating(make_user, in_process_sandbox):
    ada, bob = make_user("ada"), make_user("bob")
    rated_before = active_bot(ada, name="veteran")
    match = services.create_match("endgame", [rated_before, active_bot(bob, name="new")], purpose="ladder",
                                  rated=True)
    assert services.run(services.claim(match.pk))
    again = services.create_match("endgame", [rated_before, active_bot(bob, name="newer")], purpose="ladder",
                                  rated=True)
    assert services.run(services.claim(again.pk))

    assert {rating.bot.name: rating.played for rating in Rating.objects.select_related("bot")} == {
        "veteran": 2, "new": 1, "newer": 1}


def test_the_seats_a_receiver_reads_are_the_recorded_ones(make_user, in_process_sandbox):
    """The receivers read the seats loaded before the match was played: they must carry its result."""
    from arena.matches.signals import match_finished

    ada, bob = make_user("ada"), make_user("bob")
    match = services.challenge(ada, active_bot(ada), [active_bot(bob)], rated=False)
    seen = []

    def receiver(sender, match, **kwargs):
        seen.extend((seat.seat, seat.placing, seat.decisions, seat.bot.owner.username) for seat in match.seats.all())

    match_finished.connect(receiver)
    try:
        assert services.run(services.claim(match.pk))
    finally:
        match_finished.disconnect(receiver)
    stored = [(seat.seat, seat.placing, seat.decisions, seat.bot.owner.username)
              for seat in match.seats.select_related("bot__owner").order_by("seat")]
    assert seen == stored and all(placing is not None for _, placing, _, _ in seen)


def test_advancing_a_tournament_after_a_game_never_reads_a_replay(make_user, in_process_sandbox):
    course, instructor, bots = course_with_bots(make_user, "endgame", 3)
    tournament = entered(instructor, course, bots, game="endgame", format="round-robin", games_per_series=2)
    tournament_services.start(instructor, tournament)
    series = tournament.series.filter(status=Series.Status.PLAYING).first()
    for game in series.games.all():
        services.run(services.claim(game.match_id))

    with CaptureQueriesContext(connection) as queries:
        tournament_services.advance(tournament.pk, series.pk)

    series.refresh_from_db()
    assert series.status == Series.Status.DECIDED  # the advance did read the games' results
    assert not [sql for sql in statements(queries) if '"replay"' in sql]
