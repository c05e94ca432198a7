"""One series: seat-balanced seeded blocks, best-of-N, and the tie-break when a series is level."""

from collections import Counter

import pytest

from games.tournament import Series
from games.tournament.model import series_winner
from games.tournament.series import TIEBREAK_BLOCKS, GameRecord, SeriesPlan, SeriesScore, game_seed

PAIR = Series("W1-1", 1, "winners", (3, 5))
DRAWABLE = Series("R1-1", 1, None, (3, 5), drawable=True)
POD = Series("H1-P1", 1, None, (0, 4, 7), advance=1)


def record(spec, scores, statuses=None):
    """The game of `spec` with per-seat `scores`; placings as the referee gives them (failed seats last)."""
    statuses = statuses or ["ok"] * len(scores)
    alive = [s for s in range(len(scores)) if statuses[s] == "ok"]
    placings = [1 + sum(scores[o] > scores[s] for o in alive) if s in alive else len(scores) for s in range(len(scores))]
    return GameRecord(spec.seats, tuple(scores), tuple(placings), tuple(statuses))


def play(plan, scores_for):
    """Play the plan out; `scores_for(spec)` gives each game's per-seat scores. The games played."""
    played = []
    while specs := plan.next_games(played):
        played += [record(spec, scores_for(spec)) for spec in specs]
    return played


def by_entrant(points: dict):
    """Per-seat scores from entrant -> score, whatever the seat order."""
    return lambda spec: [points[e] for e in spec.seats]


def test_games_come_in_seat_swapped_pairs_that_share_a_seed():
    plan = SeriesPlan(PAIR, 3, 2, seed=9)
    assert plan.games_per_series == 4  # rounded up to whole seat-swapped pairs
    first = plan.next_games([])
    assert [s.seats for s in first] == [(3, 5), (5, 3)]
    assert first[0].seed == first[1].seed == game_seed(9, "W1-1", 0)
    second = plan.next_games([record(s, [1, 0] if s.seats[0] == 3 else [0, 1]) for s in first])
    assert [s.index for s in second] == [2, 3] and second[0].seed == game_seed(9, "W1-1", 1) != first[0].seed


def test_game_seeds_repeat_on_every_run_and_differ_by_tournament_and_series():
    assert game_seed(9, "W1-1", 0) == game_seed(9, "W1-1", 0)
    assert len({game_seed(9, "W1-1", 0), game_seed(10, "W1-1", 0), game_seed(9, "W1-2", 0)}) == 3
    assert 0 <= game_seed(9, "W1-1", 0) < 2**63
    # The documented derivation, from coreutils: `printf 9/W1-1/0 | sha256sum` starts c51dd04be93f70cb,
    # `printf 9/W1-1/1 | sha256sum` 5e2047cda44e23cc; a seed is those 8 bytes without their last bit.
    assert game_seed(9, "W1-1", 0) == 0xC51DD04BE93F70CB >> 1 > 2**62
    assert game_seed(9, "W1-1", 1) == 0x5E2047CDA44E23CC >> 1


def test_a_pod_rotates_every_entrant_through_every_seat():
    specs = SeriesPlan(POD, 3, 3, seed=1).next_games([])
    assert [s.seats for s in specs] == [(0, 4, 7), (4, 7, 0), (7, 0, 4)]
    for entrant in POD.entrants:
        assert sorted(s.seats.index(entrant) for s in specs) == [0, 1, 2]


def test_one_game_asked_for_is_one_whole_block():
    assert SeriesPlan(PAIR, 1, 2, seed=0).games_per_series == 2
    assert SeriesPlan(POD, 4, 3, seed=0).games_per_series == 6


