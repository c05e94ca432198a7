"""Rated challenges keep the ladder honest: no Elo farming against built-ins or between one owner's bots.

The reported abuse: 12 rated wins against builtin:random took a bot from 1500 to 1638, top of the ladder.
"""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from arena.bots.models import Bot
from arena.matches.models import Match
from platform_helpers import active_bot

pytestmark = pytest.mark.django_db


def challenge(api_client, bot, *opponents, rated=True):
    return api_client.post("/api/matches/", {"bot": bot.pk, "opponents": [o.pk for o in opponents], "rated": rated},
                           format="json")


def test_two_bots_of_one_owner_never_play_rated(api_client, ada):
    first, second = active_bot(ada, name="first"), active_bot(ada, name="second")
    response = challenge(api_client, first, second)
    assert response.status_code == 400
    assert response.json()["detail"] == "a rated match cannot seat two bots of the same owner: play it unrated"
    assert challenge(api_client, first, second, rated=False).status_code == 201


def test_rated_matches_against_built_ins_are_capped_per_day(api_client, ada, settings):
    bot = active_bot(ada)
    builtins = [Bot.objects.builtin("endgame", name) for name in ("random", "greedy", "optimal")]
    for number in range(settings.ARENA_RATED_BUILTIN_PER_DAY):
        assert challenge(api_client, bot, builtins[number % len(builtins)]).status_code == 201
    response = challenge(api_client, bot, builtins[-1])
    assert response.status_code == 400
    assert response.json()["detail"] == (f"ada/mine already played {settings.ARENA_RATED_BUILTIN_PER_DAY} rated "
                                         "matches against built-in bots in the last 24 hours, the most a bot may: "
                                         "play unrated or wait")
    assert challenge(api_client, bot, builtins[0], rated=False).status_code == 201
    # A day later the bot may play rated against them again.
    Match.objects.update(created_at=timezone.now() - timedelta(hours=25))
    assert challenge(api_client, bot, builtins[0]).status_code == 201


def test_rated_matches_per_pair_of_owners_are_capped_per_day(api_client, ada, make_user, settings):
    bob = make_user("bob")
    bot, rival = active_bot(ada), active_bot(bob)
    for _ in range(settings.ARENA_RATED_PER_PAIR_PER_DAY):
        assert challenge(api_client, bot, rival).status_code == 201
    response = challenge(api_client, bot, rival)
    assert response.status_code == 400
    assert response.json()["detail"].startswith(
        f"the bots of ada and bob already played {settings.ARENA_RATED_PER_PAIR_PER_DAY} rated matches")
    # Another of bob's bots (a throwaway) is the same owner: refused too, whichever of ada's bots plays.
    assert challenge(api_client, active_bot(ada, name="other"), active_bot(bob, name="fresh")).status_code == 400
    # A match the platform failed to play does not count.
    Match.objects.filter(rated=True).update(status=Match.Status.SET_ASIDE)
    assert challenge(api_client, bot, rival).status_code == 201


def test_a_multiplayer_table_counts_every_pair(api_client, ada, make_user):
    mine = active_bot(ada, game="crazyking", name="one")
    also_mine = active_bot(ada, game="crazyking", name="two")
    other = active_bot(make_user("bob"), game="crazyking")
    response = challenge(api_client, mine, other, also_mine)
    assert response.status_code == 400 and "same owner" in response.json()["detail"]


def test_the_page_refuses_with_the_reason_and_the_ladder_states_the_rules(client, ada, settings):
    client.force_login(ada)
    first, second = active_bot(ada, name="first"), active_bot(ada, name="second")
    response = client.post(f"/bots/{first.pk}/challenge/", {"opponents": [second.pk], "rated": "on"})
    assert response.status_code == 400
    assert "Challenge refused: a rated match cannot seat two bots of the same owner" in response.content.decode()
    assert not Match.objects.exists()

    ladder = client.get("/ladder/endgame/").content.decode()
    assert "Two bots of the same owner never play each other rated." in ladder
    assert f"at most {settings.ARENA_RATED_PER_PAIR_PER_DAY} times in any 24 hours" in ladder
    assert f"rated against the built-in bots at most {settings.ARENA_RATED_BUILTIN_PER_DAY} times" in ladder


def test_a_second_account_feeding_losses_gains_an_established_bot_at_most_25_points(api_client, make_user, settings):
    """The reported attack: a second account whose throwaway bots lose on purpose gave 84 rating points in 4
    minutes. Now its owner meets the farmer's owner 3 times a day at most, and a result against a newer account
    counts a quarter."""
    from django.test import override_settings

    from arena.matches.services import ChallengeError
    from arena.matches.services import challenge as challenge_service
    from platform_helpers import play_now
    from arena.ratings.models import Rating
    from tournament_helpers import LOOKAHEAD_BOT, accepted_bot

    farmer = make_user("farmer")
    get_user_model().objects.filter(pk=farmer.pk).update(date_joined=timezone.now() - timedelta(days=60))
    farmer.refresh_from_db()
    main = accepted_bot(farmer, "endgame", "main", LOOKAHEAD_BOT)
    Rating.objects.create(bot=main, value=1500, played=30)  # an established bot
    feeder = make_user("feeder")  # made today
    gained, refused = 0.0, 0
    with override_settings(ARENA_SANDBOX="none"):
        for number in range(20):
            loser = accepted_bot(feeder, "endgame", f"throwaway{number}", LOSER)
            try:
                match = play_now(challenge_service(farmer, main, [loser], rated=True))
            except ChallengeError as exc:
                assert "already played" in str(exc)
                refused += 1
                continue
            seat = match.seats.get(bot=main)
            gained += seat.rating_after - seat.rating_before
    assert refused == 20 - settings.ARENA_RATED_PER_PAIR_PER_DAY
    assert 0 < gained <= 25


LOSER = "def act(o):\n    raise RuntimeError('losing on purpose')\n"  # a crash loses the match
