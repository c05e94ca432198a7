"""The late penalty and the Elo percentile part, worked out by hand (no database: the ladder is given)."""

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from grading import parts
from grading.services import late_days, late_factor

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


class Students:
    def __init__(self, ids):
        self.ids = ids

    def values_list(self, field, flat):
        assert (field, flat) == ("pk", True)
        return self.ids


def elo_percentile(monkeypatch, ladder: list[tuple[int, int, float]], mine: int):
    """The part for bot `mine` on a course whose students are 1-9, given the game's ladder as
    (bot id, owner id, rating) rows."""
    rows = [{"bot": SimpleNamespace(pk=bot, owner_id=owner), "rating": rating} for bot, owner, rating in ladder]
    monkeypatch.setattr("ratings.services.ladder", lambda game: rows if game == "endgame" else [])
    assignment = SimpleNamespace(game="endgame", course=SimpleNamespace(students=Students(range(1, 10))))
    context = parts.Context(assignment, SimpleNamespace(bot_id=mine), None, {})
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


class Entrants:
    def __init__(self, seeds: dict[int, int | None]):
        self.seeds = seeds  # bot id -> its seed in the tournament (None: entered, never seeded)

    def filter(self, bot):
        seed = self.seeds.get(bot)
        return SimpleNamespace(first=lambda: None if bot not in self.seeds else SimpleNamespace(seed=seed))


def placement(monkeypatch, status: str, places: list[int], mine: int, entrants: dict | None = None):
    """The tournament part for bot `mine` in a tournament whose standings give entrant (seed) i the place
    places[i]; entrant i is bot 100 + i unless `entrants` says otherwise."""
    from tournaments.models import Tournament

    tournament = SimpleNamespace(pk=7, name="cup", status=status,
                                 entrants=Entrants(entrants or {100 + seed: seed for seed in range(len(places))}))
    standings = [SimpleNamespace(entrant=seed, place=place) for seed, place in enumerate(places)]
    monkeypatch.setattr("tournaments.models.Tournament",
                        SimpleNamespace(Status=Tournament.Status, objects=SimpleNamespace(get=lambda pk: tournament)))
    monkeypatch.setattr("tournaments.services.played_outcomes", lambda given: {"outcomes of": given.pk})
    monkeypatch.setattr("tournaments.services.format_of", lambda given: SimpleNamespace(
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
