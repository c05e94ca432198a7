"""SortingGame's referee, rule by rule, on constructed tables."""

import pytest

from games import IllegalAction, Verdict, get_game

GAME = get_game("sortinggame")
PASS = {"action": "pass"}


def arrange(hands, *, victory=None, algorithms=("bubble",) * 20, specials=("stable",) * 20, robbery=False, max_rounds=100):
    """A fresh round 1 (seat 0 starts) with the given hands, victory stacks and stacks (top card last)."""
    state = GAME.new_game(len(hands), {"robbery": robbery, "max_rounds": max_rounds}, seed=0)
    state.hands = [list(hand) for hand in hands]
    state.victory = [list(stack) for stack in victory] if victory else [[] for _ in hands]
    state.stacks = {"algorithm": list(algorithms), "special": list(specials)}
    state.round, state.starter = 0, 0
    state._start_round()
    return state


def run(state, *actions):
    for action in actions:
        state = state.apply_action(action)
    return state


def play(card, spot=None):
    return {"action": "play", "card": card, **({"spot": spot} if spot else {})}


def question(seat):
    return {"action": "question", "seat": seat}


# --- the deal and the special phase ---------------------------------------------------------
@pytest.mark.parametrize("players", range(2, 7))
def test_the_deal_gives_three_algorithm_and_two_special_cards(players):
    view = GAME.new_game(players, seed=players).full_view()
    cards = view["cards"]
    for hand in view["hands"]:
        assert sorted(cards[c]["kind"] == "algorithm" for c in hand) == [False, False, True, True, True]
    algorithms, specials = GAME.new_game(players).deck.stacks(robbery=False)
    assert view["stacks"] == {"algorithm": len(algorithms) - 3 * players, "special": len(specials) - 2 * players}


def test_criteria_fill_the_free_spots_before_any_covering():
    state = arrange([["merge", "stable", "in-place"], ["heap", "unstable", "o-n2"]])
    assert play("stable", "criterion1") in state.legal_actions()
    assert play("stable", "criterion2") not in state.legal_actions()
    state = run(state, play("stable", "criterion1"), play("unstable", "criterion2"))
    assert state.phase == "algorithm"  # one special turn per seat and round


def test_covering_is_offered_only_when_the_spots_are_full_and_the_top_card_rules():
    state = arrange([["merge", "stable", "best-case"], ["heap", "unstable", "average-case"], ["tim", "o-n2", "worst-case"]])
    state = run(state, play("stable", "criterion1"), play("unstable", "criterion2"))
    assert play("o-n2", "criterion1") in state.legal_actions() and play("o-n2", "criterion2") in state.legal_actions()
    state = state.apply_action(play("o-n2", "criterion1"))
    assert state.active_criteria() == ["o-n2", "unstable"]
    assert [entry["card"] for entry in state.spots["criterion1"]] == ["stable", "o-n2"]


def test_the_case_spot_defaults_to_worst_and_a_case_card_covers_it():
    state = arrange([["merge", "best-case"], ["heap", "average-case"]])
    assert state.active_case() == "worst"
    state = run(state, play("best-case", "case"), play("average-case", "case"))
    assert state.active_case() == "average" and state.phase == "algorithm"


def test_seats_without_a_special_choice_are_skipped():
    state = arrange([["merge"], ["heap", "stable"]])
    assert state.current_player() == 1 and state.phase == "special"


# --- the algorithm phase and the round winner -----------------------------------------------
def test_algorithm_turn_offers_every_algorithm_pass_and_each_discard():
    state = arrange([["merge", "heap", "merge"], ["bubble"]])
    assert state.phase == "algorithm"
    assert state.legal_actions() == [play("heap"), play("merge"), PASS,
                                     {"action": "pass", "discard": "heap"}, {"action": "pass", "discard": "merge"}]


def test_best_time_under_the_active_case_wins_every_card_of_the_round():
    state = arrange([["merge"], ["bubble"]])
    state = run(state, play("merge"), play("bubble"), PASS, PASS)
    assert state.round == 2 and state.victory == [["merge", "bubble"], []]
    # Under the best case bubble sort is Θ(N) and beats merge sort's Θ(N log N); the case card goes too.
    state = arrange([["merge", "best-case"], ["bubble"]])
    state = run(state, play("best-case", "case"), play("merge"), play("bubble"), PASS, PASS)
    assert sorted(state.victory[1]) == ["best-case", "bubble", "merge"] and state.victory[0] == []


