"""The late penalty and the Elo percentile part, worked out by hand (no database: the ladder is given)."""

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from arena.grading import parts
from arena.grading.services import late_days, late_factor
from arena.ratings.services import LadderBot, LadderRow

DEADLINE = datetime(2026, 11, 20, 23, 59, tzinfo=timezone.utc)


@pytest.mark.parametrize("uploaded, days", [
    (DEADLINE - timedelta(days=2), 0),
    (DEADLINE, 0),
    (DEADLINE + timedelta(seconds=1), 1),  # each started day counts
    (DEADLINE + timedelta(days=1), 1),
    (DEADLINE + timedelta(days=1, seconds=1), 2),
    (DEADLINE + timedelta(days=3, hours=5), 4),
])
def test_each_started_day_after_the_deadline_is_a_day_late(uploaded, days):
    assert late_days(DEADLINE, uploaded) == days


@pytest.mark.parametrize("days, factor", [(0, 1.0), (1, 0.85), (2, 0.7), (6, 0.1), (7, 0.0), (10, 0.0)])
def test_the_late_penalty_takes_its_percent_per_day_down_to_nothing(days, factor):
    assert late_factor(SimpleNamespace(late_penalty_per_day=15), days) == pytest.approx(factor)


def ladder_row(bot: int, owner: int, rating: float) -> LadderRow:
    return LadderRow(rank=None, bot=LadderBot(bot, f"student{owner}/bot{bot}", owner), rating=rating,
                     mu=rating + 15, sigma=5, played=10, wins=5, draws=0, losses=5, provisional=False)


class Students:
    def __init__(self, ids):
        self.ids = ids

    def values_list(self, field, flat):
        assert (field, flat) == ("pk", True)
        return self.ids


def elo_percentile(monkeypatch, ladder: list[tuple[int, int, float]], mine: int):
    """The part for bot `mine` on a course whose students are 1-9, given the game's ladder as
    (bot id, owner id, rating) rows."""
    # As read from the database, each row's rating and bot id are objects of their own: equal ratings, or the
    # ids of one bot (past the small ints CPython keeps one object each of), are equal but not the same object.
    rows = [ladder_row(1000 + bot, owner, float(rating)) for bot, owner, rating in ladder]
    monkeypatch.setattr("arena.ratings.services.ladder", lambda game: rows if game == "endgame" else [])
    assignment = SimpleNamespace(game="endgame", course=SimpleNamespace(students=Students(range(1, 10))))
    context = parts.Context(assignment, SimpleNamespace(bot_id=1000 + mine), None, {})
    return parts.KINDS["elo_percentile"].measure(context, {})


def test_the_elo_percentile_counts_the_course_bots_below_and_half_of_those_level(monkeypatch):
    ladder = [(10, 1, 1600), (11, 2, 1500), (12, 3, 1500), (13, 50, 1450), (14, 4, 1400), (15, 5, 1300)]
    # Bot 13 is not the course's (owner 50). Of the other 4 course bots, 2 are below bot 11 and 1 is level
    # with it: (2 + 1/2) / 4.
    measured = elo_percentile(monkeypatch, ladder, mine=11)
    assert measured.fraction == pytest.approx(0.625)
    assert measured.detail == "rating 1500, above 62% of the course's 5 bots"
    assert measured.facts == {"rating": 1500, "bots": 5}
    assert elo_percentile(monkeypatch, ladder, mine=10).fraction == 1.0
    assert elo_percentile(monkeypatch, ladder, mine=15).fraction == 0.0


def test_a_bot_off_the_ladder_gets_nothing_and_one_alone_gets_everything(monkeypatch):
    ladder = [(10, 1, 1500), (13, 50, 1600)]
    alone = elo_percentile(monkeypatch, ladder, mine=10)
    assert (alone.fraction, alone.detail) == (1.0, "alone on the ladder")
    missing = elo_percentile(monkeypatch, ladder, mine=13)  # on the ladder, but not a course student's bot
    assert (missing.fraction, missing.detail) == (0.0, "not on the ladder")
    assert elo_percentile(monkeypatch, [], mine=10).detail == "not on the ladder"


