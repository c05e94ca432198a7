"""The pairing room's schedule: everybody plays two games a round (first once), new opponents while there are
any, the built-in's games spread fairly; checked against every possible pairing of small rooms."""

from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from games.tournament import swiss
from games.tournament.pairing_room import BUILTIN, Pairing, builtin_games, meetings, pair_round, schedule
from quick_tier import examples


def all_pairings(players: list, byes: dict) -> list[list[Pairing]]:
    """Every way to pair a round of `players` by the rules that come before repeats: everybody plays, the
    built-in (odd count) partners one of those who played it least."""
    if not players:
        return [[]]
    if len(players) % 2:
        fewest = min(byes.get(p, 0) for p in players)
        return [[Pairing(alone, BUILTIN), *rest] for alone in players if byes.get(alone, 0) == fewest
                for rest in all_pairings([p for p in players if p != alone], byes)]
    first, others = players[0], players[1:]
    return [[Pairing(first, second), *rest] for second in others
            for rest in all_pairings([p for p in others if p != second], byes)]


def repeats(pairings: list[Pairing], met: Counter) -> int:
    return sum(met[frozenset((p.first, p.second))] for p in pairings if not p.against_builtin)


def check_round(players: list, pairings: list[Pairing]) -> None:
    """Every player in exactly one pairing: two games, first in one of them, second in the other."""
    seen = Counter(player for pairing in pairings for game in pairing.games for player in game if player is not BUILTIN)
    assert seen == Counter({player: 2 for player in players})
    for player in players:
        firsts = [game for pairing in pairings for game in pairing.games if game[0] == player]
        assert len(firsts) == 1


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(1, 9), st.integers(1, 8), st.integers(0, 1000))
def test_every_player_plays_two_games_a_round_first_once(players, rounds, seed):
    names = [f"p{i}" for i in range(players)]
    for pairings in schedule(names, rounds, seed):
        check_round(names, pairings)


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(1, 9), st.integers(1, 10), st.integers(0, 1000))
def test_the_builtin_goes_round_before_anybody_plays_it_twice(players, rounds, seed):
    names = list(range(players))
    played = schedule(names, rounds, seed)
    for done in range(1, rounds + 1):
        counts = builtin_games(played[:done])
        spread = [counts[name] for name in names]
        assert max(spread) - min(spread) <= (players % 2)  # nobody ever plays it when the count is even
        assert sum(spread) == done * (players % 2)


@settings(max_examples=examples(120), deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=7, unique=True), st.integers(0, 5), st.integers(0, 1000),
       st.data())
def test_no_repeat_while_a_round_of_new_opponents_exists(players, history_rounds, seed, data):
    """Against any history (of any players, some present now, some gone), the round's repeats are the fewest of
    any fair pairing; in particular none when a pairing of new opponents exists."""
    everyone = list(range(8))
    history = [pair_round(data.draw(st.lists(st.sampled_from(everyone), unique=True)), seed=seed + i)
               for i in range(history_rounds)]
    met, byes = meetings(history), builtin_games(history)
    chosen = pair_round(players, met, byes, seed)
    check_round(players, chosen)
    fair = all_pairings(players, byes)
    assert any({frozenset((p.first, p.second)) for p in chosen} == {frozenset((p.first, p.second)) for p in way}
               for way in fair), "the built-in went to someone who had played it more than another"
    assert repeats(chosen, met) == min(repeats(way, met) for way in fair)


@pytest.mark.parametrize("players", range(2, 13))
def test_the_first_rounds_never_repeat_an_opponent(players):
    names = list(range(players))
    played = schedule(names, swiss.max_rounds(players), seed=players)
    assert max(meetings(played).values()) == 1


def test_a_late_joiner_is_paired_with_the_others_without_a_repeat():
    first = schedule(["ada", "bob", "cy"], 1)
    late = pair_round(["ada", "bob", "cy", "dee"], meetings(first), builtin_games(first))
    check_round(["ada", "bob", "cy", "dee"], late)
    assert not set(meetings([late])) & set(meetings(first))
    assert not any(p.against_builtin for p in late)


def test_the_same_facts_give_the_same_round_and_seeds_vary_it():
    names = [f"s{i}" for i in range(10)]
    assert schedule(names, 3, seed=7) == schedule(names, 3, seed=7)
    assert len({tuple(map(tuple, (sorted((p.first, p.second)) for p in schedule(names, 1, seed)[0])))
                for seed in range(20)}) > 1


def test_a_player_alone_plays_the_builtin_and_nobody_present_plays_nothing():
    assert pair_round(["solo"]) == [Pairing("solo", BUILTIN)]
    assert Pairing("solo", BUILTIN).games == (("solo", BUILTIN), (BUILTIN, "solo"))
    assert pair_round([]) == []


@pytest.mark.parametrize("players", [["a", "a"], ["a", BUILTIN]])
def test_players_listed_twice_or_as_the_builtin_are_refused(players):
    with pytest.raises(ValueError):
        pair_round(players)
