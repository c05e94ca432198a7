"""Crazy-KING's rules, one by one, on constructed tables (docs/bots/crazyking.md states each of them)."""

import collections
import json

import pytest

from games import ConfigError, IllegalAction, Verdict, get_game
from games.crazyking import cards

GAME = get_game("crazyking")


def table(hands, top, *, draw=None, under=(), turn=0, suit=None, direction=1, config=None):
    """A state whose hands and piles are given; the draw pile's last card is drawn first.

    Without `draw`, every card not placed elsewhere is in the draw pile, so all 52 cards are on the table.
    """
    state = GAME.new_game(len(hands), config, seed=0)
    placed = {card for hand in hands for card in hand} | set(under) | {top}
    state.hands = [cards.sort_cards(hand) for hand in hands]
    state.discard_pile = [*under, top]
    state.draw_pile = list(draw) if draw is not None else [card for card in cards.DECK if card not in placed]
    state.suit_to_follow = suit or cards.suit(top)
    state.direction = direction
    state.turn = turn
    state.pending = None
    state.drawn_card = None
    state.run_outs = 0
    state.history = ()
    return state


def events(state, kind):
    return [event for event in state.history if event["event"] == kind]


# --- cards and points ---------------------------------------------------------------------------------
@pytest.mark.parametrize("card, value", [("KH", 30), ("AS", 10), ("QD", 10), ("JC", 10), ("10H", 10), ("7S", 7), ("2C", 2)])
def test_card_points_follow_the_seed(card, value):
    assert cards.points(card) == value


def test_the_deck_has_52_distinct_cards():
    assert len(set(cards.DECK)) == 52 and len(cards.DECK) == 52


# --- the deal --------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_each_seat_is_dealt_seven_and_the_next_card_starts_the_discard_pile(players):
    state = GAME.new_game(players, seed=11)
    view = state.full_view()
    start = view["history"][0]
    drawn = len(events(state, "draw"))
    assert sorted(len(hand) for hand in view["hands"]) == sorted([7] * (players - 1) + [7 + drawn])
    assert start["event"] == "start" and view["discard_pile_cards"] == [start["card"]]
    assert view["draw_pile"] == 52 - 7 * players - 1 - drawn


def test_the_first_round_starter_is_drawn_from_the_seed():
    starters = {seed: GAME.new_game(4, seed=seed).history[0]["seat"] for seed in range(40)}
    assert set(starters.values()) == {0, 1, 2, 3}
    assert all(GAME.new_game(4, seed=seed).history[0]["seat"] == starter for seed, starter in starters.items())


# --- matching ----------------------------------------------------------------------------------------
def test_a_seat_may_play_any_card_of_the_suit_or_the_rank_and_must_play_one():
    state = table([["9H", "2C", "9S", "4D"], ["3D"]], "9C")
    assert state.legal_actions() == [{"play": "9S"}, {"play": "9H"}, {"play": "2C"}]


def test_a_king_is_playable_on_anything_and_names_the_next_suit():
    state = table([["KH", "3D"], ["5S", "7S"]], "9C")
    assert state.legal_actions() == [{"play": "KH", "suit": suit} for suit in cards.SUITS]
    after = state.apply_action({"play": "KH", "suit": "S"})
    assert after.top_card == "KH" and after.suit_to_follow == "S"
    assert after.legal_actions() == [{"play": "5S"}, {"play": "7S"}]


def test_a_king_without_a_suit_or_a_card_not_held_is_illegal():
    state = table([["KH", "3C"], ["5S"]], "9C")
    for action in ({"play": "KH"}, {"play": "5S"}, {"play": "3C", "suit": "S"}, "draw", "pass"):
        with pytest.raises(IllegalAction):
            state.apply_action(action)


def test_the_named_suit_is_followed_not_the_kings_own_suit():
    state = table([["KH", "3C"], ["4H", "6D"]], "9C")
    after = state.apply_action({"play": "KH", "suit": "D"})
    assert after.legal_actions() == [{"play": "6D"}]


# --- drawing and passing ------------------------------------------------------------------------------
def test_without_a_match_the_seat_draws_and_must_play_a_matching_drawn_card():
    state = table([["5C", "6C"], ["2H", "3D"]], "9C", draw=["8S", "7C"])
    after = state.apply_action({"play": "5C"})
    assert after.current_player() == 1 and after.drawn_card == "7C"
    assert after.legal_actions() == [{"play": "7C"}]
    assert [e["event"] for e in after.history[-2:]] == ["play", "draw"]