def test_of_two_course_bots_on_the_ladder_the_lower_gets_nothing(monkeypatch):
    ladder = [(12, 1, 1500), (13, 50, 1600), (11, 2, 1400)]
    # Bot 13 is not the course's: bots 12 and 11 are the course's two, so 11 is above none of the 1 other.
    lower = elo_percentile(monkeypatch, ladder, mine=11)
    assert (lower.fraction, lower.detail) == (0.0, "rating 1400, above 0% of the course's 2 bots")
    assert elo_percentile(monkeypatch, ladder, mine=12).fraction == 1.0


class Entrants:
    def __init__(self, seeds: dict[int, int | None]):
        self.seeds = seeds  # bot id -> its seed in the tournament (None: entered, never seeded)

    def filter(self, bot):
        seed = self.seeds.get(bot)
        return SimpleNamespace(first=lambda: None if bot not in self.seeds else SimpleNamespace(seed=seed))


def placement(monkeypatch, status: str, places: list[int], mine: int, entrants: dict | None = None,
              order: list[int] | None = None):
    """The tournament part for bot `mine` in a tournament whose standings give entrant (seed) i the place
    places[i], listed in the `order` of seeds given (by seed if none); entrant i is bot 100 + i unless
    `entrants` says otherwise."""
    from arena.tournaments.models import Tournament

    tournament = SimpleNamespace(pk=7, name="cup", status=status,
                                 entrants=Entrants(entrants or {100 + seed: seed for seed in range(len(places))}))
    standings = [SimpleNamespace(entrant=seed, place=places[seed]) for seed in order or range(len(places))]
    monkeypatch.setattr("arena.tournaments.models.Tournament",
                        SimpleNamespace(Status=Tournament.Status, objects=SimpleNamespace(get=lambda pk: tournament)))
    monkeypatch.setattr("arena.tournaments.services.played_outcomes", lambda given: {"outcomes of": given.pk})
    monkeypatch.setattr("arena.tournaments.services.format_of", lambda given: SimpleNamespace(
        standings=lambda outcomes: standings if outcomes == {"outcomes of": 7} else []))
    context = parts.Context(None, SimpleNamespace(bot=mine), None, {})
    return parts.KINDS["tournament"].measure(context, {"tournament": 7})


def test_tournament_placement_is_linear_from_first_to_last_place(monkeypatch):
    places = [3, 1, 2, 2, 5]  # two entrants share second place; no fourth
    # Place 2 of 5: (5 - 2) / (5 - 1) = 0.75.
    second = placement(monkeypatch, "finished", places, mine=102)
    assert (second.fraction, second.detail) == (0.75, "place 2 of 5 in cup")
    assert second.facts == {"tournament": 7, "place": 2, "of": 5}
    assert placement(monkeypatch, "finished", places, mine=101).fraction == 1.0
    assert placement(monkeypatch, "finished", places, mine=104).fraction == 0.0
    running = placement(monkeypatch, "running", places, mine=100)
    assert (running.fraction, running.detail) == (0.5, "place 3 of 5 in cup (running, so far)")


def test_a_bot_that_did_not_play_the_tournament_gets_nothing_and_one_alone_everything(monkeypatch):
    alone = placement(monkeypatch, "finished", [1], mine=100)
    assert (alone.fraction, alone.detail) == (1.0, "place 1 of 1 in cup")
    for status, mine, entrants in [("finished", 999, None), ("draft", 100, None), ("running", 100, {100: None})]:
        measured = placement(monkeypatch, status, [1, 2], mine=mine, entrants=entrants)
        assert (measured.fraction, measured.detail) == (0.0, f"{mine} did not play in cup")


def test_a_cancelled_tournament_grades_the_places_played_before_it_stopped(monkeypatch):
    # Standings come in place order, as the formats give them; the bot is entrant (seed) 0, third of 4:
    # (4 - 3) / (4 - 1) = 1/3.
    places = [3, 1, 2, 4]
    ordered = [1, 2, 0, 3]
    measured = placement(monkeypatch, "cancelled", places, mine=100, order=ordered)
    assert measured.fraction == pytest.approx(1 / 3)
    assert measured.detail == "place 3 of 4 in cup (cancelled, so far)"
    assert placement(monkeypatch, "paused", places, mine=103, order=ordered).detail == "place 4 of 4 in cup (paused, so far)"


