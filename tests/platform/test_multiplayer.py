"""Matches of more than two seats: seats, placings, pairwise Elo and per-seat replay views."""

import pytest
from games import available_games

from arena.bots.models import Bot
from arena.matches import services
from arena.matches.models import Match
from platform_helpers import play_now

pytestmark = pytest.mark.django_db

# Games a three-seat table can play (Sorted! seats exactly four).
MULTIPLAYER = sorted(name for name, game in available_games().items() if game.min_players <= 3 <= game.max_players)


@pytest.mark.parametrize("game", MULTIPLAYER)
def test_a_three_seat_rated_match_is_recorded_and_replayed_per_seat(game, api_client, make_user):
    bots = [Bot.objects.builtin(game, name) for name in sorted(available_games()[game].builtin_bots())][:3]
    assert len(bots) == 3, f"{game} needs three built-in bots for this test"
    match = play_now(services.create_match(game, bots, purpose=Match.Purpose.LADDER, rated=True))
    assert match.status == Match.Status.FINISHED, match.error

    seats = list(match.seats.all())
    assert sorted(seat.seat for seat in seats) == [0, 1, 2]
    assert all(seat.status and seat.placing for seat in seats)
    # One ranking of the whole table (Plackett-Luce): from equal ratings, a better placing never ends lower.
    by_placing = sorted(seats, key=lambda seat: seat.placing)
    for better, worse in zip(by_placing, by_placing[1:]):
        assert better.rating_after >= worse.rating_after
    assert by_placing[0].rating_after > by_placing[0].rating_before > by_placing[-1].rating_after

    api_client.force_authenticate(make_user("viewer"))
    full = api_client.get(f"/api/matches/{match.pk}/replay/").json()
    seat_view = api_client.get(f"/api/matches/{match.pk}/replay/", {"seat": 1}).json()
    assert len(full["frames"]) == len(seat_view["frames"]) > 1
    assert full["frames"][1]["view"] != seat_view["frames"][1]["view"]
    assert api_client.get(f"/api/matches/{match.pk}/replay/", {"seat": 3}).status_code == 400


def test_a_seat_view_of_a_sortinggame_replay_names_no_card_of_another_hand(api_client, make_user):
    bots = [Bot.objects.builtin("sortinggame", name) for name in ("honest", "random", "shrewd")]
    match = play_now(services.create_match("sortinggame", bots, purpose=Match.Purpose.CHALLENGE, rated=False))
    api_client.force_authenticate(make_user("viewer"))
    full = api_client.get(f"/api/matches/{match.pk}/replay/").json()
    seat_view = api_client.get(f"/api/matches/{match.pk}/replay/", {"seat": 0}).json()
    others = [frame["event"] for frame in full["frames"] if frame["event"] and frame["event"]["seat"] != 0]
    assert any((event.get("analysis") or {}).get("text") for event in others), "the full view explains every ruling"
    for frame in seat_view["frames"]:
        event = frame["event"]
        if event and event["seat"] != 0:
            assert event.get("analysis") is None


def test_a_table_that_meets_again_rotates_so_each_bot_sits_in_every_seat_equally_often():
    bots = [Bot.objects.builtin("crazyking", name) for name in sorted(available_games()["crazyking"].builtin_bots())]
    for _ in range(2 * len(bots)):
        services.create_match("crazyking", bots, purpose=Match.Purpose.CHALLENGE, rated=False)
    # Another table (a subset) does not count as the same one.
    services.create_match("crazyking", bots[:2], purpose=Match.Purpose.CHALLENGE, rated=False)
    for bot in bots:
        seats = sorted(Match.objects.between(bots).filter(seats__bot=bot).values_list("seats__seat", flat=True))
        assert seats == sorted(list(range(len(bots))) * 2), bot