def test_when_the_first_drawn_card_does_not_match_the_second_is_drawn_and_played_if_it_matches():
    # The first drawn card (3S) matches nothing; the second (5H) matches the 5C by rank.
    state = table([["5C", "6C"], ["2H", "3D"]], "9C", draw=["5H", "3S"])
    after = state.apply_action({"play": "5C"})
    assert after.hands[1] == cards.sort_cards(["2H", "3D", "3S", "5H"])
    assert after.legal_actions() == [{"play": "5H"}] == [{"play": after.drawn_card}]


def test_after_two_draws_without_a_match_the_seat_passes():
    state = table([["5C", "6C"], ["2H", "3D"]], "9C", draw=["4S", "8H", "2S"])
    after = state.apply_action({"play": "5C"})
    assert after.current_player() == 0 and after.legal_actions() == [{"play": "6C"}]
    assert [e["event"] for e in after.history[-4:]] == ["play", "draw", "draw", "pass"]
    assert len(after.hands[1]) == 4 and after.draw_pile == ["4S"]


# --- action cards ---------------------------------------------------------------------------------------
def test_a_jack_skips_the_next_seat():
    state = table([["JC", "5C"], ["3C"], ["7C"]], "9C")
    targeted = state.apply_action({"play": "JC"})
    # Without a KING the target's only action is to pass; it is asked all the same (see the next test).
    assert targeted.current_player() == 1 and targeted.pending == "J" and targeted.legal_actions() == ["pass"]
    after = targeted.apply_action("pass")
    assert after.current_player() == 2
    assert after.history[-1] == {"event": "skip", "seat": 1, "card": "J"} and after.hands[1] == ["3C"]


def test_a_target_is_asked_whether_or_not_it_holds_a_king_so_decisions_reveal_nothing():
    with_king = table([["JC", "5C"], ["KD"], ["7C"]], "9C").apply_action({"play": "JC"})
    without = table([["JC", "5C"], ["3C"], ["7C"]], "9C").apply_action({"play": "JC"})
    assert with_king.current_player() == without.current_player() == 1
    assert with_king.observation(2) == without.observation(2)


def test_a_queen_skips_the_next_seat_and_makes_it_draw_two():
    state = table([["QC", "5C"], ["3C"], ["7C"]], "9C", draw=["2D", "4H", "6S"])
    after = state.apply_action({"play": "QC"}).apply_action("pass")
    assert after.current_player() == 2
    assert after.hands[1] == cards.sort_cards(["3C", "6S", "4H"]) and after.draw_pile == ["2D"]


@pytest.mark.parametrize("effect", ["JC", "QC"])
def test_a_seat_holding_a_king_may_answer_a_jack_or_queen_with_it_or_pass(effect):
    state = table([[effect, "5C"], ["KD", "3C"], ["7C"]], "9C")
    after = state.apply_action({"play": effect})
    assert after.current_player() == 1 and after.pending == effect[0]
    # Only a KING answers: the 3C that would match is not playable under the effect.
    assert after.legal_actions() == [{"play": "KD", "suit": suit} for suit in cards.SUITS] + ["pass"]


@pytest.mark.parametrize("effect", ["JC", "QC"])
def test_a_king_answer_cancels_the_whole_effect_queen_draw_included(effect):
    state = table([[effect, "5C"], ["KD", "3C"], ["7C", "8C"]], "9C")
    answered = state.apply_action({"play": effect}).apply_action({"play": "KD", "suit": "C"})
    assert answered.hands[1] == ["3C"] and answered.top_card == "KD" and answered.suit_to_follow == "C"
    assert answered.current_player() == 2 and not events(answered, "skip")


def test_passing_under_a_queen_takes_the_skip_and_the_two_cards():
    state = table([["QC", "5C"], ["KD", "3C"], ["7C"]], "9C", draw=["2D", "4H", "6S"])
    passed = state.apply_action({"play": "QC"}).apply_action("pass")
    assert passed.current_player() == 2 and passed.hands[1] == cards.sort_cards(["KD", "3C", "6S", "4H"])


def test_an_ace_reverses_the_direction():
    state = table([["AC", "5C"], ["3C"], ["7C"]], "9C")
    after = state.apply_action({"play": "AC"})
    assert after.direction == -1 and after.current_player() == 2


def test_with_two_players_an_ace_reverses_but_the_other_seat_still_plays_next():
    state = table([["AC", "5C"], ["3C"]], "9C")
    after = state.apply_action({"play": "AC"})
    assert after.direction == -1 and after.current_player() == 1


def test_a_jack_against_two_players_gives_the_player_another_turn():
    state = table([["JC", "5C"], ["3C"]], "9C")
    assert state.apply_action({"play": "JC"}).apply_action("pass").current_player() == 0


