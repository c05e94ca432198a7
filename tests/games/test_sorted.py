"""Sorted!: the exact solver against plain breadth-first search, the rules, the score and the bots."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from games import ConfigError, get_game
from games.bots import builtin_player
from games.referee import InProcessPlayer, play_match
from games.sorted_game import solver
from games.sorted_game.solver import HAND, SEATS, SORTED, Solver
from quick_tier import examples

GAME = get_game("sorted")
ROOT = Path(__file__).resolve().parents[2]


# --- plain breadth-first search: the reference the solver is checked against -----------------------
def turns(cards, mover):
    """Every position one turn of `mover` reaches (a swap of equal cards leaves `cards` as they are)."""
    for mine in range(mover * HAND, mover * HAND + HAND):
        for other in range(len(cards)):
            if other // HAND != mover:
                yield solver.swap(cards, mine, other)


def within(depth):
    """For each mover m, {cards: fewest turns} of every deal that m and the seats after it sort within
    `depth` turns, built backwards from the sorted table one turn at a time (a swap undoes itself)."""
    levels = [{mover: {SORTED: 0} for mover in range(SEATS)}]
    for k in range(1, depth + 1):
        level = {}
        for mover in range(SEATS):
            reach = dict(levels[-1][mover])
            for cards in levels[-1][(mover + 1) % SEATS]:
                for before in turns(cards, mover):
                    reach.setdefault(before, k)
            level[mover] = reach
        levels.append(level)
    return levels[-1]


BACKWARD = within(3)


def bfs_min_turns(cards, mover, limit=6):
    """Plain BFS: forward from the deal, a level per turn, meeting the backward table of 3 turns."""
    frontier, seen = {tuple(cards)}, set()
    for depth in range(limit - 2):
        hits = [BACKWARD[(mover + depth) % SEATS].get(state) for state in frontier]
        if any(hit is not None for hit in hits):
            return depth + min(hit for hit in hits if hit is not None)
        seen |= frontier
        frontier = {child for state in frontier for child in turns(state, (mover + depth) % SEATS)} - seen
    return None


def walk_back(swaps):
    """A deal that the movers 0, 1, 2, ... sort with these swaps (each a pair of positions, mover's first)."""
    cards = SORTED
    for step in reversed(range(len(swaps))):
        mine, other = swaps[step]
        cards = solver.swap(cards, (step % SEATS) * HAND + mine, other)
    return cards


def test_every_deal_within_three_turns_needs_exactly_its_bfs_turns_for_every_mover():
    table = Solver()
    checked = 0
    for mover in range(SEATS):
        for cards, needed in BACKWARD[mover].items():
            assert table.min_turns(cards, mover) == needed, (solver.format_deal(cards), mover)
            checked += 1
    assert checked == 4 * 29_251  # every deal within 3 turns, for each seat to move


# A swap of the mover's card `mine` with card number `other` of the other twelve (0..11 skip its own hand).
moves = st.lists(st.tuples(st.integers(0, HAND - 1), st.integers(0, 11)), min_size=5, max_size=8).map(
    lambda swaps: [(mine, other + HAND * (other // HAND >= step % SEATS)) for step, (mine, other) in enumerate(swaps)])


@settings(max_examples=examples(40), deadline=None, database=None)
@given(moves)
def test_deals_near_six_turns_match_breadth_first_search(swaps):
    """Deals that 5 to 8 swaps unsort: BFS finds those within 6 turns, and the solver agrees on every one
    (and puts the others beyond 6)."""
    cards = walk_back(swaps)
    found = bfs_min_turns(cards, 0)
    needed = Solver().min_turns(cards, 0)
    assert needed == found if found is not None else needed > 6


deals = st.permutations(SORTED).map(tuple)


@settings(max_examples=examples(40), deadline=None, database=None)
@given(deals, st.integers(0, SEATS - 1))
def test_the_best_moves_sort_a_random_deal_in_exactly_the_minimum_turns(cards, mover):
    table = Solver()
    needed = table.min_turns(cards, mover)
    assert solver.lower_bound(cards, mover) <= needed <= 12
    for _ in range(needed):
        best = table.best_moves(cards, mover)
        assert best
        cards = solver.swap(cards, *best[0])
        mover = (mover + 1) % SEATS
    assert cards == SORTED


@settings(max_examples=examples(25), deadline=None, database=None)
@given(deals, st.integers(0, SEATS - 1))
def test_only_the_best_moves_bring_the_team_a_turn_closer(cards, mover):
    table = Solver()
    needed = table.min_turns(cards, mover)
    best = set(table.best_moves(cards, mover))
    following = (mover + 1) % SEATS
    for mine in range(mover * HAND, mover * HAND + HAND):
        for other in range(16):
            if other // HAND != mover:
                after = table.min_turns(solver.swap(cards, mine, other), following)
                assert after >= needed - 1 and (after == needed - 1) == ((mine, other) in best)


def test_a_deal_with_one_misplaced_pair_in_one_hand_waits_for_its_holder():
    cards = solver.parse_deal("1234/1234/1234/1243")
    # Seat 3 is party to both swaps that can fix its hand; it cannot swap within its own hand.
    assert [Solver().min_turns(cards, mover) for mover in range(SEATS)] == [4, 3, 2, 2]


@pytest.mark.parametrize("text", ["1234/1234/1234", "1234/1234/1234/12345", "1234/1234/1234/1233", "12a4/1234/1234/1234"])
def test_bad_deals_are_refused_with_the_expected_form(text):
    with pytest.raises(solver.DealError, match="deal"):
        solver.parse_deal(text)


# --- the game ----------------------------------------------------------------------------------------
def team(name, seed=0, config=None):
    players = [builtin_player(GAME, name, rng_seed=seed * 4 + seat) for seat in range(SEATS)]
    return play_match(GAME, players, config=config, seed=seed)


def scripted(*actions):
    """One scripted bot shared by the four seats: it plays `actions` in turn order."""

    class Script:
        queue = list(actions)

        def act(self, obs):
            return self.queue.pop(0)

    return [InProcessPlayer(f"script{seat}", Script()) for seat in range(SEATS)]


def swap(mine, seat, theirs):
    return {"action": "swap", "mine": mine, "seat": seat, "theirs": theirs}


DECLARE = {"action": "declare"}


def test_a_seat_sees_every_hand_but_its_own():
    state = GAME.new_game(config={"deal": "2143/1234/3412/4321"})
    obs = state.observation(2)
    assert obs["hands"] == [[2, 1, 4, 3], [1, 2, 3, 4], [None] * 4, [4, 3, 2, 1]]
    assert obs["legal_actions"] == [] and len(state.observation(0)["legal_actions"]) == 1 + 4 * 12
    assert "initial" not in obs and "initial" in state.full_view()


def test_a_perfect_game_scores_zero_and_a_wasted_turn_one():
    deal = "1234/1234/1234/1243"
    assert GAME.new_game(config={"deal": deal}).min_turns() == 4
    passes = [swap(1, 1, 1), swap(1, 2, 1), swap(1, 3, 1)]  # seats 0, 1, 2 swap two 1s
    # Seat 2 lends seat 3 its 3, then seat 3 gives back a 4 where seat 2 needs it: sorted after 4 turns.
    perfect = play_match(GAME, scripted(*passes[:2], swap(3, 3, 3), swap(4, 2, 3), DECLARE), config={"deal": deal})
    assert perfect.winners == [0, 1, 2, 3] and [p.score for p in perfect.players] == [0.0] * 4
    # Seat 2 passes instead: seats 3 and 0 need the next two turns, the declare comes one turn later.
    late = play_match(GAME, scripted(*passes, swap(3, 0, 3), swap(3, 3, 4), DECLARE), config={"deal": deal})
    assert late.winners == [0, 1, 2, 3] and late.final_state.declared_at == 5 and late.players[0].score == 1.0


def test_declaring_unsorted_hands_loses_with_the_penalty_and_no_winners():
    result = play_match(GAME, scripted(DECLARE), config={"deal": "2143/1234/3412/4321", "max_turns": 30})
    assert result.winners == [] and [p.score for p in result.players] == [30.0] * 4
    assert result.as_json()["cooperative"] is True and result.as_json()["score_order"] == "lower_is_better"


def test_the_turn_cap_ends_the_game_lost():
    state = GAME.new_game(config={"max_turns": 12})
    for _ in range(12):
        state = state.apply_action(swap(1, (state.current_player() + 1) % SEATS, 1))
    assert state.is_terminal() and state.winners() == [] and state.scores() == [12.0] * 4


def test_the_beginner_tip_turns_a_card_that_reaches_its_position_toward_its_holder():
    config = {"deal": "2134/1234/1234/1234", "beginner_tip": True}
    state = GAME.new_game(config=config).apply_action(swap(1, 1, 1))  # seat 0 takes a 1 at position 1
    assert state.observation(0)["hands"][0] == [1, None, None, None]
    assert state.observation(1)["hands"][1] == [None] * 4  # the 2 it received is not at home
    assert state.observation(2)["turned"][0] == [True, False, False, False]
    plain = GAME.new_game(config={**config, "beginner_tip": False}).apply_action(swap(1, 1, 1))
    assert plain.observation(0)["hands"][0] == [None] * 4


def test_the_history_shows_a_seat_the_cards_it_saw_and_never_its_own():
    state = GAME.new_game(config={"deal": "2143/1234/3412/4321"}).apply_action(swap(1, 2, 3))
    entry = {"turn": 0, "seat": 0, "action": "swap", "mine": 1, "other": 2, "theirs": 3}
    assert state.observation(0)["history"] == [{**entry, "gave": None, "took": 1}]
    assert state.observation(2)["history"] == [{**entry, "gave": 2, "took": None}]
    assert state.observation(1)["history"] == [{**entry, "gave": 2, "took": 1}]


def test_a_failed_seat_passes_its_turns_and_the_team_plays_on():
    class Crash:
        def act(self, obs):
            raise RuntimeError("boom")

    players = [builtin_player(GAME, "planner") for _ in range(SEATS)]
    players[1] = InProcessPlayer("crash", Crash())
    result = play_match(GAME, players, seed=3)
    history = result.final_state.history
    assert result.players[1].status == "crash" and result.players[1].placing == 4
    assert all(entry["action"] == "skipped" for entry in history if entry["seat"] == 1)
    assert result.final_state.is_sorted() and result.winners == [0, 2, 3]


@pytest.mark.parametrize("config, message", [({"max_turns": 5}, "max_turns"), ({"beginner_tip": 1}, "beginner_tip"),
                                             ({"deal": "1234"}, "four hands"), ({"deal": [1, 2]}, "deal must be")])
def test_bad_configs_are_refused(config, message):
    with pytest.raises(ConfigError, match=message):
        GAME.new_game(config=config)


def test_the_analysis_charges_every_wasted_turn_and_adds_up_to_the_score():
    result = team("helper", seed=5, config={"deal": "2143/1234/3412/4321"})
    rows = GAME.analyse(json.loads(json.dumps(result.replay)))
    assert [row["seat"] for row in rows] == [event["seat"] for event in result.replay["events"]]
    assert sum(row["points_lost"] for row in rows) == result.players[0].score
    assert all(row["needed_after"] == row["needed_before"] - 1 for row in rows if row["points_lost"] == 0
               and row["action"]["action"] == "swap")


@pytest.mark.slow  # a strength measure over 24 deals, not a rule of the game
def test_the_planner_wins_every_seeded_deal_and_beats_the_helper():
    planner = [team("planner", seed) for seed in range(12)]
    helper = [team("helper", seed) for seed in range(12)]
    assert all(result.winners for result in planner)
    assert sum(r.players[0].score for r in planner) < sum(r.players[0].score for r in helper)


def test_render_hides_the_viewer_hand_and_describe_names_the_cards():
    state = GAME.new_game(config={"deal": "2143/1234/3412/4321"})
    assert "seat 0       2  1  4  3" in GAME.render(state)
    assert "seat 0 (you) ?  ?  ?  ?" in GAME.render(state, seat=0)
    assert GAME.describe_action(state, swap(1, 1, 2)) == "swaps its 1st card (2) with seat 1's 2nd card (2): equal cards, a pass"
    assert "not sorted" in GAME.describe_action(state, DECLARE)


def run_cli(*args):
    proc = subprocess.run([sys.executable, "-m", "games", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_command_line_solves_a_deal_and_plays_one_bot_as_the_team():
    out = json.loads(run_cli("solve", "sorted", "--deal", "1234/1234/1234/1243", "--json", "--mover", "3"))
    assert out == {"min_turns": 2, "mover": 3, "best_moves": [swap(3, 0, 3), swap(4, 0, 4)]}
    match = json.loads(run_cli("match", "sorted", "builtin:planner", "--seed", "4", "--json"))
    assert [p["name"] for p in match["players"]] == ["builtin:planner"] * 4 and match["winners"] == [0, 1, 2, 3]
    assert "the team won" in run_cli("match", "sorted", "builtin:planner", "--seed", "4")


@pytest.mark.parametrize("args, message", [(["solve", "sorted", "--deal", "1234/1234/1234/1233"], "four times"),
                                           (["solve", "sorted"], "needs --deal"), (["solve", "endgame"], "needs --board")])
def test_the_command_line_refuses_a_bad_deal_or_a_missing_option_clearly(args, message):
    proc = subprocess.run([sys.executable, "-m", "games", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_the_docs_show_the_example_bot_file_as_it_is():
    doc = (ROOT / "docs/bots/sorted.md").read_text(encoding="utf-8")
    assert (ROOT / "docs/bots/examples/sorted_example.py").read_text(encoding="utf-8").strip() in doc