def test_of_two_entrants_the_second_gets_nothing(monkeypatch):
    assert placement(monkeypatch, "finished", [2, 1], mine=100).detail == "place 2 of 2 in cup"
    assert placement(monkeypatch, "finished", [2, 1], mine=100).fraction == 0.0
    assert placement(monkeypatch, "finished", [2, 1], mine=101).fraction == 1.0


def test_the_grades_of_a_run_sum_the_rounded_points_of_its_parts_with_the_late_penalty(monkeypatch):
    """`write_grades` without the database: the run, its submissions, versions and grades are stand-ins, the
    parts read a given ladder (course bots 10-13 rated 1600, 1500, 1400, 1300)."""
    from arena.grading import runs

    rows = [ladder_row(bot, bot - 9, float(rating)) for bot, rating in [(10, 1600), (11, 1500), (12, 1400), (13, 1300)]]
    monkeypatch.setattr("arena.ratings.services.ladder", lambda game: rows)
    versions = {51: SimpleNamespace(pk=51), 52: SimpleNamespace(pk=52)}
    monkeypatch.setattr(runs, "BotVersion", SimpleNamespace(objects=SimpleNamespace(
        filter=lambda pk: SimpleNamespace(first=lambda: versions.get(pk)))))
    created = []
    monkeypatch.setattr(runs, "Grade", SimpleNamespace(objects=SimpleNamespace(
        update_or_create=lambda defaults, **key: created.append({**key, **defaults}))))

    submissions = [SimpleNamespace(pk=1, bot_id=11), SimpleNamespace(pk=2, bot_id=13),  # 2: after the run began
                   SimpleNamespace(pk=3, bot_id=12), SimpleNamespace(pk=4, bot_id=10)]
    assignment = SimpleNamespace(game="endgame", config={}, late_penalty_per_day=20,
                                 course=SimpleNamespace(students=Students(range(1, 10))),
                                 submissions=SimpleNamespace(select_related=lambda *names: submissions))
    plan = {"1": {"version": 51, "late_days": 0, "note": ""}, "3": {"version": 52, "late_days": 1, "note": "late"},
            "4": {"version": None, "late_days": 0, "note": "no version"}}
    rubric = [{"part": 8, "kind": "elo_percentile", "label": "ladder", "weight": 10, "params": {}},
              {"part": 9, "kind": "elo_percentile", "label": "ladder again", "weight": 4, "params": {}}]
    runs.write_grades(SimpleNamespace(assignment=assignment, plan=plan, rubric=rubric))

    assert [row["submission"].pk for row in created] == [1, 3, 4]  # none for the submission made after the start
    first, late, none = created
    # Bot 11 is above 2 of the 3 other course bots: 2/3, kept to 6 decimals; points 10 * 2/3 and 4 * 2/3 to 4
    # decimals: 6.6667 + 2.6667 = 9.3334.
    assert [(part["fraction"], part["points"]) for part in first["parts"]] == [(0.666667, 6.6667), (0.666667, 2.6667)]
    assert first["parts"][0] == {
        "part": 8, "kind": "elo_percentile", "label": "ladder", "weight": 10, "fraction": 0.666667, "points": 6.6667,
        "detail": "rating 1500, above 67% of the course's 4 bots", "matches": [], "facts": {"rating": 1500, "bots": 4},
        "version": 51, "seeds": []}
    assert (first["version"].pk, first["late_days"], first["note"]) == (51, 0, "")
    assert first["measured"] == first["total"] == 9.3334
    # Bot 12: 1/3, so 3.3333 + 1.3333 = 4.6666; a day late at 20% a day: 4.6666 * 0.8 = 3.73328, to 3.7333.
    assert [(part["fraction"], part["points"]) for part in late["parts"]] == [(0.333333, 3.3333), (0.333333, 1.3333)]
    assert (late["measured"], late["total"], late["late_days"], late["note"]) == (4.6666, 3.7333, 1, "late")
    # No version in time: no parts, nothing measured.
    assert (none["version"], none["parts"], none["measured"], none["total"]) == (None, [], 0, 0)
