"""A cooperative game on the platform (Sorted!): one bot fills the team, validation, and a ladder that rates
each rated match as the team's result against the game's exact optimum (ratings/skill.py)."""

import pytest

from arena.bots.models import Bot
from arena.matches import services
from arena.matches.models import Match
from platform_helpers import play_now
from tournament_helpers import accepted_bot

pytestmark = pytest.mark.django_db

EXAMPLE = open("docs/bots/examples/sorted_example.py").read()


def test_one_bot_plays_every_seat_of_a_sorted_team_and_the_ladder_rates_the_team_against_the_optimum(
        make_user, api_client, client, in_process_sandbox):
    alice = make_user("alice")
    mine = accepted_bot(alice, "sorted", "team", EXAMPLE)
    match = play_now(services.challenge(alice, mine, []))
    assert match.status == Match.Status.FINISHED, match.error
    assert [seat.bot_id for seat in match.seats.order_by("seat")] == [mine.pk] * 4
    scores = {seat.score for seat in match.seats.all()}
    assert len(scores) == 1, "every seat gets the team's score"
    assert not match.rated and not match.seats.filter(rating_after__isnull=False).exists(), "practice is unrated"

    helper = Bot.objects.builtin("sorted", "helper")
    with pytest.raises(services.ChallengeError, match="each teammate"):
        services.challenge(alice, mine, [helper, helper, helper])
    planners = [Bot.objects.builtin("sorted", "planner")]
    with pytest.raises(services.ChallengeError, match="played by 4 to 4"):
        services.challenge(alice, mine, planners)

    # Rated (as matchmaking seats them): the planner team sorts within a few turns of the fewest the deal
    # allows and rises against the optimum's yardsticks; the random team never sorts a deal and falls.
    planner, random_team = (Bot.objects.builtin("sorted", name) for name in ("planner", "random"))
    won = play_now(services.create_match("sorted", [planner] * 4, purpose=Match.Purpose.LADDER, rated=True))
    lost = play_now(services.create_match("sorted", [random_team] * 4, purpose=Match.Purpose.LADDER, rated=True))
    assert won.seats.first().score < lost.seats.first().score and lost.winners == []
    rated = [seat for seat in won.seats.order_by("seat")]
    assert rated[0].rated_number == 1 and rated[0].rating_after > rated[0].rating_before
    assert all(seat.rating_after is None for seat in rated[1:]), "a bot in several seats is rated once"
    api_client.force_authenticate(alice)
    rows = {row["bot"]["id"]: row for row in api_client.get("/api/ladder/sorted/").json()["results"]}
    assert {row["measure"] for row in rows.values()} == {"team-skill"}
    assert rows[planner.pk]["mu"] > rows[random_team.pk]["mu"] and rows[random_team.pk]["mu"] < 25
    assert rows[planner.pk]["played"] == rows[random_team.pk]["losses"] == 1
    assert rows[mine.pk]["played"] == 0 and rows[mine.pk]["provisional"], "practice left alice's bot unrated"

    client.force_login(alice)
    page = client.get("/ladder/sorted/").content.decode()
    assert "exact optimum" in page
    assert "&sigma;" in page


def test_a_sorted_upload_is_validated_by_its_bot_playing_the_whole_team(make_user, in_process_sandbox):
    from arena.bots.services import create_bot, upload_version

    bot = create_bot(make_user("bob"), "sorted", "solo")
    version = upload_version(bot, EXAMPLE.encode(), "solo.py")
    match = play_now(version.validation_match)
    version.refresh_from_db()
    assert version.status == "accepted", version.verdict
    assert match.seats.filter(bot=bot).count() == 4

    crash = upload_version(bot, b"def act(observation):\n    raise ValueError('oops')\n", "crash.py")
    play_now(crash.validation_match)
    crash.refresh_from_db()
    assert crash.status == "rejected" and crash.verdict.startswith("crash")


def test_a_sorted_result_says_whether_the_team_won_never_a_draw(make_user, client, in_process_sandbox):
    planner, random_team = (Bot.objects.builtin("sorted", name) for name in ("planner", "random"))
    won = play_now(services.create_match("sorted", [planner] * 4, purpose=Match.Purpose.CHALLENGE, rated=False))
    lost = play_now(services.create_match("sorted", [random_team] * 4, purpose=Match.Purpose.CHALLENGE,
                                          rated=False))
    assert won.winners == [0, 1, 2, 3] and lost.winners == []
    assert not won.is_draw

    client.force_login(make_user("viewer"))
    for url in (f"/matches/{won.pk}/", f"/matches/{won.pk}/replay/"):
        page = client.get(url).content.decode()
        assert "The team won:" in page and "Draw between" not in page, url
    for url in (f"/matches/{lost.pk}/", f"/matches/{lost.pk}/replay/"):
        page = client.get(url).content.decode()
        assert "The team did not win." in page and "Draw between" not in page and "Winner:" not in page, url


# A bot that declares at once: the hands are not sorted, so the team loses and scores the lost-game penalty.
DECLARES_AT_ONCE = """def act(observation):
    for action in observation["legal_actions"]:
        if isinstance(action, dict) and action.get("action") == "declare":
            return action
    return observation["legal_actions"][0]
"""


def test_a_cooperative_game_reads_as_a_team_no_elo_and_its_score_beside_the_perfect_one(
        make_user, client, in_process_sandbox):
    from arena.notifications.models import Notification

    alice = make_user("alice")
    mine = accepted_bot(alice, "sorted", "hasty", DECLARES_AT_ONCE)
    match = play_now(services.challenge(alice, mine, [], rated=False))
    assert match.status == Match.Status.FINISHED and match.winners == []
    score = match.seats.first().score
    # The inbox: the team's result and score beside the perfect one, the bot named once, no winner.
    text = Notification.objects.get(user=alice).text
    assert f"(team of alice/hasty): the team did not win: it scored {score:g}; perfect is 0" in text
    assert "won by" not in text and text.count("alice/hasty") == 1

    client.force_login(alice)
    bot_page = client.get(f"/bots/{mine.pk}/").content.decode()
    assert "Rating history" not in bot_page and 'name="rated"' not in bot_page and "rating-chart" not in bot_page
    assert "A challenge is practice" in bot_page and "perfect is 0" in bot_page
    replay = client.get(f"/matches/{match.pk}/replay/").content.decode()
    assert "Points lost against optimal play" not in replay
    assert "Team score" in replay and "perfect is 0" in replay
