"""Tournament formats against hand-worked brackets and tables, and their properties under any results."""

import itertools
import random
import re
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from games.tournament import FORMATS, Outcome, Tournament
from games.tournament.base import Format
from games.tournament.elimination import seeding_order
from games.tournament.model import pair_outcome
from games.tournament.swiss import max_rounds
from quick_tier import examples


def higher_seed_wins(series):
    ordered = sorted(series.entrants)
    return Outcome({e: place for place, e in enumerate(ordered, 1)},
                   {e: len(ordered) - place for place, e in enumerate(ordered, 1)})


def play(tournament, decide=higher_seed_wins, outcomes=None):
    """Play the tournament to its end with `decide(series) -> Outcome`; the outcomes by key."""
    outcomes = dict(outcomes or {})
    while not tournament.finished(outcomes):
        ready = tournament.ready(outcomes)
        assert ready, "an unfinished tournament must have something to play"
        for series in ready:
            outcomes[series.key] = decide(series)
    return outcomes


def played(tournament, outcomes):
    return [s for s in tournament.series(outcomes) if not s.bye and tournament.walkover(s) is None]


def places(tournament, outcomes):
    return {row.entrant: row.place for row in tournament.standings(outcomes)}


# --- single elimination -------------------------------------------------------------------------
def test_standard_seeding_puts_the_top_two_in_opposite_halves():
    assert seeding_order(8) == [0, 7, 3, 4, 1, 6, 2, 5]
    order = seeding_order(64)
    assert order.index(0) < 32 <= order.index(1)
    assert {order.index(s) // 16 for s in range(4)} == {0, 1, 2, 3}  # the top four in four quarters


def test_standard_seeding_of_two_four_and_sixteen_by_hand():
    # Seed 1 meets the last seed, and each pair's seeds add up to size + 1 (1-based): for 16, 1 v 16,
    # 8 v 9, 4 v 13, 5 v 12 in the top half, 2 v 15, 7 v 10, 3 v 14, 6 v 11 in the bottom half.
    assert seeding_order(2) == [0, 1]
    assert seeding_order(4) == [0, 3, 1, 2]
    assert seeding_order(16) == [0, 15, 7, 8, 3, 12, 4, 11, 1, 14, 6, 9, 2, 13, 5, 10]


def test_single_elimination_standings_part_way_rank_those_still_in_first():
    tournament = Tournament("single-elimination", 8)
    first = {s.key: higher_seed_wins(s) for s in tournament.series({}) if s.round == 1}
    # After round 1 the four winners are still in and share first place; the four who lost share fifth.
    rows = tournament.standings(first)
    assert [(r.entrant, r.place, r.points) for r in rows] == [
        (0, 1, 1), (1, 1, 1), (2, 1, 1), (3, 1, 1), (4, 5, 0), (5, 5, 0), (6, 5, 0), (7, 5, 0)]
    assert not tournament.finished(first) and tournament.champion(first) is None
    # Semi-finals: (0 v 3) and (1 v 2). The two semi-final losers share third.
    outcomes = play(tournament, outcomes=first)
    assert places(tournament, outcomes) == {0: 1, 1: 2, 2: 3, 3: 3, 4: 5, 5: 5, 6: 5, 7: 5}


@pytest.mark.parametrize("n, byes", [(2, []), (3, [0]), (5, [0, 1, 2]), (8, []), (13, [0, 1, 2]), (64, [])])
def test_single_elimination_gives_byes_to_the_top_seeds_and_plays_n_minus_1_series(n, byes):
    tournament = Tournament("single-elimination", n)
    first_round = [s for s in tournament.series({}) if s.round == 1]
    assert sorted(s.entrants[0] for s in first_round if s.bye) == byes
    outcomes = play(tournament)
    assert len(played(tournament, outcomes)) == n - 1
    final = tournament.series(outcomes)[-1]
    assert final.entrants == (0, 1) and tournament.champion(outcomes) == 0


def test_single_elimination_of_five_by_hand():
    tournament = Tournament("single-elimination", 5)
    listed = tournament.series({})
    assert [(s.key, s.entrants, s.bye, s.winner_to) for s in listed] == [
        ("W1-1", (0,), True, "W2-1"), ("W1-2", (3, 4), False, "W2-1"),
        ("W1-3", (1,), True, "W2-2"), ("W1-4", (2,), True, "W2-2"),
        ("W2-1", (0, None), False, "W3-1"), ("W2-2", (1, 2), False, "W3-1"),
        ("W3-1", (None, None), False, None),
    ]
    assert [s.key for s in tournament.ready({})] == ["W1-2", "W2-2"]
    outcomes = {"W1-2": pair_outcome(4, 3), "W2-2": pair_outcome(2, 1)}
    assert tournament.series(outcomes)[4].entrants == (0, 4)
    outcomes |= {"W2-1": pair_outcome(4, 0), "W3-1": pair_outcome(2, 4)}
    assert tournament.champion(outcomes) == 2
    # Out in the same round, same place: 0 and 1 lost semi-finals, 3 lost in round 1.
    assert places(tournament, outcomes) == {2: 1, 4: 2, 0: 3, 1: 3, 3: 5}


def test_an_elimination_series_cannot_be_recorded_as_a_draw():
    tournament = Tournament("single-elimination", 2)
    with pytest.raises(ValueError, match="cannot end with a shared place"):
        tournament.ready({"W1-1": pair_outcome(0, 1, draw=True)})


# --- double elimination -------------------------------------------------------------------------
def test_double_elimination_of_four_without_the_reset():
    tournament = Tournament("double-elimination", 4)
    outcomes = play(tournament)
    assert [(s.key, s.entrants) for s in tournament.series(outcomes)] == [
        ("W1-1", (0, 3)), ("W1-2", (1, 2)), ("W2-1", (0, 1)), ("L1-1", (3, 2)), ("L2-1", (2, 1)), ("GF1", (0, 1)),
    ]
    assert tournament.champion(outcomes) == 0
    assert places(tournament, outcomes) == {0: 1, 1: 2, 2: 3, 3: 4}


def test_double_elimination_plays_the_reset_final_only_when_the_losers_bracket_winner_wins():
    tournament = Tournament("double-elimination", 4)
    outcomes = play(tournament, lambda s: pair_outcome(1, 0) if s.key == "GF1" else higher_seed_wins(s))
    keys = [s.key for s in tournament.series(outcomes)]
    assert keys[-2:] == ["GF1", "GF2"] and len(played(tournament, outcomes)) == 7
    assert tournament.series(outcomes)[-1].entrants == (0, 1)
    # Entrant 0 lost GF1 but it was its first loss: the reset decides.
    assert tournament.champion(outcomes) == 0
    upset = play(tournament, lambda s: pair_outcome(1, 0) if s.key.startswith("GF") else higher_seed_wins(s))
    assert tournament.champion(upset) == 1 and places(tournament, upset)[0] == 2


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 64])
def test_double_elimination_plays_2n_minus_2_series_or_one_more_with_the_reset(n):
    tournament = Tournament("double-elimination", n)
    assert len(played(tournament, play(tournament))) == 2 * n - 2
    reset = play(tournament, lambda s: pair_outcome(1, 0) if s.key == "GF1" else higher_seed_wins(s))
    assert len(played(tournament, reset)) == 2 * n - 1


