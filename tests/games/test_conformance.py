"""The checks every registered game passes, whatever its rules (as OpenSpiel's games_sim_test does).

Parameterised over `games.available_games()`, so a new game is checked as soon as it is registered. The
only per-game knowledge comes from the games' own declarations: player counts, `cooperative`,
`score_order`, and the `hidden_variant` hook that redraws what a seat may not see.
"""

import json
import random

import pytest
from hostile import assert_storable_json, json_values, non_json_values
from hypothesis import HealthCheck, given, settings, strategies as st

from games import available_games, replay
from games.core import IllegalAction, ScoreOrder, Verdict, canonical
from games.referee import InProcessPlayer, play_match
from quick_tier import examples

GAMES = sorted(available_games().items())
IDS = [name for name, _ in GAMES]
# Enough random decisions to cross phases, rounds and the ends of short games, without long tests.
MAX_STEPS = 400


class RandomPolicy:
    """Any legal action, from its own seeded generator: knows nothing of any game."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def act(self, obs):
        return self.rng.choice(obs["legal_actions"])


class CrashesAt(RandomPolicy):
    """Plays at random, then raises at its `decision`-th decision."""

    def __init__(self, seed, decision):
        super().__init__(seed)
        self.left = decision

    def act(self, obs):
        self.left -= 1
        if self.left <= 0:
            raise RuntimeError("deliberate crash")
        return super().act(obs)


def random_states(game, seed, num_players=None):
    """The states of one game played at random from `seed`, up to MAX_STEPS decisions."""
    state = game.new_game(num_players, seed=seed)
    policy = RandomPolicy(seed)
    states = [state]
    while not state.is_terminal() and len(states) <= MAX_STEPS:
        state = state.apply_action(policy.act(state.observation(state.current_player())))
        states.append(state)
    return states


def seated(game, seed, count=None):
    return [InProcessPlayer(f"random{seat}", RandomPolicy(seed * 10 + seat))
            for seat in range(count or game.default_players)]


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
def test_a_seed_replays_the_same_game(name, game):
    first = [state.full_view() for state in random_states(game, 11)]
    again = [state.full_view() for state in random_states(game, 11)]
    assert first == again


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
def test_observations_are_json_with_legal_actions_only_for_the_seat_on_move(name, game):
    for state in random_states(game, 3)[::5]:
        for seat in range(state.num_players):
            obs = state.observation(seat)
            assert json.loads(json.dumps(obs)) == obs
            assert obs["game"] == name and obs["seat"] == seat and obs["step"] == state.step
            assert obs["legal_actions"] == (state.legal_actions() if state.current_player() == seat else [])
        json.dumps(state.full_view())


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
def test_no_observation_depends_on_what_its_seat_may_not_see(name, game):
    rng = random.Random(5)
    variants = differing = 0
    for seed in range(4):
        for state in random_states(game, seed)[::3]:
            for seat in range(state.num_players):
                variant = state.hidden_variant(seat, rng)
                if variant is None:
                    continue
                variants += 1
                assert variant.observation(seat) == state.observation(seat), (seed, state.step, seat)
                differing += variant.full_view() != state.full_view()
    # A game that hides anything must really redraw it somewhere, or this test would prove nothing.
    assert variants == 0 or differing > variants // 10


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
def test_the_replay_rebuilds_every_state_and_the_result(name, game):
    states = []
    result = play_match(game, seated(game, 7), seed=7, on_step=lambda before, seat, action, after: states.append(after))
    saved = json.loads(json.dumps(result.replay))
    replayed = [state for state, _ in replay.states(saved)]
    assert [state.full_view() for state in replayed[1:]] == [state.full_view() for state in states]
    assert replayed[-1].scores() == saved["result"]["scores"] == result.final_state.scores()
    assert replayed[-1].winners() == saved["result"]["winners"] == result.winners


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
def test_a_games_analysis_comes_move_by_move_only_where_its_info_says_so(name, game):
    """analyse_move is an optional hook: a game that does not stream its analysis answers None (never an
    error); one that does answers the row of the move asked (its last here: a small position, solved fast)."""
    result = play_match(game, seated(game, 3), seed=3)
    saved = json.loads(json.dumps(result.replay))
    last = result.final_state.step - 1
    row = game.analyse_move(saved, last)
    if game.info().streams_analysis:
        assert row["step"] == last and row["text"]
    else:
        assert row is None


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
def test_a_seat_that_fails_gets_its_verdict_places_last_and_the_replay_records_it(name, game):
    players = seated(game, 2, game.max_players)
    players[0] = InProcessPlayer("crashes", CrashesAt(2, decision=2))
    result = play_match(game, players, seed=2)
    final = result.final_state
    assert final.is_terminal() and 0 in final.failed_seats
    assert result.players[0].status == Verdict.CRASH.value and result.players[0].detail
    assert result.players[0].placing == game.max_players and 0 not in result.winners
    assert {"seat": 0, "verdict": "crash"} in result.replay["events"]
    assert replay.final_state(result.replay).full_view() == final.full_view()


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
def test_the_result_says_how_scores_rank_and_whether_the_seats_are_one_team(name, game):
    result = play_match(game, seated(game, 4), seed=4)
    data = result.as_json()
    assert data["cooperative"] is game.cooperative and data["score_order"] == game.score_order.value
    scores = [player.score for player in result.players]
    sign = 1 if game.score_order is ScoreOrder.HIGHER_IS_BETTER else -1
    best = max(sign * score for score in scores)
    assert all(player.placing == 1 for player in result.players if sign * player.score == best)
    if game.cooperative:
        assert len(set(scores)) == 1 and not data["draw"]
        assert result.winners in ([], list(range(len(scores))))


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
def test_the_documented_example_bot_plays_a_full_game(name, game, example_bot):
    players = seated(game, 1)
    players[0] = InProcessPlayer("example", example_bot(name))
    result = play_match(game, players, seed=1)
    assert result.final_state.is_terminal() and result.players[0].status == "ok"


# States to judge hostile actions in: a few of each game's, from its first decision to late in a game.
JUDGED_STATES = {name: [state for state in random_states(game, 8)[:-1]][::9] for name, game in GAMES}


def near_misses(action) -> list:
    """Values a bot may return that look like a legal `action` but are not it (or are the same JSON)."""
    return [[action], {"action": action}, str(action), json.dumps(action), True, 1.0, -0.0, float("nan"),
            (action,), action if not isinstance(action, list) else tuple(action)]


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
@settings(max_examples=examples(150), derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_legality_check_takes_anything_and_answers_a_legal_action_or_illegal(name, game, data):
    state = data.draw(st.sampled_from(JUDGED_STATES[name]), label="state")
    legal = state.legal_actions()
    action = data.draw(st.one_of(json_values, non_json_values, st.sampled_from(near_misses(legal[0]))), label="action")
    try:
        chosen = state.legal_action(action)
    except IllegalAction as illegal:
        assert str(illegal)
        assert not state.is_legal(action)
        return
    # Legal only as the same JSON as a legal action, and then the game's own value is what goes on.
    assert chosen in legal and canonical(chosen) == canonical(action)
    assert state.apply_action(action).full_view() == state.apply_action(chosen).full_view()


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
@settings(max_examples=examples(8), derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(action=st.one_of(non_json_values, json_values.filter(lambda value: not isinstance(value, str))))
def test_a_bot_returning_anything_but_a_legal_action_loses_as_illegal_and_the_replay_stays_json(name, game, action):
    players = seated(game, 6)
    players[0] = InProcessPlayer("hostile", Returns(action))
    result = play_match(game, players, seed=6)
    status = result.players[0].status
    assert status == Verdict.ILLEGAL.value or game.new_game(seed=6).is_legal(action)
    if status == Verdict.ILLEGAL.value:
        assert "not one of legal_actions" in result.players[0].detail and 0 not in result.winners
    assert_storable_json(result.replay)


class Returns:
    """Returns the same value at every decision."""

    def __init__(self, value):
        self.value = value

    def act(self, obs):
        return self.value


# --- what people see: their moves as labelled choices, and the public view for spectators ----------------
def keys_anywhere(value) -> set:
    """Every key of every object nested in `value`."""
    if isinstance(value, dict):
        return set(value).union(*(keys_anywhere(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_anywhere(item) for item in value))
    return set()


# A label a person reads in a list of choices: one line, not a paragraph.
LONGEST_LABEL = 160


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
def test_every_legal_move_is_a_choice_with_its_own_label_from_the_seats_view_only(name, game):
    rng = random.Random(9)
    for seed in range(3):
        for state in random_states(game, seed)[::4]:
            seat = state.current_player()
            if seat is None:
                continue
            choices = state.move_choices(seat)
            assert [choice.action for choice in choices] == state.legal_actions()
            labels = [choice.label for choice in choices]
            assert all(isinstance(label, str) and label.strip() and "\n" not in label for label in labels)
            assert all(len(label) <= LONGEST_LABEL for label in labels), max(labels, key=len)
            # A person picks by label (in any case): two moves must never read the same.
            assert len({label.casefold() for label in labels}) == len(labels), (seed, state.step, labels)
            assert not any(label == canonical(choice.action) for label, choice in zip(labels, choices))
            assert all(state.move_choices(other) == [] for other in range(state.num_players) if other != seat)
            variant = state.hidden_variant(seat, rng)
            if variant is not None:  # what the seat may not see never changes how its moves read
                assert [choice.label for choice in variant.move_choices(seat)] == labels, (seed, state.step)


@pytest.mark.parametrize("name, game", GAMES, ids=IDS)
def test_the_public_view_is_what_every_seat_sees_and_carries_nothing_hidden(name, game):
    rng = random.Random(13)
    for seed in range(4):
        for state in random_states(game, seed)[::3]:
            public = state.public_view()
            assert json.loads(json.dumps(public)) == public
            assert public["game"] == name and public["step"] == state.step and public["over"] == state.is_terminal()
            assert not keys_anywhere(public) & {"seed", "rng", "legal_actions", "hand", "hands_cards"}
            assert "seat" not in public
            # Made from any one seat's view, it is the same: it holds only what every seat sees.
            from_each_seat = [state._public(state._observe(seat)) for seat in range(state.num_players)]
            assert all(view == from_each_seat[0] for view in from_each_seat), (seed, state.step)
            # Two positions that differ only in what some seat may not see look the same to a spectator.
            for seat in range(state.num_players):
                variant = state.hidden_variant(seat, rng)
                if variant is not None:
                    assert variant.public_view() == public, (seed, state.step, seat)
                    # The picture a table page draws beside any view (Sprouts' drawing) is public as well.
                    assert variant.picture() == state.picture(), (seed, state.step, seat)
    last = random_states(game, 0)[-1]
    assert last.public_view() != game.new_game(seed=0).public_view()  # it does show the game going on
