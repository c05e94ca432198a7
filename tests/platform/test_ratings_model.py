"""The ladder's skill model (Weng-Lin, OpenSkill Plackett-Luce) on the platform: rated matches applied in the
order they finish, and `recompute_ratings` checking and fixing the stored ratings against the history.

The expected figures come from openskill's PlackettLuce itself, driven here by hand (one `rate` call a match):
an oracle independent of ratings/skill.py's bookkeeping (seats, repeated bots, records, ladder values).
"""

import io
from datetime import datetime, timedelta, timezone

import pytest
from django.core.management import CommandError, call_command
from openskill.models import PlackettLuce

from arena.ratings.skill import Model, Skill, outcome

K = 3  # ARENA_RATING_K's default


def oracle_history():
    """Three bots from the prior play, in this order: X beats Y; Y draws with Z; X first, Y and Z second.
    Returns each match's seats as (bot, placing, value before, value after) and each bot's final
    (mu, sigma, value, played, wins, draws, losses)."""
    model = PlackettLuce()
    skills = {label: model.rating() for label in "XYZ"}
    record = {label: [0, 0, 0, 0] for label in "XYZ"}
    history = []
    for table in ([("X", 1), ("Y", 2)], [("Y", 1), ("Z", 1)], [("X", 1), ("Y", 2), ("Z", 2)]):
        rated = model.rate([[skills[label]] for label, _ in table], ranks=[placing for _, placing in table])
        seats = []
        for (label, placing), [after] in zip(table, rated):
            before = skills[label]
            seats.append((label, placing, before.mu - K * before.sigma, after.mu - K * after.sigma))
            skills[label] = after
            firsts = [p for _, p in table].count(1)
            record[label][0] += 1
            record[label][1 if placing == 1 and firsts == 1 else 2 if placing == 1 else 3] += 1
        history.append(seats)
    final = {label: (skill.mu, skill.sigma, skill.mu - K * skill.sigma, *record[label])
             for label, skill in skills.items()}
    return history, final


HISTORY, EXPECTED = oracle_history()


def test_the_oracle_moves_as_a_reader_expects():
    # X won twice: above the prior; Y lost twice and drew once: below; every sigma shrank.
    assert EXPECTED["X"][0] > 25 > EXPECTED["Y"][0]
    assert all(sigma < 25 / 3 for _, sigma, *_ in EXPECTED.values())


def test_a_multiplayer_match_is_one_ranking_and_ties_move_together():
    model = Model()
    skills = model.rate([model.initial()] * 4, [1, 2, 2, 4])
    assert skills[0].mu > skills[1].mu == skills[2].mu > skills[3].mu
    assert all(skill.sigma < model.sigma for skill in skills)


def test_a_team_is_ranked_among_the_optimum_and_its_misses():
    model = Model()
    new = model.initial()
    optimal, two_over, unsorted = (model.rate_team([new], over)[0].mu for over in (0, 2, 40))
    assert optimal > new.mu and unsorted < new.mu, "matching the optimum rises, missing it by far falls"
    assert optimal > two_over > unsorted
    # Two teammates share the result; an upset moves more: a strong team missing the optimum falls further.
    assert model.rate_team([new, new], 0)[0].mu == model.rate_team([new, new], 0)[1].mu > new.mu
    strong, weak = Skill(35, model.sigma / 2), Skill(15, model.sigma / 2)
    assert model.rate_team([strong], 40)[0].mu - strong.mu < model.rate_team([weak], 40)[0].mu - weak.mu


def test_outcomes_for_the_record():
    assert [outcome(p, [1, 2, 2]) for p in (1, 2)] == ["win", "loss"]
    assert outcome(1, [1, 1, 3]) == "draw"
    assert outcome(3, [1, 1, 3]) == "loss"


def recorded_history():
    """The three matches above, finished and rated with their seats' values, but no Rating rows yet."""
    from arena.bots.models import Bot
    from arena.matches.models import Match, MatchSeat

    bots = {label: Bot.objects.builtin("sortinggame", name) for label, name in
            zip("XYZ", ("random", "honest", "shrewd"))}
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    played = dict.fromkeys(bots, 0)
    for number, seats in enumerate(HISTORY):
        match = Match.objects.create(game="sortinggame", seed=number, rated=True, status=Match.Status.FINISHED,
                                     purpose=Match.Purpose.LADDER, finished_at=start + timedelta(hours=number),
                                     replay={})
        for seat, (label, placing, before, after) in enumerate(seats):
            played[label] += 1  # the bot's first, second... rated match
            MatchSeat.objects.create(match=match, seat=seat, bot=bots[label], placing=placing,
                                     rating_before=before, rating_after=after, rated_number=played[label])
    return bots


@pytest.mark.django_db
def test_recompute_ratings_agrees_with_the_oracle():
    from arena.ratings.models import Rating

    bots = recorded_history()
    with pytest.raises(CommandError, match="3 disagreements"):  # the seats agree; the three Rating rows are missing
        call_command("recompute_ratings")
    call_command("recompute_ratings", fix=True)
    for label, (mu, sigma, value, played, wins, draws, losses) in EXPECTED.items():
        rating = Rating.objects.get(bot=bots[label])
        assert (rating.mu, rating.sigma, rating.value) == pytest.approx((mu, sigma, value), abs=1e-9), label
        assert (rating.played, rating.wins, rating.draws, rating.losses) == (played, wins, draws, losses), label
    call_command("recompute_ratings")