def test_double_elimination_of_three_gives_the_top_seed_a_bye_and_the_first_loser_one_too():
    tournament = Tournament("double-elimination", 3)
    assert [(s.key, s.bye) for s in tournament.series({})] == [
        ("W1-1", True), ("W1-2", False), ("W2-1", False), ("L1-1", True), ("L2-1", False), ("GF1", False)]
    outcomes = play(tournament)
    # Nobody lost W1-1, so the loser of W1-2 waits in L1-1 for the loser of the winners' final.
    assert [s.entrants for s in tournament.series(outcomes)][2:] == [(0, 1), (2,), (2, 1), (0, 1)]
    assert places(tournament, outcomes) == {0: 1, 1: 2, 2: 3}


def bracket(tournament, outcomes):
    return [(s.key, s.bracket, s.round, s.entrants, s.bye, s.winner_to, s.loser_to)
            for s in tournament.series(outcomes)]


def test_double_elimination_of_eight_by_hand():
    tournament = Tournament("double-elimination", 8)
    outcomes = play(tournament)
    # Higher seeds win. Winners' round 1: 0-7, 3-4, 1-6, 2-5. L1 pairs the first-round losers of
    # neighbouring matches (7-4, 6-5); in L2 the L1 winners meet the winners' round-2 losers dropped
    # crosswise (the loser of W2-2, from the lower half, meets the upper half's L1 winner), so 4 meets
    # 2 and 5 meets 3. L3: 2-3. L4: 2 meets 1, the loser of the winners' final. Grand final 0-1.
    # Play order: a series comes once every series it waits for is done, the winners' bracket first.
    assert bracket(tournament, outcomes) == [
        ("W1-1", "winners", 1, (0, 7), False, "W2-1", "L1-1"),
        ("W1-2", "winners", 1, (3, 4), False, "W2-1", "L1-1"),
        ("W1-3", "winners", 1, (1, 6), False, "W2-2", "L1-2"),
        ("W1-4", "winners", 1, (2, 5), False, "W2-2", "L1-2"),
        ("W2-1", "winners", 2, (0, 3), False, "W3-1", "L2-2"),
        ("W2-2", "winners", 2, (1, 2), False, "W3-1", "L2-1"),
        ("L1-1", "losers", 1, (7, 4), False, "L2-1", None),
        ("L1-2", "losers", 1, (6, 5), False, "L2-2", None),
        ("W3-1", "winners", 3, (0, 1), False, "GF1", "L4-1"),
        ("L2-1", "losers", 2, (4, 2), False, "L3-1", None),
        ("L2-2", "losers", 2, (5, 3), False, "L3-1", None),
        ("L3-1", "losers", 3, (2, 3), False, "L4-1", None),
        ("L4-1", "losers", 4, (2, 1), False, "GF1", None),
        ("GF1", "final", 1, (0, 1), False, None, None),
    ]
    # Places by how late each went out (a second loss): 6 and 7 in L1, 4 and 5 in L2 share a place.
    # Points: series won.
    rows = tournament.standings(outcomes)
    assert [(r.entrant, r.place, r.points) for r in rows] == [
        (0, 1, 4), (1, 2, 3), (2, 3, 3), (3, 4, 2), (4, 5, 1), (5, 5, 1), (6, 7, 0), (7, 7, 0)]


def lower_seed_wins_in(*brackets):
    """The lower seed (the larger id) wins the series of those brackets, the higher seed every other."""
    def decide(series):
        high, low = sorted(series.entrants)
        return pair_outcome(low, high) if series.bracket in brackets else pair_outcome(high, low)
    return decide


def test_double_elimination_of_eight_routes_upset_losers_by_who_lost():
    tournament = Tournament("double-elimination", 8)
    outcomes = play(tournament, lower_seed_wins_in("winners"))
    listed = {key: entrants for key, _, _, entrants, *_ in bracket(tournament, outcomes)}
    # W1: 7, 4, 6, 5 win; W2: 7-4 and 6-5 give 7 and 6; W3: 7 beats 6.
    # L1: losers 0-3 and 1-2 give 0 and 1. L2-1: 0 meets the loser of W2-2 (5); L2-2: 1 meets 4.
    # L3: 0-1, L4: 0 meets 6, the grand final 7 against 0, who wins it: the reset final is played.
    assert [listed[key] for key in ("W2-1", "W2-2", "W3-1", "L1-1", "L1-2", "L2-1", "L2-2", "L3-1", "L4-1", "GF1")] == [
        (7, 4), (6, 5), (7, 6), (0, 3), (1, 2), (0, 5), (1, 4), (0, 1), (0, 6), (7, 0)]
    assert listed["GF2"] == (7, 0) and tournament.champion(outcomes) == 0
    # 0 won the reset final; 7 lost it (its second loss, the latest), 6 lost L4, 1 L3, 4 and 5 L2.
    assert places(tournament, outcomes) == {0: 1, 7: 2, 6: 3, 1: 4, 4: 5, 5: 5, 2: 7, 3: 7}


def test_double_elimination_of_five_passes_byes_through_the_losers_bracket():
    tournament = Tournament("double-elimination", 5)
    outcomes = play(tournament)
    # Byes to seeds 0, 1, 2 in the winners' bracket. A bye has no loser: L1-1 holds only the loser of
    # 3-4 (a bye), L1-2 would hold nobody and is not listed, and the loser of W2-1 waits alone in L2-2.
    assert bracket(tournament, outcomes) == [
        ("W1-1", "winners", 1, (0,), True, "W2-1", None),
        ("W1-2", "winners", 1, (3, 4), False, "W2-1", "L1-1"),
        ("W1-3", "winners", 1, (1,), True, "W2-2", None),
        ("W1-4", "winners", 1, (2,), True, "W2-2", None),
        ("W2-1", "winners", 2, (0, 3), False, "W3-1", "L2-2"),
        ("W2-2", "winners", 2, (1, 2), False, "W3-1", "L2-1"),
        ("L1-1", "losers", 1, (4,), True, "L2-1", None),
        ("W3-1", "winners", 3, (0, 1), False, "GF1", "L4-1"),
        ("L2-1", "losers", 2, (4, 2), False, "L3-1", None),
        ("L2-2", "losers", 2, (3,), True, "L3-1", None),
        ("L3-1", "losers", 3, (2, 3), False, "L4-1", None),
        ("L4-1", "losers", 4, (2, 1), False, "GF1", None),
        ("GF1", "final", 1, (0, 1), False, None, None),
    ]
    # Byes win no points: 3 has 1 (W1-2), 2 has 2 (L2-1, L3-1).
    rows = tournament.standings(outcomes)
    assert [(r.entrant, r.place, r.points) for r in rows] == [(0, 1, 3), (1, 2, 2), (2, 3, 2), (3, 4, 1), (4, 5, 0)]