@pytest.mark.parametrize("first", ["JC", "QC", "AC", "KC"])
def test_an_action_card_turned_up_as_the_first_discard_has_no_effect(first):
    def starts_with_a_match(state):
        start = state.history[0]
        return start["card"] == first and len(state.history) == 1 and state.current_player() == start["seat"]

    state = next((s for s in map(lambda seed: GAME.new_game(3, seed=seed), range(500)) if starts_with_a_match(s)), None)
    assert state is not None, f"no seed in range turns up {first} before a starter who can play"
    # The starter plays (not skipped, no cards drawn), the direction is unchanged, a KING asks its own suit.
    assert state.pending is None and len(state.hands[state.current_player()]) == 7
    assert state.direction == 1 and state.suit_to_follow == "C"


# --- the draw pile running out -----------------------------------------------------------------------------
def test_when_the_draw_pile_runs_out_the_discards_but_the_top_are_shuffled_back():
    state = table([["5C", "6C"], ["2H", "3D"]], "9C", draw=["7C"], under=["4S", "8H", "JD"])
    after = state.apply_action({"play": "5C"})
    assert after.run_outs == 1 and after.discard_pile == ["5C"]
    assert sorted(after.draw_pile) == sorted(["4S", "8H", "JD", "9C"])
    assert after.history[-1] == {"event": "run_out", "count": 1, "reshuffled": 4}


def test_a_queen_draws_across_a_run_out():
    state = table([["QC", "5C"], ["3D"], ["7C"]], "9C", draw=["2S"], under=["4S", "8H"])
    after = state.apply_action({"play": "QC"}).apply_action("pass")
    assert len(after.hands[1]) == 3 and after.run_outs == 1 and len(after.draw_pile) == 2


def test_a_draw_from_a_pile_that_cannot_be_refilled_draws_nothing_and_counts_a_run_out():
    # The only card to shuffle back is the 7D: once it is drawn, nothing is left to draw.
    state = table([["KC", "5H"], ["2S", "3C"]], "7D", draw=[])
    after = state.apply_action({"play": "KC", "suit": "H"})
    assert after.hands[1] == cards.sort_cards(["2S", "3C", "7D"]) and after.draw_pile == []
    assert after.run_outs == 3 and len(events(after, "draw")) == 1 and events(after, "pass")
    assert after.current_player() == 0


def test_the_fifth_run_out_ends_the_round_and_the_lowest_hand_total_wins():
    state = table([["5C", "6C", "KD"], ["2H", "3D"], ["9S", "10S"]], "9C", draw=["7S"], under=["4S"])
    state.run_outs = 4
    after = state.apply_action({"play": "5C"})
    result = after.past_rounds[-1]
    assert result["reason"] == "run-outs" and result["winner"] == 1
    # Seat 1 drew the 7S (hand 2+3+7 = 12) and still beats 6+30 and 9+10: it scores 36 + 19.
    assert result["hand_totals"] == [36, 12, 19] and result["points"] == 55
    assert after.scores() == [0, 55, 0] and after.round_number == 2


def test_the_fourth_run_out_refills_the_pile_and_only_the_fifth_ends_the_round():
    # The seed's boundary: "If this is the 5th time DRW-pile runs out of cards, the current round ends";
    # the 4th time, the discards but the top are shuffled back and the round goes on.
    assert GAME.configure(None)["max_run_outs"] == 5
    state = table([["5C", "6C", "KD"], ["2H", "3D"], ["9S", "10S"]], "9C", draw=["7S"], under=["4S", "8H"])
    state.run_outs = 3
    fourth = state.apply_action({"play": "5C"})  # seat 1 draws the last card: the 4th run-out
    assert fourth.run_outs == 4 and fourth.round_number == 1 and not fourth.past_rounds
    assert events(fourth, "run_out")[-1] == {"event": "run_out", "count": 4, "reshuffled": 3}
    # The 5th ends it: test_the_fifth_run_out_ends_the_round_and_the_lowest_hand_total_wins.


def test_tied_lowest_hands_go_to_the_next_to_play_from_the_seat_drawing():
    # Seat 1 is drawing when the pile runs out; seats 0 and 2 tie at 5: seat 2 plays before seat 0.
    state = table([["5C", "5D"], ["2H", "JD"], ["5S"]], "9C", draw=[])
    state.run_outs = 4
    after = state.apply_action({"play": "5C"})
    result = after.past_rounds[-1]
    assert result["hand_totals"] == [5, 12, 5] and result["winner"] == 2 and result["points"] == 17


