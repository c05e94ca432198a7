"""SortingGame played whole: conservation, termination, replays, hidden information, bots and analysis."""

import collections
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from games import get_game, replay
from games.bots import builtin_player
from games.referee import InProcessPlayer, play_match
from games.sortinggame.rules import judge
from quick_tier import examples

GAME = get_game("sortinggame")
ROOT = Path(__file__).resolve().parents[2]


def players(names, seed=0):
    return [builtin_player(GAME, name, rng_seed=seed * 10 + seat) for seat, name in enumerate(names)]


def every_card(state) -> collections.Counter:
    """Every card wherever it is, read from the full view."""
    view = state.full_view()
    cards = [c for stack in view["stack_cards"].values() for c in stack]
    cards += [c for zone in view["hands"] + view["victory"] for c in zone]
    cards += view["discarded_cards"] + view["carried_cards"] + view["penalty_cards"]
    cards += [entry["card"] for spot in view["spots"].values() for entry in spot]
    cards += [play["card"] for play in view["plays"] if play]
    return collections.Counter(cards)


class CrashesLater:
    """A bot that plays randomly, then crashes at its n-th decision (a seat failing mid-game)."""

    def __init__(self, decisions: int):
        self.left = decisions

    def act(self, obs):
        self.left -= 1
        if self.left < 0:
            raise RuntimeError("crashed on purpose")
        return obs["legal_actions"][self.left % len(obs["legal_actions"])]


matches = st.tuples(st.integers(2, 6), st.integers(0, 10**6), st.booleans(),
                    st.lists(st.sampled_from(["random", "honest", "shrewd"]), min_size=6, max_size=6),
                    st.none() | st.integers(0, 60))


@settings(max_examples=examples(25), deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(matches)
def test_cards_are_conserved_the_game_ends_and_the_replay_reproduces(match):
    num_players, seed, robbery, names, crash_after = match
    config = {"robbery": robbery}
    seated = players(names[:num_players], seed)
    if crash_after is not None:
        seated[-1] = InProcessPlayer("crashes", CrashesLater(crash_after))
    result = play_match(GAME, seated, config=config, seed=seed)
    deck = GAME.new_game(num_players, config, seed)
    algorithms, specials = deck.deck.stacks(robbery)
    total = collections.Counter(algorithms + specials)
    replayed = list(replay.states(result.replay))
    for state, _ in replayed:
        assert every_card(state) == total
    final = replayed[-1][0]
    assert final.is_terminal() and final.round <= GAME.default_config()["max_rounds"]
    assert final.full_view() == result.final_state.full_view() and final.scores() == result.final_state.scores()
    assert sum(final.scores()) <= sum(total.values())


def test_observations_hide_hands_stacks_and_unjudged_validity():
    result = play_match(GAME, players(["shrewd", "random", "honest", "random"], 5), seed=5)
    for state, _ in list(replay.states(result.replay))[::7]:
        for seat in range(4):
            obs = state.observation(seat)
            json.dumps(obs)
            assert obs["hand"] == sorted(state.hands[seat]) and "hands" not in obs and "stack_cards" not in obs
            assert "discarded_cards" not in obs and "penalty_cards" not in obs and "carried_cards" not in obs
            assert all(play is None or "valid" not in play for play in obs["plays"])
            assert all("hidden" not in entry for entry in obs["log"])
            assert obs["legal_actions"] == (state.legal_actions() if state.current_player() == seat else [])


@pytest.mark.parametrize("num_players", range(2, 7))
def test_matches_of_two_to_six_seats_finish_with_every_seat_ok(num_players):
    names = (["shrewd", "honest", "random"] * 2)[:num_players]
    result = play_match(GAME, players(names, num_players), config={"robbery": num_players % 2 == 0}, seed=num_players)
    assert result.final_state.is_terminal() and all(p.status == "ok" for p in result.players)
    assert result.winners == result.final_state.winners()


def test_a_failing_bot_drops_out_and_the_others_finish():
    class Crashes:
        def act(self, obs):
            raise RuntimeError("boom")

    seated = players(["honest", "shrewd"], 1) + [InProcessPlayer("crash", Crashes())]
    result = play_match(GAME, seated, seed=1)
    assert result.players[2].status == "crash" and result.players[2].placing == 3
    assert result.final_state.is_terminal() and not result.final_state._forfeited
    assert every_card(replay.final_state(result.replay)) == every_card(result.final_state)


def win_share(bot, opponent, games, num_players=2):
    wins = 0.0
    for match in range(games):
        names = [opponent] * num_players
        names[match % num_players] = bot
        result = play_match(GAME, players(names, match), seed=1000 + match)
        if match % num_players in result.winners:
            wins += 1 / len(result.winners)
    return wins / games


@pytest.mark.parametrize("opponent, margin", [("random", 0.9), ("honest", 0.6)])
def test_shrewd_beats_random_and_honest_heads_up(opponent, margin):
    assert win_share("shrewd", opponent, 30) >= margin


def test_shrewd_beats_three_honest_bots_more_than_its_fair_share():
    assert win_share("shrewd", "honest", 20, num_players=4) >= 0.25 + 0.2


def test_the_bot_docs_show_the_example_bot_as_it_is():
    docs = (ROOT / "docs/bots/sortinggame.md").read_text(encoding="utf-8")
    assert (ROOT / "docs/bots/examples/sortinggame_example.py").read_text(encoding="utf-8").strip() in docs


def test_the_example_bot_judges_like_the_referee(example_bot):
    bot = example_bot("sortinggame")
    state = GAME.new_game(2, seed=0)
    obs = state.observation(0)
    for criteria in (["stable", "theta-n-log-n"], ["o-n", "in-place"], ["omega-n-log-n"], []):
        for case in ("best", "average", "worst"):
            obs["active"] = {"criteria": criteria, "case": case}
            for card in state.deck.algorithms:
                assert bot.valid(obs, card) == judge(state.deck, card, criteria, case).valid, (card, criteria, case)


def test_analysis_explains_every_decision_and_flags_better_cards():
    result = play_match(GAME, players(["random", "honest", "shrewd"], 2), config={"robbery": True}, seed=2)
    rows = GAME.analyse(result.replay)
    json.dumps(rows)
    decisions = [e for e in result.replay["events"] if "action" in e]
    assert [row["seat"] for row in rows] == [e["seat"] for e in decisions] and all(row["text"] for row in rows)
    states = [state for state, _ in replay.states(result.replay)][:-1]
    for row in rows:
        before = states[row["step"]]
        if row["phase"] == "algorithm":
            assert "better_in_hand" in row and "hand" in row["explanation"]
            card = row["action"].get("card")
            if card:
                ruling = judge(before.deck, card, before.active_criteria(), before.active_case())
                assert row["valid"] == ruling.valid and ruling.explanation in row["text"]
        if row["action"]["action"] == "question":
            assert " is valid: " in row["text"] or " is not valid: " in row["text"]
    assert any(row["better_in_hand"] for row in rows if row["phase"] == "algorithm")


def test_render_and_descriptions_read_the_table():
    state = GAME.new_game(3, seed=4)
    full, mine = GAME.render(state), GAME.render(state, seat=1)
    assert all(", ".join(sorted(hand)) in full for hand in state.hands)
    assert ", ".join(sorted(state.hands[1])) in mine and ", ".join(sorted(state.hands[0])) not in mine
    action = state.legal_actions()[0]
    assert GAME.describe_action(state, action).startswith(("plays", "robs"))
