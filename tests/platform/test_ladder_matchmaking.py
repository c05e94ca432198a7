"""The platform chooses every rated match (ratings/matchmaking.py): fair to every bot, close tables first,
every seat count, behind grading and tournaments; and the farming attack of issue 43 changes no rating."""

import random
import re
from collections import Counter

import pytest

from arena.bots.models import Bot
from arena.matches import services
from arena.matches.models import Match
from arena.ratings import matchmaking
from arena.ratings.pairing import Candidate, choose_table
from arena.ratings.models import Rating
from arena.ratings.skill import Model, Skill
from platform_helpers import active_bot, play_now

MODEL = Model()


def candidate(bot_id, owner_id=None, mu=25.0, sigma=25 / 3, **more) -> Candidate:
    return Candidate(bot_id, owner_id, Skill(mu, sigma), **more)


# --- choosing a table (pure) ---------------------------------------------------------------------------

def test_two_bots_of_one_owner_never_share_a_rated_table():
    rng = random.Random(1)
    pool = [candidate(n, owner_id=n % 3) for n in range(9)] + [candidate(100 + n) for n in range(3)]  # built-ins
    for _ in range(300):
        table = choose_table(MODEL, pool, rng.choice([2, 3, 4]), rng)
        owners = [c.owner_id for c in table if c.owner_id is not None]
        assert len(owners) == len(set(owners))
    # Only one owner's bots free: no rated match at all rather than one among themselves.
    assert choose_table(MODEL, [candidate(1, 7), candidate(2, 7)], 2, rng) is None


def test_the_bot_furthest_below_its_share_plays_next_and_a_new_version_sooner():
    rng = random.Random(2)
    pool = [candidate(1, 1, today=5), candidate(2, 2, today=2), candidate(3, 3, today=3)]
    assert choose_table(MODEL, pool, 2, rng)[0].bot_id == 2
    pool.append(candidate(4, 4, today=3, new_version=True))  # counts 1.5
    assert choose_table(MODEL, pool, 2, rng)[0].bot_id == 4
    # Among equals, the most uncertain first.
    assert choose_table(MODEL, [candidate(1, 1, sigma=3), candidate(2, 2, sigma=7)], 2, rng)[0].bot_id == 2


def test_opponents_are_mostly_of_close_skill():
    rng = random.Random(3)
    pool = [candidate(1, 1, mu=25, sigma=2, today=0), candidate(2, 2, mu=26, sigma=2, today=1),
            candidate(3, 3, mu=40, sigma=2, today=1)]
    chosen = Counter(choose_table(MODEL, pool, 2, rng)[1].bot_id for _ in range(200))
    assert chosen[2] > 10 * chosen[3]


def test_over_a_day_every_bot_gets_a_fair_share():
    """400 matches among 20 bots of very different skill, the counts carried as the platform counts them:
    the busiest bot plays at most a few matches more than the least busy."""
    rng = random.Random(4)
    skills = {n: Skill(10 + n * 2, 3) for n in range(20)}
    played = Counter()
    for _ in range(400):
        pool = [Candidate(n, n, skills[n], today=played[n]) for n in skills]
        for c in choose_table(MODEL, pool, rng.choice([2, 4]), rng):
            played[c.bot_id] += 1
    assert max(played.values()) - min(played.values()) <= 3, played


# --- the beat task on the database -----------------------------------------------------------------------