def test_a_series_stops_only_at_the_end_of_a_block():
    plan = SeriesPlan(PAIR, 4, 2, seed=5)
    block = plan.next_games([])
    played = [record(block[0], [1, 0])]  # 3, sitting first, wins
    assert plan.outcome(played) is None and plan.next_games(played) == block[1:]  # the same seed, seats swapped
    played.append(record(block[1], [0, 1]))  # 3, sitting second, wins
    second = plan.next_games(played)  # 2-0, but the last two games could still make it 2-2
    assert [s.seats for s in second] == [(3, 5), (5, 3)] and [s.index for s in second] == [2, 3]
    played.append(record(second[0], [1, 0]))
    # 3-0 with one game left cannot be caught, but 3 has sat first twice and 5 once: the block is played out.
    assert plan.outcome(played) is None and plan.next_games(played) == second[1:]
    played.append(record(second[1], [0, 1]))
    assert plan.next_games(played) == [] and plan.outcome(played).placings == {3: 1, 5: 2}


def test_best_of_n_stops_once_the_lead_cannot_be_caught():
    plan = SeriesPlan(PAIR, 6, 2, seed=0)
    played = play(plan, by_entrant({3: 10, 5: 1}))
    assert len(played) == 4  # 4-0 with 2 games left
    outcome = plan.outcome(played)
    assert outcome.placings == {3: 1, 5: 2} and outcome.points == {3: 1.0, 5: 0.0} and series_winner(outcome) == 3


def test_a_lead_of_two_with_two_games_left_is_played_out():
    plan = SeriesPlan(PAIR, 6, 2, seed=0)
    # Block 1: one game each (whoever sits first wins); then 3 wins every game. 3-1 after 4 games, with 2
    # left that could make it 3-3: all 6 are played (5-1).
    played = play(plan, lambda spec: [1, 0] if spec.index < 2 else by_entrant({3: 1, 5: 0})(spec))
    assert len(played) == 6 and plan.outcome(played).placings == {3: 1, 5: 2}


def test_a_bot_that_fails_loses_that_game_whatever_its_score():
    plan = SeriesPlan(PAIR, 2, 2, seed=0)
    first, second = plan.next_games([])
    played = [record(first, [10, 0], ["crash", "ok"]), record(second, [5, 0])]  # 3 crashed, then lost
    assert plan.outcome(played).placings == {3: 2, 5: 1}


def test_a_level_round_robin_series_is_a_draw():
    plan = SeriesPlan(DRAWABLE, 2, 2, seed=0)
    played = play(plan, lambda spec: [7, 2])  # whoever sits first wins: one game each
    assert len(played) == 2
    outcome = plan.outcome(played)
    assert outcome.placings == {3: 1, 5: 1} and outcome.points == {3: 0.5, 5: 0.5}
    assert series_winner(outcome) is None  # a drawn series has no winner to report


def test_game_points_come_before_total_points():
    plan = SeriesPlan(PAIR, 4, 2, seed=0)
    # 3 wins three games 1-0; 5 wins the other 100-0: 3 goes on, 3 games to 1, however few points it took.
    played = play(plan, lambda spec: [100, 0] if spec.index == 1 else by_entrant({3: 1, 5: 0})(spec))
    assert len(played) == 4 and plan.outcome(played).placings == {3: 1, 5: 2}


def test_a_level_elimination_series_goes_to_total_points():
    plan = SeriesPlan(PAIR, 2, 2, seed=0)
    # One game each, but entrant 5 won by more: 9 + 4 = 13 against 3's 5 + 6 = 11.
    played = play(plan, lambda spec: [5, 4] if spec.seats[0] == 3 else [9, 6])
    assert len(played) == 2 and plan.outcome(played).placings == {5: 1, 3: 2}


def test_level_on_points_too_plays_more_games_then_gives_it_to_the_higher_seed():
    plan = SeriesPlan(Series("W1-1", 1, "winners", (5, 3)), 2, 2, seed=0)
    played = play(plan, lambda spec: [7, 2])  # the first seat always wins by the same margin
    assert TIEBREAK_BLOCKS == 2 and len(played) == 6  # the 2 games, then the documented 2 further blocks
    assert Counter(r.seats[0] for r in played) == {3: 3, 5: 3}
    assert plan.outcome(played).placings == {3: 1, 5: 2}  # 3 is the higher seed