def test_double_elimination_reset_final_is_listed_once_the_first_is_lost_by_the_unbeaten():
    tournament = Tournament("double-elimination", 4)
    before = play(tournament, lambda s: pair_outcome(1, 0) if s.key == "GF1" else higher_seed_wins(s))
    del before["GF2"]
    # 1 came through the losers' bracket and beat 0 in GF1: each has lost once, so both are still in
    # (sharing first place) and the reset final between them is to play, in the final's round 2.
    assert bracket(tournament, before)[-2:] == [("GF1", "final", 1, (0, 1), False, None, None),
                                                 ("GF2", "final", 2, (0, 1), False, None, None)]
    assert [s.key for s in tournament.ready(before)] == ["GF2"]
    assert places(tournament, before) == {0: 1, 1: 1, 2: 3, 3: 4}
    assert not tournament.finished(before) and tournament.champion(before) is None


def test_double_elimination_has_no_reset_when_the_unbeaten_lower_seed_wins_the_first_final():
    # The lower seed wins in the winners' bracket and the final, the higher seed in the losers' bracket:
    # W1 3 beats 0, 2 beats 1; W2 3 beats 2; L1 0 beats 1; L2 0 beats 2; GF1 3 (unbeaten) beats 0.
    tournament = Tournament("double-elimination", 4)
    outcomes = play(tournament, lower_seed_wins_in("winners", "final"))
    assert [(s.key, s.entrants) for s in tournament.series(outcomes)][-2:] == [("L2-1", (0, 2)), ("GF1", (3, 0))]
    assert "GF2" not in outcomes and tournament.champion(outcomes) == 3
    assert places(tournament, outcomes) == {3: 1, 0: 2, 2: 3, 1: 4}


# --- round robin --------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 64])
def test_round_robin_meets_every_pair_once_with_one_bye_a_round_when_odd(n):
    listed = Tournament("round-robin", n).series({})
    pairs = Counter(frozenset(s.entrants) for s in listed if not s.bye)
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(range(n), 2)}
    assert set(pairs.values()) == {1}
    rounds = {s.round for s in listed}
    assert len(rounds) == (n if n % 2 else n - 1)
    byes = [s for s in listed if s.bye]
    assert len(byes) == (n if n % 2 else 0) and sorted(s.entrants[0] for s in byes) == (list(range(n)) if n % 2 else [])


def test_round_robin_of_four_by_the_circle_method_by_hand():
    # Entrant 0 stays put while 1, 2, 3 turn: circles 0123, 0231, 0312. Table 1 pairs the ends of the
    # circle, table 2 the middle; the one sitting first alternates from table to table and round to round.
    tournament = Tournament("round-robin", 4)
    assert [(s.key, s.entrants) for s in tournament.series({})] == [
        ("R1-1", (0, 3)), ("R1-2", (2, 1)), ("R2-1", (1, 0)), ("R2-2", (2, 3)), ("R3-1", (0, 2)), ("R3-2", (1, 3))]
    assert tournament.table_sizes() == {2}  # every series is played two to a table


def test_a_round_robin_bye_gives_no_points():
    tournament = Tournament("round-robin", 3)  # each entrant sits out one round of three
    outcomes = play(tournament)
    rows = tournament.standings(outcomes)
    assert {r.entrant: r.points for r in rows} == {0: 2, 1: 1, 2: 0}
    # Nor does it count for Sonneborn-Berger: 0 beat 1 (1 point) and 2 (none), 1 beat only 2.
    assert [r.tiebreaks for r in rows] == [{"sonneborn_berger": 1}, {"sonneborn_berger": 0}, {"sonneborn_berger": 0}]


def test_round_robin_ranks_equal_points_by_sonneborn_berger():
    # 0 beat 1 and 3, lost to 2; 1 beat 2 and 3; 3 beat 2. Points 2, 2, 1, 1.
    # Sonneborn-Berger: 0 beat 1 (2) and 3 (1) = 3; 1 beat 2 (1) and 3 (1) = 2; 2 beat 0 (2) = 2; 3 beat 2 (1) = 1.
    winners = {frozenset((0, 1)): 0, frozenset((0, 2)): 2, frozenset((0, 3)): 0,
               frozenset((1, 2)): 1, frozenset((1, 3)): 1, frozenset((2, 3)): 3}
    tournament = Tournament("round-robin", 4)

    def decide(series):
        winner = winners[frozenset(series.entrants)]
        return pair_outcome(winner, next(e for e in series.entrants if e != winner))

    outcomes = play(tournament, decide)
    rows = tournament.standings(outcomes)
    assert [(r.entrant, r.place, r.points, r.tiebreaks["sonneborn_berger"]) for r in rows] == [
        (0, 1, 2, 3), (1, 2, 2, 2), (2, 3, 1, 2), (3, 4, 1, 1)]
    assert tournament.champion(outcomes) == 0


def test_round_robin_all_drawn_shares_first_place_and_has_no_champion():
    tournament = Tournament("round-robin", 3)
    outcomes = play(tournament, lambda s: pair_outcome(*s.entrants, draw=True))
    assert {r.place for r in tournament.standings(outcomes)} == {1}
    assert tournament.champion(outcomes) is None


