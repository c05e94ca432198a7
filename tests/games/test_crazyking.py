"""Crazy-KING as the referee plays it: properties over many seeded games, hidden information, replays,
failing seats, the built-in bots, the example bot and the command line."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from games import Verdict, get_game, replay
from games.bots import builtin_player
from games.crazyking import cards
from games.referee import InProcessPlayer, play_match
from quick_tier import examples

GAME = get_game("crazyking")
ROOT = Path(__file__).resolve().parents[2]
BOT_NAMES = sorted(GAME.builtin_bots())


def players(names, seed=0):
    return [builtin_player(GAME, name, rng_seed=seed * 10 + seat) for seat, name in enumerate(names)]


class FailingBot:
    """A bot that plays at random, then crashes at its `fail_at`-th decision."""

    def __init__(self, fail_at, rng_seed):
        self.inner = GAME.builtin_bots()["random"]()
        self.inner.setup({"rng_seed": rng_seed})
        self.fail_at = fail_at
        self.decisions = 0

    def act(self, obs):
        self.decisions += 1
        if self.decisions >= self.fail_at:
            raise RuntimeError("deliberate crash")
        return self.inner.act(obs)


def card_places(view) -> list[str]:
    """Every card of a full view, wherever it is."""
    return [card for hand in view["hands"] for card in hand] + view["draw_pile_cards"] + view["discard_pile_cards"]


def check_invariants(before, after) -> dict:
    """Check a step from `before` to `after`; return `after`'s full view."""
    view = after.full_view()
    places = card_places(view)
    assert len(places) == 52 and sorted(places) == sorted(cards.DECK), "a card is lost, doubled or invented"
    assert all(new >= old for old, new in zip(before.scores(), after.scores())), "a score went down"
    json.dumps(view)
    return view


games_to_play = st.fixed_dictionaries({
    "seed": st.integers(0, 2**32 - 1),
    "bots": st.lists(st.sampled_from(BOT_NAMES), min_size=2, max_size=5),
    "config": st.fixed_dictionaries({
        "target_score": st.sampled_from([50, 200, 500]),
        "max_run_outs": st.integers(1, 5),
    }),
    "failure": st.none() | st.tuples(st.integers(0, 4), st.integers(1, 60)),
})


@settings(max_examples=examples(80), deadline=None, database=None)
@given(games_to_play)
def test_seeded_games_conserve_cards_grow_scores_end_and_replay_exactly(match):
    seated = players(match["bots"], match["seed"] % 1000)
    failing_seat = None
    if match["failure"] and match["failure"][0] < len(seated):
        failing_seat, fail_at = match["failure"]
        seated[failing_seat] = InProcessPlayer("failing", FailingBot(fail_at, match["seed"]))
    initial = GAME.new_game(len(seated), match["config"], match["seed"])
    views = [check_invariants(initial, initial)]

    def on_step(before, seat, action, after):
        views.append(check_invariants(before, after))

    result = play_match(GAME, seated, config=match["config"], seed=match["seed"], on_step=on_step)
    final = result.final_state
    assert final.is_terminal()
    assert all(player.status == "ok" for seat, player in enumerate(result.players) if seat != failing_seat)
    if failing_seat is not None and failing_seat in final.failed_seats:
        assert result.players[failing_seat].placing == len(seated)
        # With three seats or more the failed one is dropped and its cards go back into play.
        assert len(seated) == 2 or not final.hands[failing_seat]

    saved = json.loads(json.dumps(result.replay))
    replayed = list(replay.states(saved))
    assert [state.full_view() for state, event in replayed if event is None or "action" in event] == views
    assert replayed[-1][0].full_view() == final.full_view()
    assert replayed[-1][0].scores() == saved["result"]["scores"]


def test_the_full_view_shows_every_hand_and_pile_and_a_seat_view_only_its_own_hand():
    state = GAME.new_game(3, seed=5)
    full = state.full_view()
    assert full["hands"] == state.hands and full["draw_pile_cards"] == state.draw_pile
    for seat in range(3):
        obs = state.observation(seat)
        assert obs["hand"] == state.hands[seat] and "hands" not in obs and "draw_pile_cards" not in obs
        assert obs["legal_actions"] == (state.legal_actions() if seat == state.current_player() else [])


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_matches_between_built_ins_end_for_every_table_size(num_players):
    names = [BOT_NAMES[seat % len(BOT_NAMES)] for seat in range(num_players)]
    result = play_match(GAME, players(names, num_players), seed=num_players)
    assert result.final_state.is_terminal()
    scores = result.final_state.scores()
    assert result.winners == [seat for seat in range(num_players) if scores[seat] == max(scores)]
    assert max(scores) >= 500 or result.final_state.round_number == GAME.default_config()["max_rounds"]