def test_the_documented_end_game_example():
    # A (entrant 3) wins the first board 60-40, B (5) the second 55-52: one game each, but A took
    # 60 + 52 = 112 to B's 40 + 55 = 95, so A goes on after the two games.
    plan = SeriesPlan(PAIR, 2, 2, seed=0)
    boards = {(3, 5): [60, 40], (5, 3): [55, 52]}
    played = play(plan, lambda spec: boards[spec.seats])
    assert len(played) == 2 and plan.outcome(played).placings == {3: 1, 5: 2}
    # Level on 107 each (the first seat always takes 60 to 47): two more boards, two more, then the higher seed.
    level = SeriesPlan(Series("W1-1", 1, "winners", (5, 3)), 2, 2, seed=0)
    played = play(level, lambda spec: [60, 47])
    assert len(played) == 6 and len({r.seats for r in played}) == 2
    # Part-way through the second further block, the rest of that block comes next.
    assert [(s.index, s.seats) for s in level.next_games(played[:5])] == [(5, played[5].seats)]
    assert level.outcome(played).placings == {3: 1, 5: 2} and level.outcome(played).points == {3: 1.0, 5: 0.0}


def test_more_games_decide_when_the_extra_block_separates_them():
    plan = SeriesPlan(PAIR, 2, 2, seed=0)
    played = play(plan, lambda spec: [7, 2] if spec.index < 2 else by_entrant({3: 0, 5: 1})(spec))
    assert len(played) == 4 and plan.outcome(played).placings == {5: 1, 3: 2}


def test_a_cooperative_series_level_goes_straight_to_the_higher_seed():
    plan = SeriesPlan(Series("W1-1", 1, "winners", (5, 3)), 2, 2, seed=0, cooperative=True)
    played = play(plan, lambda spec: [4, 4])  # one shared score
    assert len(played) == 2 and plan.outcome(played).placings == {3: 1, 5: 2}


def test_a_cooperative_series_is_separated_by_failures_only():
    plan = SeriesPlan(PAIR, 2, 2, seed=0, cooperative=True)
    first, second = plan.next_games([])
    # One shared score every game; 3 (the higher seed) timed out in the second game, so the referee placed
    # it last there: 5 goes on.
    played = [record(first, [4, 4]), record(second, [3, 3], ["ok", "timeout"])]
    assert plan.next_games(played) == [] and plan.outcome(played).placings == {5: 1, 3: 2}


def test_a_pod_stops_once_its_whole_order_is_out_of_reach():
    # Every game 4 first (2 points), 7 second (1), 0 last: after k blocks of 3 games the gaps are 3k each,
    # and each remaining game can move two entrants 2 points closer (one first, the other last).
    for games, expected in ((9, 9), (12, 9), (18, 15)):
        # 9 games: 6 and 6 ahead after 2 blocks, 3 games (6 points) left: played out. 12: 9 ahead with 3 games
        # left, done after 9. 18: after 4 blocks 12 ahead with 6 games (12 points) left, after 5 15 with 3 left.
        plan = SeriesPlan(POD, games, 3, seed=0)
        played = play(plan, by_entrant({4: 9, 7: 5, 0: 1}))
        assert len(played) == expected, games
        assert plan.outcome(played).placings == {4: 1, 7: 2, 0: 3}


def test_a_pod_with_its_winner_clear_but_the_rest_level_plays_on_to_the_tie_break():
    # 4 wins every game, 0 and 7 share second place in each (half a point each for the level seat): 4 is
    # out of reach after 9 of 12 games, but a heats pod needs every place, so all 12 are played, then
    # the 2 further blocks of 3, and 0 (the higher seed) is placed before 7.
    plan = SeriesPlan(POD, 12, 3, seed=0)
    played = play(plan, by_entrant({4: 9, 7: 5, 0: 5}))
    assert len(played) == 18
    outcome = plan.outcome(played)
    assert outcome.placings == {4: 1, 0: 2, 7: 3} and outcome.points == {4: 2, 0: 1, 7: 0}