@pytest.mark.django_db
def test_each_minute_starts_a_bounded_number_of_rated_matches_at_every_seat_count(settings, make_user):
    settings.ARENA_LADDER_MATCHES_PER_MINUTE = 3
    settings.ARENA_LADDER_MAX_IN_FLIGHT = 100
    for number in range(8):
        active_bot(make_user(f"student{number}"), game="crazyking")
    rng = random.Random(5)
    started = matchmaking.play_ladder_matches(rng=rng)
    assert len(started) == 3
    assert all(match.rated and match.purpose == Match.Purpose.LADDER and match.created_by is None
               for match in started)
    sizes = {match.seats.count() for match in started if match.game == "crazyking"}
    for _ in range(6):
        Match.objects.filter(purpose=Match.Purpose.LADDER).update(status=Match.Status.CANCELLED)  # bots free again
        for match in matchmaking.play_ladder_matches(rng=rng):
            if match.game == "crazyking":
                sizes.add(match.seats.count())
    assert sizes == {2, 3, 4, 5}, "Crazy-KING's ladder plays every table size it allows"
    settings.ARENA_LADDER_MATCHES_PER_MINUTE = 0
    assert matchmaking.play_ladder_matches() == []


@pytest.mark.django_db
def test_a_bot_plays_one_ladder_match_at_a_time_and_ladders_wait_behind_grading(settings, make_user):
    settings.ARENA_LADDER_MATCHES_PER_MINUTE = 50
    settings.ARENA_LADDER_MAX_IN_FLIGHT = 50
    bots = [active_bot(make_user(f"student{number}")) for number in range(5)]
    started = [m for m in matchmaking.play_ladder_matches(rng=random.Random(6)) if m.game == "endgame"]
    seated = [seat.bot_id for match in started for seat in match.seats.all()]
    assert len(seated) == len(set(seated)), "no bot in two ladder matches at once"
    active = Bot.objects.active().for_game("endgame").count()  # the students' and the built-ins
    assert len(seated) == active - active % 2, "every free bot was seated, but one left over"

    Match.objects.update(status=Match.Status.CANCELLED)
    grading = services.create_match("endgame", bots[:2], purpose=Match.Purpose.GRADING, rated=False)
    assert matchmaking.play_ladder_matches() == [], "a queued grading match goes first"
    Match.objects.filter(pk=grading.pk).update(status=Match.Status.CANCELLED)
    assert matchmaking.play_ladder_matches(rng=random.Random(7))


# --- farm-proof by construction --------------------------------------------------------------------------

LOSER = b"def act(o):\n    raise RuntimeError('losing on purpose')\n"  # a crash loses the match


@pytest.mark.django_db
def test_a_rated_challenge_is_refused_with_the_reason_on_the_api_and_the_form_has_no_rated_tick(
        api_client, ada, make_user, client):
    mine, theirs = active_bot(ada), active_bot(make_user("bob"))
    response = api_client.post("/api/matches/", {"bot": mine.pk, "opponents": [theirs.pk], "rated": True},
                               format="json")
    assert response.status_code == 400
    assert "challenges are unrated practice: the platform chooses every rated match" in str(response.json())
    assert not Match.objects.exists()
    assert api_client.post("/api/matches/", {"bot": mine.pk, "opponents": [theirs.pk]},
                           format="json").status_code == 201
    client.force_login(ada)
    page = client.get(f"/bots/{mine.pk}/").content.decode()
    assert 'name="rated"' not in page
    client.post(f"/bots/{mine.pk}/challenge/", {"opponents": [theirs.pk], "rated": "on"})  # a forged tick
    assert not Match.objects.filter(rated=True).exists()


@pytest.mark.django_db
def test_the_farming_attack_changes_no_rating(make_user, in_process_sandbox, settings):
    """Issue 43's attack: a new bot beats a second account's deliberately weak bots again and again. Every
    such match is a challenge, practice: no rating moves, and the farmer's bot stands where matchmaking
    puts it. The sybil's bots enter matchmaking like everyone's, where no one chooses whom they meet."""
    farmer, feeder = make_user("farmer"), make_user("feeder")
    main = active_bot(farmer, name="main")
    for number in range(6):
        loser = active_bot(feeder, name=f"throwaway{number}", code=LOSER)
        match = play_now(services.challenge(farmer, main, [loser]))
        assert match.status == Match.Status.FINISHED and match.seats.get(bot=main).placing == 1
    assert not Rating.objects.exists()
    assert not Match.objects.filter(seats__rating_after__isnull=False).exists()

    # Then the platform plays the ladder: ratings move only through the matches it chose.
    settings.ARENA_LADDER_MATCHES_PER_MINUTE = 20
    for match in matchmaking.play_ladder_matches(rng=random.Random(8)):
        play_now(match)
    rated = Match.objects.filter(rated=True)
    assert rated.exists() and set(rated.values_list("purpose", flat=True)) == {Match.Purpose.LADDER}
    assert set(rated.values_list("created_by", flat=True)) == {None}, "no student created a rated match"
    assert Rating.objects.filter(bot=main).exists()
    assert Rating.objects.get(bot=main).played == rated.filter(seats__bot=main).count()