def test_ties_share_evenly_and_the_remainder_waits_for_the_next_winner():
    state = arrange([["merge", "merge"], ["heap", "bubble"], ["bubble", "bubble"]])
    state = run(state, play("merge"), play("heap"), play("bubble"), PASS, PASS, PASS)
    assert len(state.victory[0]) == len(state.victory[1]) == 1 and state.carried == ["bubble"]
    assert "seat 0 and seat 1 tie for the best time" in state.log[-1]["text"]
    # Round 2 starts with seat 1 (the refill dealt 'stable' cards: nobody plays one); seat 0 wins alone
    # and takes the carried card with the three played.
    state = run(state, PASS, PASS, PASS, play("bubble"), play("bubble"), play("merge"), PASS, PASS, PASS)
    assert len(state.victory[0]) == 1 + 4 and state.carried == []


def test_passing_pays_a_victory_card_to_the_winner_and_may_replace_a_card():
    state = arrange([["merge"], ["bubble", "heap"]], victory=[[], ["quick", "tim"]], algorithms=["gnome"] * 5)
    state = run(state, play("merge"), {"action": "pass", "discard": "heap"}, PASS)
    assert state.victory == [["merge", "tim"], ["quick"]]
    assert state.discarded == ["heap"] and sorted(state.hands[1])[:2] == ["bubble", "gnome"]


def test_passing_with_an_empty_victory_stack_costs_nothing():
    state = arrange([["merge"], ["bubble"]])
    state = run(state, play("merge"), PASS, PASS)
    assert state.victory == [["merge"], []]


def test_when_no_one_plays_the_table_waits_for_the_next_winner():
    state = arrange([["merge", "stable"], ["bubble"]])
    state = run(state, play("stable", "criterion1"), PASS, PASS)
    assert state.round == 2 and state.carried == ["stable"] and state.victory == [[], []]
    assert "no winner" in state.log[-1]["text"]
    state = run(state, PASS, PASS, play("bubble"), play("merge"), PASS, PASS)  # round 2: seat 1 starts
    assert sorted(state.victory[0]) == ["bubble", "merge", "stable"]


def test_the_refill_restores_three_algorithms_and_two_specials():
    state = arrange([["merge", "stable"], ["bubble"]], algorithms=["heap"] * 10, specials=["unstable"] * 10)
    state = run(state, play("stable", "criterion1"), play("merge"), play("bubble"), PASS, PASS)
    for hand in state.hands:
        assert sorted(hand) == ["heap", "heap", "heap", "unstable", "unstable"]


def test_the_game_ends_after_the_round_in_which_a_stack_runs_out():
    # The discard-and-replace takes the last algorithm card mid-round; the round still finishes.
    state = arrange([["merge", "stable"], ["bubble", "heap"], ["insertion"]], algorithms=["gnome"])
    state = run(state, play("stable", "criterion1"), play("merge"), {"action": "pass", "discard": "heap"})
    assert state.stacks["algorithm"] == [] and not state.is_terminal()
    state = run(state, play("insertion"), PASS, PASS, PASS)
    assert state.is_terminal() and state.current_player() is None and state.legal_actions() == []
    assert "a stack is empty" in state.log[-1]["text"]
    # The most cards win: merge sort's seat took the round.
    assert state.winners() == [0] and state.scores()[0] == max(state.scores())
    with pytest.raises(IllegalAction, match="over"):
        state.apply_action(PASS)


def test_the_round_limit_ends_a_game_of_passers():
    state = arrange([["merge"], ["bubble"]], max_rounds=2)
    state = run(state, PASS, PASS, PASS, PASS, PASS, PASS)  # round 2 has special turns: the refill dealt some
    assert state.is_terminal() and "round limit" in state.log[-1]["text"] and state.winners() == [0, 1]


# --- bluffing and questioning ---------------------------------------------------------------
def bluff_table():
    """Seat 0 plays 'stable'; seat 1 then bluffs heapsort (unstable), seat 2 plays merge sort."""
    state = arrange([["insertion", "stable"], ["heap"], ["merge"]], victory=[["v0"], ["v1"], ["v2"]])
    return run(state, play("stable", "criterion1"), play("insertion"), play("heap"), play("merge"))