def test_a_pod_places_everybody_and_scores_members_beaten():
    plan = SeriesPlan(POD, 3, 3, seed=0)
    played = play(plan, by_entrant({0: 1, 4: 5, 7: 3}))
    outcome = plan.outcome(played)
    assert outcome.placings == {4: 1, 7: 2, 0: 3} and outcome.points == {4: 2, 7: 1, 0: 0}


def test_games_played_in_the_wrong_seats_or_an_unplayable_series_are_refused():
    plan = SeriesPlan(PAIR, 2, 2, seed=0)
    with pytest.raises(ValueError, match="seated"):
        plan.next_games([GameRecord((3, 5), (1, 0), (1, 2), ("ok", "ok")), GameRecord((3, 5), (1, 0), (1, 2), ("ok", "ok"))])
    with pytest.raises(ValueError, match="seated"):
        plan.outcome([GameRecord((5, 3), (1, 0), (1, 2), ("ok", "ok"))])
    with pytest.raises(ValueError, match="not playable"):
        SeriesPlan(Series("W1-1", 1, "winners", (3,), bye=True), 2, 1, seed=0)
    with pytest.raises(ValueError, match="not playable"):
        SeriesPlan(Series("W2-1", 2, "winners", (3, None)), 2, 2, seed=0)
    with pytest.raises(ValueError, match="seats 2 entrants, not 3"):
        SeriesPlan(PAIR, 2, 3, seed=0)
    with pytest.raises(ValueError, match="seats 3 entrants, not 2"):
        SeriesPlan(POD, 3, 2, seed=0)
    with pytest.raises(ValueError, match="at least one game, not 0"):
        SeriesPlan(PAIR, 0, 2, seed=0)


# --- how a decided series reads: game points, totals and the tie-break that separated them -------------------

def test_a_series_won_on_game_points_needs_no_tie_break():
    plan = SeriesPlan(PAIR, 2, 2, seed=0)
    played = play(plan, by_entrant({3: 1, 5: 0}))
    assert plan.score(played) == SeriesScore({3: 2.0, 5: 0.0}, {3: 2.0, 5: 0.0}, "")


def test_a_level_series_names_the_tie_break_that_decided_it():
    # The documented End Game example: one game each, A took 112 to B's 95.
    plan = SeriesPlan(PAIR, 2, 2, seed=0)
    boards = {(3, 5): [60, 40], (5, 3): [55, 52]}
    score = plan.score(play(plan, lambda spec: boards[spec.seats]))
    assert score.game_points == {3: 1.0, 5: 1.0} and score.totals == {3: 112.0, 5: 95.0}
    assert score.tiebreak == "total points"
    level = SeriesPlan(Series("W1-1", 1, "winners", (5, 3)), 2, 2, seed=0)
    assert level.score(play(level, lambda spec: [60, 47])).tiebreak == "higher seed after more games"
    extra = SeriesPlan(PAIR, 2, 2, seed=0)
    played = play(extra, lambda spec: [7, 2] if spec.index < 2 else by_entrant({3: 0, 5: 1})(spec))
    assert extra.score(played).tiebreak == "more games"


def test_a_drawn_series_and_an_undecided_one_read_as_such():
    plan = SeriesPlan(DRAWABLE, 2, 2, seed=0)
    assert plan.score(play(plan, lambda spec: [7, 2])) == SeriesScore({3: 1.0, 5: 1.0}, {3: 9.0, 5: 9.0}, "")
    with pytest.raises(ValueError, match="not decided"):
        SeriesPlan(PAIR, 2, 2, seed=0).score([])
