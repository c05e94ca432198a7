"""Every tournament setting either is refused with a message or plays to its end within the series bound
the platform measures progress against: no settings loop, none stall, none overrun their count."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from games.tournament import FORMATS, Outcome, Tournament
from games.tournament.model import pair_outcome
from quick_tier import examples

# Safely above any bound of 64 entrants (a round robin of 64 plays 2016 series): a loop is a failure.
MOST_SERIES_LISTED = 4000


def any_outcome(series, rng: random.Random) -> Outcome:
    """Any result a series may have: a random order of its entrants, drawn where the format allows it."""
    order = list(series.entrants)
    rng.shuffle(order)
    if len(order) == 2:
        return pair_outcome(order[0], order[1], draw=series.drawable and rng.random() < 0.2)
    return Outcome({e: place for place, e in enumerate(order, 1)}, {e: len(order) - place for place, e in enumerate(order, 1)})


def options(format: str):
    """Every option of a format, unset or over a range wider than the valid one (the refusals are checked)."""
    if format == "swiss":
        return st.fixed_dictionaries({"rounds": st.one_of(st.none(), st.integers(0, 40))})
    if format == "heats":
        return st.fixed_dictionaries({"pod_size": st.one_of(st.none(), st.integers(1, 7)),
                                      "advance": st.one_of(st.none(), st.integers(0, 6))})
    return st.just({})


settings_strategy = st.sampled_from(FORMATS).flatmap(
    lambda format: st.tuples(st.just(format), st.integers(2, 64), options(format),
                             st.sets(st.integers(0, 63), max_size=3), st.integers(0, 2**32)))


@settings(max_examples=examples(200), deadline=None)
@given(settings_strategy)
def test_every_setting_is_refused_with_a_message_or_plays_to_a_champion_within_its_bound(case):
    format, entrants, chosen, withdrawn, seed = case
    withdrawn = frozenset(e for e in withdrawn if e < entrants)
    try:
        tournament = Tournament(format, entrants, withdrawn=withdrawn, **chosen)
    except ValueError as refusal:
        assert str(refusal), "a refusal says why"
        return
    bound = tournament.series_bound()
    rng = random.Random(seed)
    outcomes: dict = {}
    while not tournament.finished(outcomes):
        ready = tournament.ready(outcomes)
        assert ready, f"{format} of {entrants} {chosen}: unfinished with nothing to play"
        for series in ready:
            outcomes[series.key] = any_outcome(series, rng)
        assert len(outcomes) <= bound, f"{format} of {entrants} {chosen}: more than its bound of {bound} series"
        assert len(tournament.series(outcomes)) < MOST_SERIES_LISTED
    if format not in ("round-robin", "swiss"):  # there, first place may be shared after every tie-break
        assert tournament.champion(outcomes) is not None


def test_heats_that_cannot_narrow_the_field_are_refused_with_the_reason():
    # Pods of 3 with 2 going on: 4 entrants make two pods of 2, from which all 4 would go on, for ever.
    with pytest.raises(ValueError, match="cannot narrow 4 entrants down"):
        Tournament("heats", 4, pod_size=3, advance=2)


def test_the_bounds_of_the_formats_by_hand():
    assert Tournament("round-robin", 5).series_bound() == 10
    assert Tournament("single-elimination", 6).series_bound() == 5
    assert Tournament("double-elimination", 6).series_bound() == 11  # 2n - 2, and the reset final
    assert Tournament("swiss", 7, rounds=3).series_bound() == 9
    # Heats of 10 by pods of 4, 2 going on: pods 4 3 3, then 6 left in pods of 3 3, then the final of 4.
    assert Tournament("heats", 10, pod_size=4, advance=2).series_bound() == 3 + 2 + 1


def test_tables_a_game_cannot_seat_are_refused():
    with pytest.raises(ValueError, match="needs tables of 3"):
        Tournament("heats", 3, pod_size=3).check_tables("endgame", 2, 2)
    Tournament("heats", 3, pod_size=3).check_tables("crazyking", 2, 5)