# --- rounds and the game ---------------------------------------------------------------------------------------
def test_emptying_the_hand_wins_the_round_with_the_others_points_and_starts_the_next():
    state = table([["5C"], ["KH", "AS", "10D"], ["QC", "7S", "2H"]], "9C")
    after = state.apply_action({"play": "5C"})
    assert after.past_rounds[-1] == {
        "round": 1, "winner": 0, "points": 50 + 19, "reason": "empty hand", "hand_totals": [0, 50, 19],
    }
    assert after.scores() == [69, 0, 0] and after.round_number == 2
    assert after.history[0] == {"event": "start", "seat": 0, "card": after.discard_pile[0]}
    assert all(len(hand) == 7 for hand in after.hands)


def test_a_queen_played_as_the_last_card_wins_without_its_penalty():
    state = table([["QC"], ["KH"], ["7S"]], "9C")
    after = state.apply_action({"play": "QC"})
    assert after.past_rounds[-1]["hand_totals"] == [0, 30, 7] and after.scores()[0] == 37


def test_the_game_ends_when_a_seat_reaches_the_target():
    state = table([["5C"], ["KH", "KD"]], "9C", config={"target_score": 60})
    after = state.apply_action({"play": "5C"})
    assert after.is_terminal() and after.current_player() is None and after.legal_actions() == []
    assert after.scores() == [60, 0] and after.winners() == [0]


def test_the_round_cap_ends_the_game_even_below_the_target():
    state = table([["5C"], ["2H"]], "9C", config={"max_rounds": 1})
    after = state.apply_action({"play": "5C"})
    assert after.is_terminal() and after.scores() == [2, 0] and after.winners() == [0]


def test_scores_carry_over_rounds():
    state = table([["5C"], ["2H"]], "9C")
    state.scores_so_far = [100, 40]
    assert state.apply_action({"play": "5C"}).scores() == [102, 40]


@pytest.mark.parametrize("config, message", [
    ({"target_score": 0}, "target_score"), ({"target_score": "500"}, "target_score"),
    ({"max_rounds": True}, "max_rounds"), ({"max_run_outs": 0}, "max_run_outs"), ({"rounds": 3}, "unknown"),
])
def test_bad_configs_are_refused(config, message):
    with pytest.raises(ConfigError, match=message):
        GAME.new_game(3, config)


@pytest.mark.parametrize("players", [1, 6])
def test_two_to_five_players(players):
    with pytest.raises(ConfigError, match="2 to 5"):
        GAME.new_game(players)


def test_applying_an_action_leaves_the_state_unchanged():
    state = table([["5C", "6C"], ["2H", "3D"]], "9C", draw=["4S", "8H"])
    before = json.dumps(state.full_view(), sort_keys=True)
    state.apply_action({"play": "5C"})
    assert json.dumps(state.full_view(), sort_keys=True) == before


# --- a failed seat ---------------------------------------------------------------------------------------
def test_a_dropped_target_of_a_queen_spends_it_and_the_next_seat_plays():
    state = table([["QC", "5C"], ["KD", "3C"], ["7C"]], "9C", draw=["2D", "4H", "6S"])
    after = state.apply_action({"play": "QC"}).forfeit(1, Verdict.TIMEOUT)
    assert after.current_player() == 2 and after.pending is None and not events(after, "skip")
    assert sorted(after.draw_pile) == sorted(["2D", "4H", "6S", "KD", "3C"]) and after.hands[1] == []


def test_after_a_drop_play_skips_the_seat_and_later_rounds_are_dealt_without_it():
    state = table([["5C", "6C"], ["2C", "3D"], ["7C", "8C"]], "9C").forfeit(1, Verdict.CRASH)
    after = state.apply_action({"play": "5C"})
    assert after.current_player() == 2
    finished = after.apply_action({"play": "7C"}).apply_action({"play": "6C"})
    assert finished.past_rounds[-1] == {
        "round": 1, "winner": 0, "points": 8, "reason": "empty hand", "hand_totals": [0, 0, 8],
    }
    # The new round dealt 7 cards to seats 0 and 2 only; any cards beyond are draws of its first turns.
    draws = collections.Counter(event["seat"] for event in events(finished, "draw"))
    assert [len(hand) for hand in finished.hands] == [7 + draws[0], 0, 7 + draws[2]]
    assert finished.round_number == 2 and finished.current_player() != 1


def test_the_display_tells_who_won_the_round_and_what_was_drawn_and_passed():
    state = table([["5C", "6C"], ["2H", "3D"]], "9C", draw=["4S", "8H", "2S"])
    shown = GAME.render(state.apply_action({"play": "5C"}))
    assert "seat 1 DRAWs a card from DRW-pile" in shown and "seat 1 PASSes" in shown
    won = GAME.render(table([["5C"], ["KH"]], "9C").apply_action({"play": "5C"}))
    assert "round 1 won by seat 0 (empty hand): +30" in won and "Round 2" in won