def test_every_other_seat_may_question_any_unjudged_card():
    state = bluff_table()
    assert state.phase == "question" and state.current_player() == 0
    assert state.legal_actions() == [question(1), question(2), PASS]


def test_a_questioned_invalid_card_pays_the_questioner_and_cannot_win():
    state = run(bluff_table(), question(1))
    assert state.plays[1]["ruling"] == "invalid" and state.victory[0] == ["v0", "v1"] and state.victory[1] == []
    note = state.log[-1]["text"]
    assert "heapsort is not valid: the active card 'stable' requires a stable algorithm" in note
    state = run(state, PASS, PASS)  # seat 1 and seat 2 need not question further; merge sort wins
    assert {"heap", "merge", "insertion", "stable"} <= set(state.victory[2])


def test_questioning_a_valid_card_pays_its_player():
    state = run(bluff_table(), question(2))
    assert state.plays[2]["ruling"] == "valid" and state.victory[0] == [] and state.victory[2] == ["v2", "v0"]


def test_an_unquestioned_invalid_card_competes_and_earns_two_cards():
    state = arrange([["insertion", "stable"], ["heap"]], victory=[[], []], algorithms=["gnome"] * 20,
                    specials=["unstable"] * 20)
    state = run(state, play("stable", "criterion1"), play("insertion"), play("heap"), PASS, PASS)
    # Heapsort's Θ(N log N) beats insertion sort's Θ(N²): the bluff wins the round, plus the reward drawn
    # from the larger stack each time (algorithm on a tie).
    assert sorted(state.victory[1]) == ["gnome", "heap", "insertion", "stable", "unstable"]
    assert any(note["event"] == "bluff" and "heapsort is not valid" in note["text"] for note in state.log)


# --- robbery (Extension 1) ------------------------------------------------------------------
def test_robbery_takes_a_matching_algorithm_in_the_question_window():
    state = arrange([["selection", "rob-swaps-o-n", "stable"], ["cycle"], ["merge"]], robbery=True)
    state = run(state, PASS, play("selection"), play("cycle"), play("merge"))
    rob = {"action": "rob", "card": "rob-swaps-o-n", "seat": 1}
    # Cycle sort writes each element once (O(N) swaps); merge sort does not match; own cards are not offered.
    assert rob in state.legal_actions()
    assert {"action": "rob", "card": "rob-swaps-o-n", "seat": 2} not in state.legal_actions()
    state = state.apply_action(rob)
    assert state.victory[0] == ["rob-swaps-o-n", "cycle"] and state.plays[1] is None
    assert state.current_player() == 0  # a robbery is an extra decision: seat 0 still may question


def test_robbery_takes_a_special_card_and_uncovers_the_one_below():
    hands = [["merge", "stable"], ["heap", "unstable"], ["tim", "in-place"], ["quick", "rob-criterion"]]
    state = arrange(hands, robbery=True)
    state = run(state, play("stable", "criterion1"), play("unstable", "criterion2"), play("in-place", "criterion1"))
    assert {"action": "rob", "card": "rob-criterion", "spot": "criterion2"} in state.legal_actions()
    state = run(state, {"action": "rob", "card": "rob-criterion", "spot": "criterion1"})
    assert state.victory[3] == ["rob-criterion", "in-place"] and state.active_criteria() == ["stable", "unstable"]
    assert "'stable' below it is active again" in state.log[-1]["text"]


def test_robbery_cards_exist_only_with_the_extension():
    for seed in range(5):
        view = GAME.new_game(4, seed=seed).full_view()
        assert not any(view["cards"][c]["kind"] == "robbery" for c in view["stack_cards"]["special"])


# --- failed seats ---------------------------------------------------------------------------
def test_a_failed_seat_drops_out_and_three_seats_play_on():
    state = arrange([["merge"], ["bubble", "heap"], ["tim"]])
    state = run(state, play("merge"), play("bubble"))
    state = state.forfeit(2, Verdict.TIMEOUT)
    assert not state.is_terminal() and state.hands[2] == [] and "tim" in state.discarded
    assert state.current_player() == 0 and state.phase == "question"
    state = run(state, PASS, PASS)
    assert state.round == 2 and 2 not in state.order and state.ranking()[2] == 3


def test_with_two_seats_a_failure_ends_the_match():
    state = arrange([["merge"], ["bubble"]]).forfeit(0, Verdict.CRASH)
    assert state.is_terminal() and state.winners() == [1]