def test_a_withdrawn_entrant_loses_every_series_without_playing():
    tournament = Tournament("round-robin", 4, withdrawn=frozenset({1}))
    assert all(1 not in s.entrants for s in tournament.ready({}))
    outcomes = play(tournament)
    rows = {r.entrant: r for r in tournament.standings(outcomes)}
    assert rows[1].points == 0 and rows[1].place == 4
    assert rows[3].points == 1  # beat the withdrawn 1, lost to 0 and 2 (higher seeds win here)
    elimination = Tournament("single-elimination", 4, withdrawn=frozenset({0}))
    outcomes = play(elimination)
    assert elimination.champion(outcomes) == 1
    assert elimination.series(outcomes)[0].entrants == (0, 3) and "W1-1" not in outcomes
    # The walkover reads as a played series would: 3 first with the point, 0 second with none.
    walkover = elimination.walkover(elimination.series(outcomes)[0])
    assert (walkover.placings, walkover.points) == ({3: 1, 0: 2}, {3: 1.0, 0: 0.0})
    # Both withdrawn: the higher seed goes on, first and second still, and neither scores.
    both = Tournament("single-elimination", 4, withdrawn=frozenset({0, 3}))
    walkover = both.walkover(both.series({})[0])
    assert (walkover.placings, walkover.points) == ({0: 1, 3: 2}, {0: 0.0, 3: 0.0})
    # ... in the standings too: 0 goes on to the final without a point; 1 beats 2, then the withdrawn 0.
    outcomes = play(both)
    rows = {r.entrant: r for r in both.standings(outcomes)}
    assert [(rows[e].place, rows[e].points) for e in range(4)] == [(2, 0), (1, 2), (3, 0), (3, 0)]


# --- Swiss --------------------------------------------------------------------------------------
def swiss_next_round(tournament, results, played):
    """Play Swiss rounds 1 to `played` with `results` (outcomes by pair); the next round's byes and pairs."""
    outcomes = {}
    for round_number in range(1, played + 1):
        for series in tournament.series(outcomes):
            if series.round == round_number and not series.bye:
                outcomes[series.key] = results[frozenset(series.entrants)]
    following = [s for s in tournament.series(outcomes) if s.round == played + 1]
    return [s.entrants for s in following if s.bye], sorted(tuple(sorted(s.entrants)) for s in following if not s.bye)


def test_swiss_first_round_pairs_top_half_against_bottom_half():
    listed = Tournament("swiss", 8, rounds=3).series({})
    assert sorted(tuple(sorted(s.entrants)) for s in listed) == [(0, 4), (1, 5), (2, 6), (3, 7)]


def test_swiss_late_round_avoids_a_rematch_by_pairing_the_leader_with_the_last():
    tournament = Tournament("swiss", 4, rounds=3)
    results = {frozenset((0, 2)): 0, frozenset((1, 3)): 1, frozenset((0, 1)): 1, frozenset((2, 3)): 3}

    def decide(series):
        winner = results.get(frozenset(series.entrants), min(series.entrants))
        return pair_outcome(winner, next(e for e in series.entrants if e != winner))

    outcomes = play(tournament, decide)
    last_round = [(s.key, s.entrants) for s in tournament.series(outcomes) if s.round == 3]
    # Leader 1 (2 points) has met 0 and 3, both on 1 point: it must meet 2, on 0, at the first table.
    # Who sits first: 3 has never opened a series, 0 opened both of its own (as the higher seed of a
    # level pair), so 3 opens; 1 and 2 opened once each, so the higher ranked, 1, does.
    assert last_round == [("S3-1", (1, 2)), ("S3-2", (3, 0))]


def test_swiss_a_bye_is_not_sitting_first():
    tournament = Tournament("swiss", 3)
    outcomes = play(tournament)
    # Round 1: 0 opens against 1, 2 has the bye. Round 2: 0 meets 2, who has never sat at a table: 2 opens.
    assert [(s.key, s.entrants) for s in tournament.series(outcomes)] == [
        ("S1-1", (0, 1)), ("S1-2", (2,)), ("S2-1", (2, 0)), ("S2-2", (1,))]


def test_swiss_pairs_within_score_groups_and_a_floater_with_the_top_of_the_group_below():
    tournament = Tournament("swiss", 8, rounds=3)
    results = {frozenset((0, 4)): pair_outcome(4, 0), frozenset((1, 5)): pair_outcome(1, 5),
               frozenset((2, 6)): pair_outcome(2, 6, draw=True), frozenset((3, 7)): pair_outcome(7, 3)}
    outcomes = {s.key: results[frozenset(s.entrants)] for s in tournament.series({})}
    second = [(s.key, s.entrants) for s in tournament.series(outcomes) if s.round == 2]
    # Ranked 1, 4, 7 (1 point), 2, 6 (half), 0, 3, 5 (none). The odd one of the top group, 7, floats down
    # to the highest of the half-point group, 2; 6, left alone, floats down to 0, the highest of the last
    # group, whose other two meet: every pair is level or half a point apart. Tables go by the higher
    # ranked; in each pair one sat first in round 1 (0, 1, 2, 3) and the other sits first now.
    assert second == [("S2-1", (4, 1)), ("S2-2", (7, 2)), ("S2-3", (6, 0)), ("S2-4", (5, 3))]


def test_swiss_keeps_the_score_gaps_small_rather_than_few():
    tournament = Tournament("swiss", 6, rounds=3)
    results = {frozenset((0, 3)): pair_outcome(3, 0), frozenset((1, 4)): pair_outcome(4, 1),  # round 1
               frozenset((2, 5)): pair_outcome(5, 2),
               frozenset((3, 4)): pair_outcome(3, 4), frozenset((0, 5)): pair_outcome(0, 5),  # round 2
               frozenset((1, 2)): pair_outcome(1, 2, draw=True)}
    third = swiss_next_round(tournament, results, 2)[1]
    # Points: 3 has 2; 0, 4 and 5 one; 1 and 2 half. 3 has met 0 and 4, and 1 and 2 have met: 3 against 5
    # (a gap of 1) leaves 0-1 and 2-4 (half a point each). 3 against 2 would leave 0-4 level and 1-5, the
    # same total of gaps (2 points), but one gap of 1.5: squared gaps make the first pairing the better.
    assert third == [(0, 1), (2, 4), (3, 5)]


def test_swiss_squares_the_score_gaps_so_one_wide_gap_can_beat_three_middling_ones():
    tournament = Tournament("swiss", 7, rounds=4)
    results = {frozenset((0, 3)): pair_outcome(0, 3, draw=True), frozenset((1, 4)): pair_outcome(4, 1),  # round 1
               frozenset((2, 5)): pair_outcome(5, 2),
               frozenset((4, 5)): pair_outcome(4, 5, draw=True), frozenset((0, 6)): pair_outcome(6, 0, draw=True),
               frozenset((1, 3)): pair_outcome(3, 1, draw=True),  # round 2
               frozenset((0, 4)): pair_outcome(4, 0), frozenset((5, 6)): pair_outcome(5, 6),  # round 3
               frozenset((2, 3)): pair_outcome(2, 3)}
    byes, fourth = swiss_next_round(tournament, results, 3)
    # Points: 4 and 5 have 2.5, 2 has 2, 1 and 6 one and a half, 0 and 3 one; 6, 2 and 1 have had byes,
    # so 3 has this one. Of the others, 4 may meet only 2 or 6, and 5 only 0 or 1, which leaves three
    # pairings. Gaps in points: 4-2, 5-0, 1-6 is 0.5, 1.5, 0; 4-6, 5-1, 2-0 is 1, 1, 1; 4-6, 5-0, 2-1 is
    # 1, 1.5, 0.5. Squared: 2.5 against 3 and 3.5, so the first, with the one wide gap, is paired (the
    # sum of the gaps' cubes would prefer three gaps of 1: 3.5 against 3).
    assert byes == [(3,)] and fourth == [(0, 5), (1, 6), (2, 4)]