def test_a_failed_seat_is_dropped_placed_last_and_the_others_play_on():
    seated = players(["tactician", "random", "most-suit"], seed=1)
    seated[1] = InProcessPlayer("failing", FailingBot(3, 1))
    result = play_match(GAME, seated, seed=1)
    final = result.final_state
    assert final.failed_seats == [1] and result.players[1].status == Verdict.CRASH.value
    assert result.players[1].placing == 3 and sorted(p.placing for p in result.players[::2]) in ([1, 2], [1, 1])
    assert max(final.scores()) >= 500 and final.hands[1] == [] and not final.active[1]
    assert [event for event in result.replay["events"] if "verdict" in event] == [{"seat": 1, "verdict": "crash"}]
    assert replay.final_state(result.replay).full_view() == final.full_view()


def test_a_dropped_seat_on_turn_hands_the_turn_on_and_its_cards_go_to_the_draw_pile():
    state = GAME.new_game(3, seed=2)
    seat = state.current_player()
    held, pile = len(state.hands[seat]), len(state.draw_pile)
    after = state.forfeit(seat, Verdict.TIMEOUT)
    assert not after.is_terminal() and after.current_player() != seat and not after.hands[seat]
    assert len(after.draw_pile) + sum(e["event"] == "draw" for e in after.history[len(state.history):]) == held + pile
    assert sorted(card_places(after.full_view())) == sorted(cards.DECK)


def test_a_two_player_match_ends_when_one_seat_fails():
    state = GAME.new_game(2, seed=2)
    after = state.forfeit(0, Verdict.ILLEGAL)
    assert after.is_terminal() and after.winners() == [1]


@pytest.mark.slow  # a strength measure over 120 matches, not a rule of the game
def test_the_tactician_beats_random_and_most_suit_over_seeded_two_player_matches():
    config = {"target_score": 200}
    for opponent in ("random", "most-suit"):
        wins = 0
        for match in range(60):
            names = ["tactician", opponent] if match % 2 == 0 else [opponent, "tactician"]
            result = play_match(GAME, players(names, match), config=config, seed=match)
            wins += result.players[names.index("tactician")].placing == 1
        assert wins / 60 >= 0.7, f"tactician won only {wins}/60 against {opponent}"


def test_render_shows_the_seed_status_display_and_hides_other_hands_in_a_seat_view():
    state = GAME.new_game(3, seed=4)
    full = GAME.render(state)
    assert "DRW-pile ==>" in full and "DSC-pile ==>" in full and "TURN of: seat" in full
    for seat, hand in enumerate(state.hands):
        assert f"[Cards Sum = {cards.hand_points(hand)}]" in full
        assert " ".join(cards.show(card) for card in hand) in full
    mine = GAME.render(state, seat=0)
    assert " ".join(cards.show(card) for card in state.hands[0]) in mine and "[??]" in mine
    assert not any(cards.show(card) in mine for card in state.hands[1] + state.hands[2] + state.draw_pile)


def test_describe_action_names_the_card_and_the_suit():
    state = GAME.new_game(2, seed=0)
    for action in state.legal_actions():
        text = GAME.describe_action(state, action)
        assert text.startswith("PLAY " + cards.show(action["play"]))
        if "suit" in action:
            assert cards.SUIT_NAMES[action["suit"]] in text


def run_cli(*args):
    proc = subprocess.run([sys.executable, "-m", "games", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_command_line_prints_the_status_display_turn_by_turn_when_verbose():
    out = run_cli("match", "crazyking", "builtin:random", "builtin:most-suit", "builtin:tactician",
                  "--seed", "7", "--config", '{"target_score": 60}', "--verbose")
    assert out.count("DRW-pile ==>") > 10 and "PLAY [" in out and "winner: seat" in out


def test_the_command_line_runs_the_example_bot_file(tmp_path):
    out = json.loads(run_cli("match", "crazyking", "docs/bots/examples/crazyking_example.py", "builtin:random",
                             "--config", '{"target_score": 60}', "--json"))
    assert out["players"][0]["status"] == "ok" and out["winners"]


def test_the_docs_show_the_example_bot_file_as_it_is():
    doc = (ROOT / "docs/bots/crazyking.md").read_text(encoding="utf-8")
    shown = doc.split("```python\n", 1)[1].split("```", 1)[0]
    assert shown.strip() in (ROOT / "docs/bots/examples/crazyking_example.py").read_text(encoding="utf-8")


def test_describe_action_tells_a_pass_under_a_queen():
    state = GAME.new_game(2, seed=0)
    state.pending = "Q"
    assert GAME.describe_action(state, "pass") == "PASS: skipped by the QUEEN and draws two"