@pytest.mark.django_db
def test_recompute_ratings_names_a_seat_whose_stored_change_is_wrong():
    from arena.matches.models import MatchSeat

    recorded_history()
    call_command("recompute_ratings", fix=True)
    right = MatchSeat.objects.get(match__seed=1, seat=0).rating_after
    MatchSeat.objects.filter(match__seed=1, seat=0).update(rating_after=right + 0.01)
    with pytest.raises(CommandError, match="1 disagreements"):
        call_command("recompute_ratings")

    # --fix puts the oracle's value back on the seat (the bot's history chart reads it), then all agree.
    call_command("recompute_ratings", fix=True)
    assert MatchSeat.objects.get(match__seed=1, seat=0).rating_after == pytest.approx(HISTORY[1][0][3], abs=1e-9)
    call_command("recompute_ratings")


@pytest.mark.django_db
def test_recompute_ratings_fix_resets_a_rating_left_without_any_rated_match():
    from arena.bots.models import Bot
    from arena.ratings.models import Rating

    bots = recorded_history()
    call_command("recompute_ratings", fix=True)
    stray = Rating.objects.create(bot=Bot.objects.builtin("endgame", "greedy"), mu=40, sigma=2, value=34,
                                  played=3, wins=3)
    report = io.StringIO()
    with pytest.raises(CommandError, match="1 disagreements"):
        call_command("recompute_ratings", stdout=report)
    assert "greedy: stored 34.00 = 40.000 - k 2.000 (3 played, 3-0-0) but it played no rated match" in report.getvalue()
    call_command("recompute_ratings", fix=True)
    assert not Rating.objects.filter(pk=stray.pk).exists()
    assert Rating.objects.get(bot=bots["X"]).value == pytest.approx(EXPECTED["X"][2], abs=1e-9)
    call_command("recompute_ratings")


def _rated_out_of_order() -> dict:
    """Two rated matches sharing builtin:optimal, finished the other way round from how they were made:
    {(match id, bot id): the rated_number each seat should have}."""
    from arena.bots.models import Bot
    from arena.matches import services
    from platform_helpers import play_now

    optimal, random_bot, greedy = (Bot.objects.builtin("endgame", name) for name in ("optimal", "random", "greedy"))
    first = services.create_match("endgame", [optimal, random_bot], purpose="challenge", rated=True)
    second = services.create_match("endgame", [optimal, greedy], purpose="challenge", rated=True)
    for match in (second, first):
        play_now(match)
    return {(second.pk, optimal.pk): 1, (second.pk, greedy.pk): 1, (first.pk, optimal.pk): 2, (first.pk, random_bot.pk): 1}


def _rated_numbers() -> dict:
    from arena.matches.models import MatchSeat

    return {(seat.match_id, seat.bot_id): seat.rated_number for seat in MatchSeat.objects.all()}


@pytest.mark.django_db
def test_each_rated_seat_numbers_its_bots_rated_matches_in_the_order_they_were_applied():
    expected = _rated_out_of_order()
    assert _rated_numbers() == expected


@pytest.mark.django_db
def test_the_migration_numbers_the_rated_seats_recorded_before_it_as_the_ratings_did():
    import importlib

    from django.db import connection

    from arena.matches.models import MatchSeat

    expected = _rated_out_of_order()
    MatchSeat.objects.update(rated_number=None)
    migration = importlib.import_module("arena.matches.migrations.0006_seat_rated_number")
    with connection.cursor() as cursor:
        cursor.execute(migration.NUMBER_RATED_SEATS)
    assert _rated_numbers() == expected


@pytest.mark.django_db
def test_the_migration_from_the_elo_ladder_replays_the_recorded_history_through_the_model():
    """The data step of migration ratings 0002: from Elo values on the rows and seats (as the schema before
    issue 43 holds them; mu and sigma at the defaults its AddField gives), the ratings and every seat's
    before/after come out exactly as the model gives them, and recompute_ratings agrees."""
    import importlib

    from django.apps import apps

    from arena.matches.models import MatchSeat
    from arena.ratings.models import Rating

    bots = recorded_history()
    MatchSeat.objects.update(rating_before=1500.0, rating_after=1516.0, rated_number=1)  # Elo's figures
    for bot in bots.values():
        Rating.objects.create(bot=bot, mu=25.0, sigma=25 / 3, value=1516.0, played=9)
    migration = importlib.import_module("arena.ratings.migrations.0002_skill_model")
    migration.recompute_from_history(apps, None)
    for label, (mu, sigma, value, played, wins, draws, losses) in EXPECTED.items():
        rating = Rating.objects.get(bot=bots[label])
        assert (rating.mu, rating.sigma, rating.value) == pytest.approx((mu, sigma, value), abs=1e-9), label
        assert (rating.played, rating.wins, rating.draws, rating.losses) == (played, wins, draws, losses), label
    call_command("recompute_ratings")  # the seats' before/after and numbers agree too