@pytest.mark.django_db
def test_a_finished_ladder_match_moves_the_ladder_page_with_mu_sigma_and_provisional(client, make_user,
                                                                                      in_process_sandbox):
    strong = active_bot(make_user("ada"), game="endgame", name="strong")
    builtin = Bot.objects.builtin("endgame", "random")
    play_now(services.create_match("endgame", [strong, builtin], purpose=Match.Purpose.LADDER, rated=True))
    page = client.get("/ladder/endgame/").content.decode()
    assert "&mu;" in page and "&sigma;" in page and "Provisional" in page
    rating = Rating.objects.get(bot=strong)
    assert f"{rating.mu:.1f}" in page and f"{rating.sigma:.1f}" in page
    assert "Nobody chooses a rated opponent" in page


@pytest.mark.django_db
def test_a_bots_page_shows_its_head_to_head_per_opponent_version_with_links(client, make_user,
                                                                            in_process_sandbox):
    import hashlib

    from arena.bots.models import BotVersion
    from platform_helpers import EXAMPLE_BOT

    ada, bob = make_user("ada"), make_user("bob")
    mine, theirs = active_bot(ada), active_bot(bob, name="theirs", code=LOSER)
    first = [play_now(services.challenge(ada, mine, [theirs])) for _ in range(2)]
    BotVersion.objects.create(bot=theirs, number=2, filename="bot.py", code=EXAMPLE_BOT.decode(),
                              size=len(EXAMPLE_BOT), sha256=hashlib.sha256(EXAMPLE_BOT).hexdigest(),
                              status=BotVersion.Status.ACCEPTED)
    second = play_now(services.challenge(ada, mine, [theirs]))
    builtin = Bot.objects.builtin("endgame", "random")
    rated = play_now(services.create_match("endgame", [mine, builtin], purpose=Match.Purpose.LADDER, rated=True))

    client.force_login(make_user("viewer"))
    page = client.get(f"/bots/{mine.pk}/").content.decode()
    table = page[page.index('id="head-to-head"'):page.index("</table>", page.index('id="head-to-head"'))]
    rows = table.split("<tr>")[2:]  # after the header
    assert len(rows) == 3
    v1 = next(row for row in rows if "bob/theirs" in row and "v1" in row)
    assert numbers(v1) == [2, 0, 0, 0], "won 2, drawn 0, lost 0, rated 0: a crashing bot lost both"
    assert all(f'href="/matches/{match.pk}/"' in v1 for match in first)
    v2 = next(row for row in rows if "bob/theirs" in row and "v2" in row)
    assert f'href="/matches/{second.pk}/"' in v2 and f'href="/matches/{first[0].pk}/"' not in v2
    against_builtin = next(row for row in rows if "builtin:random" in row)
    assert f'href="/matches/{rated.pk}/"' in against_builtin
    assert sum(numbers(against_builtin)[:3]) == 1 and numbers(against_builtin)[3] == 1, "one game, rated"


def numbers(row: str) -> list[int]:
    """A head-to-head line's won, drawn, lost and rated counts."""
    return [int(n) for n in re.findall(r'<td class="num">(\d+)</td>', row)]