def test_swiss_bye_may_go_up_to_a_two_point_entrant_and_the_gaps_count_in_equal_half_points():
    tournament = Tournament("swiss", 7, rounds=4)
    results = {frozenset((0, 3)): pair_outcome(0, 3), frozenset((1, 4)): pair_outcome(1, 4, draw=True),  # round 1
               frozenset((2, 5)): pair_outcome(5, 2),
               frozenset((0, 5)): pair_outcome(0, 5), frozenset((1, 6)): pair_outcome(1, 6),  # round 2
               frozenset((2, 4)): pair_outcome(2, 4),
               frozenset((0, 1)): pair_outcome(0, 1, draw=True), frozenset((2, 3)): pair_outcome(2, 3),  # round 3
               frozenset((5, 6)): pair_outcome(5, 6)}
    byes, fourth = swiss_next_round(tournament, results, 3)
    # Points: 0 has 2.5; 1, 2 and 5 two; 4 one and a half; 3 and 6 one. 6, 3 and 4 have had byes, so the
    # lowest ranked without one is 5, on 2 points. 0 may then meet 2, 4 or 6: 0-2 leaves 1-3 and 4-6 (gaps
    # 0.5, 1, 0.5: squares 1.5), 0-4 leaves 1-2 and 3-6 (1, 0, 0: 1) or 1-3 and 2-6 (1, 1, 1: 3), 0-6 leaves
    # 1-2 and 3-4 (1.5, 0, 0.5: 2.5). So 0-4, 1-2, 3-6 (every half point counts the same, at 2.5 as at 1).
    assert byes == [(5,)] and fourth == [(0, 4), (1, 2), (3, 6)]


def test_swiss_pairs_only_level_scores_when_the_rematch_rule_allows_it():
    tournament = Tournament("swiss", 10, rounds=3)
    results = {frozenset((0, 5)): pair_outcome(0, 5), frozenset((1, 6)): pair_outcome(1, 6),  # round 1
               frozenset((2, 7)): pair_outcome(7, 2), frozenset((3, 8)): pair_outcome(8, 3),
               frozenset((4, 9)): pair_outcome(9, 4),
               frozenset((0, 1)): pair_outcome(1, 0), frozenset((7, 9)): pair_outcome(9, 7),  # round 2
               frozenset((2, 8)): pair_outcome(2, 8), frozenset((3, 5)): pair_outcome(3, 5, draw=True),
               frozenset((4, 6)): pair_outcome(4, 6, draw=True)}
    third = swiss_next_round(tournament, results, 2)[1]
    # 1 and 9 have 2 points; 0, 2, 7, 8 one; 3, 4, 5, 6 half. In the middle group 2 has met 7 and 8, so it
    # meets 0 and 7 meets 8; in the last 3-5 and 4-6 have met. Every pair can be level, so every pair is.
    assert third == [(0, 2), (1, 9), (3, 4), (5, 6), (7, 8)]


def test_swiss_gives_the_bye_to_the_lowest_ranked_who_has_not_had_one():
    tournament = Tournament("swiss", 5, rounds=3)
    first = tournament.series({})
    assert [s.entrants for s in first if s.bye] == [(4,)]
    outcomes = {s.key: higher_seed_wins(s) for s in first if not s.bye}
    second = [s for s in tournament.series(outcomes) if s.round == 2]
    # After round 1: 0, 1 and 4 (bye) have a point, 2 and 3 none: 3 is the lowest ranked.
    assert [s.entrants for s in second if s.bye] == [(3,)]
    outcomes = play(tournament, outcomes=outcomes)
    byes = [s.entrants[0] for s in tournament.series(outcomes) if s.bye]
    assert len(byes) == 3 and len(set(byes)) == 3
    assert {r.entrant: r.points for r in tournament.standings(outcomes)}[4] >= 1  # a bye is a point
    # ... a point exactly, as a win is: once round 1 is decided, 0 and 1 have won, 4 has had its bye and 3
    # has the bye of round 2, paired at once; 2 has nothing.
    after_first = {s.key: higher_seed_wins(s) for s in first if not s.bye}
    assert [r.points for r in sorted(tournament.standings(after_first), key=lambda r: r.entrant)] == [1, 1, 0, 1, 1]


def test_swiss_bye_goes_to_the_lowest_ranked_without_one_even_past_the_leader():
    tournament = Tournament("swiss", 5, rounds=3)
    winners = {frozenset((0, 2)): 2, frozenset((1, 3)): 1, frozenset((1, 2)): 2, frozenset((0, 4)): 0}

    def decide(series):
        winner = winners[frozenset(series.entrants)]
        return pair_outcome(winner, next(e for e in series.entrants if e != winner))

    outcomes = {}
    for round_number, expected in ((1, [(0, 2), (1, 3), (4,)]), (2, [(0, 4), (1, 2), (3,)])):
        listed = [s for s in tournament.series(outcomes) if s.round == round_number]
        assert sorted(tuple(sorted(s.entrants)) for s in listed) == expected
        outcomes |= {s.key: decide(s) for s in listed if not s.bye}
    third = [s for s in tournament.series(outcomes) if s.round == 3]
    # Points: 2 has 2 (beat 0 and 1); 0, 1, 3 and 4 one each (0 beat 4, 1 beat 3, 4 and 3 had the byes).
    # Only 2, 0 and 1 have had no bye; the lowest ranked of them is 1 (level with 0, lower seed). Without 1,
    # 2 has met 0, and 0 has met 4: 2-4 and 0-3 is the only pairing left. Giving the leader the bye instead
    # (a free point that wins it the tournament) would pair the 1-point four level, but rank decides first.
    assert [s.entrants for s in third if s.bye] == [(1,)]
    assert sorted(tuple(sorted(s.entrants)) for s in third if not s.bye) == [(0, 3), (2, 4)]


def test_swiss_of_three_or_four_can_play_three_rounds_and_two_only_one():
    # With the phantom, 3 entrants make 4 nodes as 4 do: their 6 pairs split into exactly 3 disjoint
    # pairings, so 3 rounds can always be paired. For 3 that is a round robin: each meets the other two
    # and has one bye.
    three = Tournament("swiss", 3, rounds=3)
    listed = three.series(play(three))
    assert sorted(tuple(sorted(s.entrants)) for s in listed) == [(0,), (0, 1), (0, 2), (1,), (1, 2), (2,)]
    four = Tournament("swiss", 4, rounds=3)
    assert sorted(tuple(sorted(s.entrants)) for s in four.series(play(four))) == [
        (0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    for n, rounds, limit in ((3, 4, 3), (4, 4, 3), (2, 2, 1)):
        with pytest.raises(ValueError, match=f"1 to {limit} rounds"):
            Tournament("swiss", n, rounds=rounds)
    assert max_rounds(2) == 1 and max_rounds(3) == max_rounds(4) == 3


def test_swiss_ranks_equal_points_by_buchholz():
    tournament = Tournament("swiss", 4, rounds=2)
    results = {frozenset((0, 2)): pair_outcome(0, 2), frozenset((1, 3)): pair_outcome(3, 1),  # round 1
               frozenset((0, 3)): pair_outcome(3, 0), frozenset((1, 2)): pair_outcome(1, 2, draw=True)}
    outcomes = play(tournament, lambda s: results[frozenset(s.entrants)])
    rows = tournament.standings(outcomes)
    # Points: 3 has 2, 0 has 1, 1 and 2 half a point each. 1 met 3 (2) and 2 (0.5): Buchholz 2.5;
    # 2 met 0 (1) and 1 (0.5): Buchholz 1.5. Sonneborn-Berger: both drew with each other, 0.5 x 0.5.
    assert [(r.entrant, r.place, r.points) for r in rows] == [(3, 1, 2), (0, 2, 1), (1, 3, 0.5), (2, 4, 0.5)]
    assert [rows[2].tiebreaks, rows[3].tiebreaks] == [{"buchholz": 2.5, "sonneborn_berger": 0.25},
                                                       {"buchholz": 1.5, "sonneborn_berger": 0.25}]


def test_swiss_ranks_equal_points_and_buchholz_by_sonneborn_berger():
    tournament = Tournament("swiss", 4, rounds=2)
    results = {frozenset((0, 2)): pair_outcome(0, 2), frozenset((1, 3)): pair_outcome(1, 3, draw=True),  # round 1
               frozenset((0, 1)): pair_outcome(1, 0), frozenset((2, 3)): pair_outcome(2, 3, draw=True)}
    outcomes = play(tournament, lambda s: results[frozenset(s.entrants)])
    rows = tournament.standings(outcomes)
    # Points: 1 has 1.5, 0 and 3 one each, 2 half a point. Buchholz: 0 met 2 and 1, 3 met 1 and 2: 2 each.
    # Sonneborn-Berger: 0 beat 2 (1 x 0.5) and lost to 1: 0.5; 3 drew with 1 and 2 (0.5 x 1.5 + 0.5 x 0.5): 1.
    assert [(r.entrant, r.place, r.points) for r in rows] == [(1, 1, 1.5), (3, 2, 1), (0, 3, 1), (2, 4, 0.5)]
    assert [rows[1].tiebreaks, rows[2].tiebreaks] == [{"buchholz": 2, "sonneborn_berger": 1},
                                                       {"buchholz": 2, "sonneborn_berger": 0.5}]


@pytest.mark.parametrize("format, options, message", [
    ("swiss", {"rounds": 4}, "1 to 3 rounds"),
    ("swiss", {"rounds": 4}, "use round-robin"),
    ("swiss", {"rounds": 0}, "1 to 3 rounds"),
    ("heats", {"pod_size": 2}, "pod size of at least 3"),
    ("heats", {"pod_size": 4, "advance": 4}, r"advance must be 1 to pod size - 1 \(3\), not 4"),
    ("heats", {"pod_size": 4, "advance": 0}, r"advance must be 1 to pod size - 1 \(3\), not 0"),
    ("heats", {"pod_size": 4, "advance": 5}, r"advance must be 1 to pod size - 1 \(3\), not 5"),
    ("single-elimination", {"rounds": 2}, "option of swiss"),
    ("round-robin", {"pod_size": 4}, "options of heats"),
    ("knockout", {}, "unknown tournament format"),
])
def test_bad_combinations_are_refused_with_a_clear_message(format, options, message):
    with pytest.raises(ValueError, match=message):
        Tournament(format, 6, **options)


def test_withdrawn_entrants_must_be_entrants_of_the_field():
    for stranger in (4, 5, -1):
        with pytest.raises(ValueError, match=re.escape(f"withdrawn entrant(s) [{stranger}] are not entrants 0 to 3")):
            Tournament("round-robin", 4, withdrawn=frozenset({stranger}))
    assert Tournament("round-robin", 4, withdrawn=frozenset({0, 3})).withdrawn == {0, 3}  # both ends are entrants


def test_options_belong_to_their_format_however_its_name_was_built():
    # A format named in a request or a file is a new string, equal to the literal but not the same object.
    swiss, heats = "".join(["sw", "iss"]), "".join(["he", "ats"])
    tournament = Tournament(swiss, 6, rounds=2)
    assert {s.round for s in tournament.series(play(tournament))} == {1, 2}
    assert Tournament(heats, 8, pod_size=4, advance=2).table_sizes() == {4}
    with pytest.raises(TypeError):  # options by name only: a pod size is never taken for a number of rounds
        Tournament("heats", 8, 4)
    for format in FORMATS:
        if format != "swiss":
            with pytest.raises(ValueError, match=f"rounds is an option of swiss, not of {format}"):
                Tournament(format, 6, rounds=2)
        if format != "heats":
            for option in ({"pod_size": 4}, {"advance": 2}):
                with pytest.raises(ValueError, match=f"pod size and advance are options of heats, not of {format}"):
                    Tournament(format, 6, **option)


def test_an_outcome_must_fit_a_series_to_play_now():
    tournament = Tournament("round-robin", 4)
    assert tournament.series({})[0].entrants == (0, 3)
    misfits = [Outcome({0: 1}, {0: 1.0, 3: 0.0}), Outcome({0: 1, 3: 2, 1: 3}, {0: 1.0, 3: 0.0}),  # placings
               Outcome({0: 1, 3: 2}, {0: 1.0}), Outcome({0: 1, 3: 2}, {0: 1.0, 3: 0.0, 1: 0.0})]  # points
    for outcome in misfits:
        with pytest.raises(ValueError, match=re.escape("the outcome of R1-1 must place and score exactly entrants (0, 3)")):
            tournament.ready({"R1-1": outcome})
    with pytest.raises(ValueError, match="an outcome for R9-9, which is not a series to play now"):
        tournament.ready({"R9-9": pair_outcome(0, 3)})
    swiss = Tournament("swiss", 3)  # round 1: 0-1, and 2 has the bye, decided without play
    assert [s.entrants for s in swiss.series({})] == [(0, 1), (2,)]
    with pytest.raises(ValueError, match="an outcome for S1-2, which is not a series to play now"):
        swiss.ready({"S1-2": Outcome({2: 1}, {2: 1.0})})
    elimination = Tournament("single-elimination", 3)  # W2-1 waits for the winner of W1-2
    with pytest.raises(ValueError, match="an outcome for W2-1, which is not a series to play now"):
        elimination.ready({"W2-1": pair_outcome(0, 1)})
    assert tournament.ready({"R1-1": pair_outcome(3, 0)})  # a fitting outcome is taken


def test_too_few_entrants_or_a_stuck_heat_are_refused():
    with pytest.raises(ValueError, match="at least 2 entrants"):
        Tournament("round-robin", 1)
    with pytest.raises(ValueError, match="swiss needs at least 2 entrants who are not withdrawn"):
        Tournament("swiss", 3, withdrawn=frozenset({0, 2}))
    with pytest.raises(ValueError, match="heats need at least 2 entrants who are not withdrawn"):
        Tournament("heats", 3, withdrawn=frozenset({1, 2}))


def test_swiss_of_an_odd_field_counts_the_phantom_in_its_round_limit():
    # 7 entrants and the phantom make 8: after r rounds each still has 7 - r possible partners, at least
    # half of 8 up to r = 3, so a fourth round can always be paired and a fifth not.
    assert Tournament("swiss", 7, rounds=4).series({})
    with pytest.raises(ValueError, match="1 to 4 rounds"):
        Tournament("swiss", 7, rounds=5)
    with pytest.raises(ValueError, match="cannot narrow 4 entrants"):
        Tournament("heats", 4, pod_size=3, advance=2)


def test_a_format_that_lists_no_series_ranks_nobody_or_has_no_bound_cannot_be_built():
    # A new format must define all three: without one, building it fails at once rather than in mid-tournament.
    class NoSeries(Format):
        def standings(self, outcomes):
            return []

        def series_bound(self):
            return 0

    class NoStandings(Format):
        def series(self, outcomes):
            return []

        def series_bound(self):
            return 0

    class NoBound(Format):
        def series(self, outcomes):
            return []

        def standings(self, outcomes):
            return []

    for unfinished, missing in ((NoSeries, "series"), (NoStandings, "standings"), (NoBound, "series_bound")):
        with pytest.raises(TypeError, match=f"abstract method '?{missing}"):
            unfinished(2, frozenset())


# --- heats --------------------------------------------------------------------------------------
def test_heats_of_thirteen_snake_the_seeds_into_pods():
    tournament = Tournament("heats", 13, pod_size=4, advance=2)
    first = [s for s in tournament.series({}) if s.round == 1]
    assert [s.entrants for s in first] == [(0, 7, 8), (1, 6, 9), (2, 5, 10), (3, 4, 11, 12)]
    assert [len(s.entrants) for s in tournament.series({}) if s.round > 1] == [4, 4, 4]
    outcomes = play(tournament)
    second = [s.entrants for s in tournament.series(outcomes) if s.round == 2]
    # Pod winners 0-3 then runners-up 4-7 (ranked by place, then seed), snaked into two pods.
    assert second == [(0, 3, 4, 7), (1, 2, 5, 6)]
    final = tournament.series(outcomes)[-1]
    assert final.bracket == "final" and final.entrants == (0, 1, 2, 3)  # winners 0, 1, then runners-up 2, 3
    assert tournament.champion(outcomes) == 0
    assert [r.place for r in tournament.standings(outcomes)][:4] == [1, 2, 3, 4]


def test_heats_with_a_pod_no_bigger_than_advance_pass_it_on_without_play():
    tournament = Tournament("heats", 5, pod_size=4, advance=2)
    first = [s for s in tournament.series({}) if s.round == 1]
    assert [(s.entrants, s.bye) for s in first] == [((0, 3, 4), False), ((1, 2), True)]
    assert [s.key for s in tournament.ready({})] == ["H1-P1"]
    assert tournament.table_sizes() == {3, 4}  # the pod of 3, then the final of 4; the bye of 2 is not played


def test_heats_of_thirteen_rank_by_round_reached_then_pod_place_and_sum_members_beaten():
    tournament = Tournament("heats", 13, pod_size=4, advance=2)
    outcomes = play(tournament)  # the higher seed always wins (pods as in the test above)
    # Out in round 1: third places 8, 9, 10 (pods of 3) and 11, fourth 12; in round 2: third 4 and 5,
    # fourth 7 and 6. Points, one per pod member placed below: 0 won three pods (2 + 3 + 3), 1 two and
    # came second in the final (2 + 3 + 2), 3 won a pod of 4 and was second then last (3 + 2 + 0), ...
    assert [(r.entrant, r.place, r.points) for r in tournament.standings(outcomes)] == [
        (0, 1, 8), (1, 2, 7), (2, 3, 5), (3, 4, 5), (4, 5, 3), (5, 5, 2), (6, 7, 1), (7, 7, 1),
        (8, 9, 0), (9, 9, 0), (10, 9, 0), (11, 9, 1), (12, 13, 0)]
    assert tournament.table_sizes() == {3, 4}


def test_heats_with_upsets_a_bye_and_a_withdrawal_by_hand():
    tournament = Tournament("heats", 6, pod_size=4, advance=2, withdrawn=frozenset({1}))
    # 5 entrants still in (1 is left out): two pods, snaked 0 | 2, then 3 | 4 backwards, then 5: (0 4 5) and
    # (2 3), a bye. 2 + 2 go on: the final table of 4.
    assert [(s.key, s.round, s.bracket, s.entrants, s.bye, s.advance) for s in tournament.series({})] == [
        ("H1-P1", 1, None, (0, 4, 5), False, 2), ("H1-P2", 1, None, (2, 3), True, 2),
        ("H2-P1", 2, "final", (None, None, None, None), False, None)]
    outcomes = {"H1-P1": Outcome({5: 1, 0: 2, 4: 3}, {5: 2, 0: 1, 4: 0})}
    # On to the final, by pod place then seed: the pod winners 2 (the bye's top seed) and 5, then 0 and 3.
    final = tournament.series(outcomes)[-1]
    assert final.entrants == (2, 5, 0, 3) and [s.key for s in tournament.ready(outcomes)] == ["H2-P1"]
    outcomes["H2-P1"] = Outcome({3: 1, 0: 2, 2: 3, 5: 4}, {3: 3, 0: 2, 2: 1, 5: 0})
    # The final table gives places 1-4; 4 went out in round 1; the withdrawn 1 is last. A bye scores nothing.
    assert [(r.entrant, r.place, r.points) for r in tournament.standings(outcomes)] == [
        (3, 1, 3), (0, 2, 3), (2, 3, 1), (5, 4, 2), (4, 5, 0), (1, 6, 0)]
    assert tournament.champion(outcomes) == 3


def test_heats_defaults_are_pods_of_four_with_half_going_on():
    tournament = Tournament("heats", 10)
    # Pods of 4: (0 5 6) (1 4 7) (2 3 8 9); 2 of each go on, 6 in two pods of 3; 2 of each, the final of 4.
    assert [(s.entrants if s.round == 1 else len(s.entrants), s.advance) for s in tournament.series({})] == [
        ((0, 5, 6), 2), ((1, 4, 7), 2), ((2, 3, 8, 9), 2), (3, 2), (3, 2), (4, None)]
    # Half of 5 is 2 (rounded down), of 3 is 1.
    assert {s.advance for s in Tournament("heats", 10, pod_size=5).series({})} == {2, None}
    assert [len(s.entrants) for s in Tournament("heats", 10, pod_size=5).series({})] == [5, 5, 4]
    assert [(s.entrants, s.advance) for s in Tournament("heats", 7, pod_size=3).series({})] == [
        ((0, 5, 6), 1), ((1, 4), 1), ((2, 3), 1), ((None, None, None), None)]


def test_heats_small_enough_for_one_table_play_it_as_the_final():
    # Three bots in pods of 4, even with all 3 going on: one table, played, not passed on as a bye.
    tournament = Tournament("heats", 3, pod_size=4, advance=3)
    assert [(s.key, s.bracket, s.entrants, s.bye) for s in tournament.ready({})] == [("H1-P1", "final", (0, 1, 2), False)]
    assert tournament.table_sizes() == {3}
    outcomes = {"H1-P1": Outcome({2: 1, 1: 2, 0: 3}, {2: 2, 1: 1, 0: 0})}
    assert tournament.champion(outcomes) == 2
    assert [(r.entrant, r.place) for r in tournament.standings(outcomes)] == [(2, 1), (1, 2), (0, 3)]
    # Two left after a withdrawal are still heats: one final table of 2; the withdrawn ranks last.
    two = Tournament("heats", 3, withdrawn=frozenset({0}))
    assert [(s.bracket, s.entrants) for s in two.ready({})] == [("final", (1, 2))] and two.table_sizes() == {2}
    outcomes = {"H1-P1": Outcome({2: 1, 1: 2}, {2: 1, 1: 0})}
    assert [(r.entrant, r.place, r.points) for r in two.standings(outcomes)] == [(2, 1, 1), (1, 2, 0), (0, 3, 0)]


# --- properties under any results ---------------------------------------------------------------
def random_results(rng, draws):
    def decide(series):
        shuffled = list(series.entrants)
        rng.shuffle(shuffled)
        if series.drawable and draws and rng.random() < 0.2:
            return pair_outcome(*shuffled, draw=True)
        return Outcome({e: place for place, e in enumerate(shuffled, 1)},
                       {e: len(shuffled) - place for place, e in enumerate(shuffled, 1)})
    return decide


@settings(max_examples=examples(60), deadline=None, database=None)
@given(format=st.sampled_from(FORMATS), n=st.integers(2, 24), seed=st.integers(0, 2**32), draws=st.booleans(),
       withdrawn=st.sets(st.integers(0, 23), max_size=2))
def test_any_results_finish_with_each_entrant_once_a_round(format, n, seed, draws, withdrawn):
    withdrawn = frozenset(e for e in withdrawn if e < n)
    if format in ("swiss", "heats") and n - len(withdrawn) < 2:
        withdrawn = frozenset()
    tournament = Tournament(format, n, withdrawn=withdrawn, **({"pod_size": 4} if format == "heats" else {}))
    outcomes = play(tournament, random_results(random.Random(seed), draws))
    listed = tournament.series(outcomes)
    for _, group in itertools.groupby(listed, key=lambda s: (s.bracket, s.round, s.key[:2] == "GF")):
        seated = [e for s in group for e in s.entrants]
        assert len(seated) == len(set(seated)) and None not in seated
    games = [s for s in listed if not s.bye]
    if format == "round-robin":
        assert Counter(frozenset(s.entrants) for s in games) == Counter(
            frozenset(p) for p in itertools.combinations(range(n), 2))
    elif format == "single-elimination":
        assert len(games) == n - 1 and tournament.champion(outcomes) is not None
    elif format == "double-elimination":
        assert len(games) in (2 * n - 2, 2 * n - 1) and tournament.champion(outcomes) is not None
    elif format == "swiss":
        met = [frozenset(s.entrants) for s in listed]
        assert len(met) == len(set(met)), "a rematch, or a second bye"
    else:
        assert tournament.champion(outcomes) is not None
    assert sorted(r.entrant for r in tournament.standings(outcomes)) == list(range(n))
    assert all(not set(s.entrants) & withdrawn for s in tournament.ready(outcomes))


@settings(max_examples=examples(80), deadline=None, database=None)
@given(n=st.integers(2, 16), seed=st.integers(0, 2**32), draws=st.booleans())
def test_swiss_at_its_round_limit_still_pairs_everybody_without_a_rematch(n, seed, draws):
    tournament = Tournament("swiss", n, rounds=max_rounds(n))
    outcomes = play(tournament, random_results(random.Random(seed), draws))
    listed = tournament.series(outcomes)
    met = [frozenset(s.entrants) for s in listed if not s.bye]
    assert len(met) == len(set(met))
    byes = [s.entrants[0] for s in listed if s.bye]
    assert len(byes) == len(set(byes)) == (max_rounds(n) if n % 2 else 0)


@pytest.mark.parametrize(("pod_size", "advance"), [(3, 2), (4, 3), (6, 5)])
def test_heats_settings_that_play_a_small_field_but_not_a_larger_one_are_refused(pod_size, advance):
    from games.tournament.tournament import smallest_field

    with pytest.raises(ValueError, match=f"pods of {pod_size} and {advance} advancing cannot narrow"):
        smallest_field("heats", 64, pod_size=pod_size, advance=advance)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FORMATS), st.integers(1, 12), st.integers(3, 6), st.integers(1, 5))
def test_settings_accepted_play_every_field_from_their_smallest_to_the_largest(fmt, rounds, pod_size, advance):
    from games.tournament.tournament import smallest_field

    options = {"rounds": rounds} if fmt == "swiss" else {"pod_size": pod_size, "advance": advance} \
        if fmt == "heats" else {}
    try:
        smallest = smallest_field(fmt, 40, **options)
    except ValueError:
        return
    for entrants in range(smallest, 41):
        Tournament(fmt, entrants, **options)  # none raises
