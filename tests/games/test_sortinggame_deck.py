"""SortingGame's deck: the complexity language, the standard deck's data and sources, custom decks, rulings."""

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from games import ConfigError, get_game
from games.sortinggame import __main__ as deck_cli, deck as decks
from games.sortinggame.complexity import ComplexityError, parse, parse_bound, satisfies
from games.sortinggame.rules import judge

GAME = get_game("sortinggame")
STANDARD = decks.load_deck()
RAW = json.loads(decks.STANDARD_DECK.read_text(encoding="utf-8"))
REQUIRED_ALGORITHMS = ["bubble", "cocktail", "odd-even", "gnome", "insertion", "selection", "cycle", "shell", "comb",
                       "heap", "quick", "intro", "merge", "tim", "counting", "radix", "bucket", "bogo"]


# --- complexity classes ---------------------------------------------------------------------
@pytest.mark.parametrize("text, same", [("N²", "N^2"), ("N log N", "n log n"), ("N log² N", "N log^2 N"),
                                        ("N·N!", "N * N!"), ("∞", "unbounded"), ("N^1.5", "N^3/2")])
def test_spellings_of_one_class_are_equal(text, same):
    assert parse(text) == parse(same)


def test_classes_are_ordered_by_growth():
    growth = ["1", "log N", "N", "N log N", "N log² N", "N^1.5", "N²", "N² log N", "N³", "N!", "N·N!", "∞"]
    assert [str(c) for c in sorted(map(parse, reversed(growth)))] == [str(parse(t)) for t in growth]


@given(st.integers(0, 3), st.integers(0, 3), st.integers(0, 1))
def test_class_text_parses_back_to_the_same_class(power, log_power, factorial):
    text = " ".join(["N" if power else ""] * power + ["log N"] * log_power + ["N!"] * factorial).strip() or "1"
    assert parse(str(parse(text))) == parse(text)


@pytest.mark.parametrize("bad", ["", "N log", "N lg N", "x", "N^", "O(N)", 3])
def test_malformed_classes_are_refused(bad):
    with pytest.raises(ComplexityError, match="malformed"):
        parse(bad)


def test_bounds_read_theta_big_o_and_omega():
    assert parse_bound("Θ(N log N)") == ("Θ", parse("N log N"))
    assert parse_bound("Omega(N)") == ("Ω", parse("N"))
    n_log_n, n2 = parse("N log N"), parse("N²")
    assert satisfies(n_log_n, "O", n2) and not satisfies(n2, "O", n_log_n)
    assert satisfies(n2, "Ω", n_log_n) and satisfies(n2, "Θ", parse("N^2")) and not satisfies(n_log_n, "Θ", n2)
    with pytest.raises(ComplexityError, match="bound"):
        parse_bound("N log N")


# --- the standard deck ----------------------------------------------------------------------
def test_standard_deck_has_every_required_algorithm_with_every_property():
    assert set(REQUIRED_ALGORITHMS) <= set(STANDARD.algorithms)
    for entry in RAW["algorithms"]:
        assert set(decks.PROPERTIES) <= set(entry), entry["id"]


def test_every_property_of_every_algorithm_names_a_documented_source():
    for card in STANDARD.algorithms.values():
        assert set(card.sources) == set(decks.PROPERTIES), card.id
        for reference in card.sources.values():
            assert reference.split(":")[0] in STANDARD.sources


# The published figures, written out here from the textbooks, not from deck.json: time in the best, average
# and worst case, auxiliary space, and stability, for the variant each card names. Sources: Wikipedia,
# "Sorting algorithm", tables "Comparison sorts" and "Non-comparison sorts"; CLRS 3rd ed. ch. 2 (insertion,
# merge), 6 (heapsort), 7 (quicksort, its stack depth in problem 7-4), 8.2-8.4 (counting, radix, bucket);
# Knuth vol. 3 5.2.1 (Shellsort with Pratt's 2^p 3^q gaps: n log^2 n on every input), Musser 1997
# (introsort), Peters' listsort.txt (Timsort), Haddon 1990 (cycle sort), Gruber et al. 2007 (bogosort:
# expected n * n! with an unbounded worst case). Counting and radix sort with keys in a range of O(n)
# and a constant number of digits, bucket sort with n buckets over uniform keys.
TEXTBOOK = {
    #              best          average       worst        space    stable
    "bubble":     ("n",         "n^2",        "n^2",       "1",     True),
    "cocktail":   ("n",         "n^2",        "n^2",       "1",     True),
    "odd-even":   ("n",         "n^2",        "n^2",       "1",     True),
    "gnome":      ("n",         "n^2",        "n^2",       "1",     True),
    "insertion":  ("n",         "n^2",        "n^2",       "1",     True),
    "selection":  ("n^2",       "n^2",        "n^2",       "1",     False),
    "cycle":      ("n^2",       "n^2",        "n^2",       "1",     False),
    "shell":      ("n log^2 n", "n log^2 n",  "n log^2 n", "1",     False),
    "comb":       ("n log n",   "n^2",        "n^2",       "1",     False),
    "heap":       ("n log n",   "n log n",    "n log n",   "1",     False),
    "quick":      ("n log n",   "n log n",    "n^2",       "log n", False),
    "intro":      ("n log n",   "n log n",    "n log n",   "log n", False),
    "merge":      ("n log n",   "n log n",    "n log n",   "n",     True),
    "tim":        ("n",         "n log n",    "n log n",   "n",     True),
    "counting":   ("n",         "n",          "n",         "n",     True),
    "radix":      ("n",         "n",          "n",         "n",     True),
    "bucket":     ("n",         "n",          "n^2",       "n",     True),
    "bogo":       ("n",         "n * n!",     "unbounded", "1",     False),
}


def test_textbook_table_covers_the_required_algorithms():
    assert sorted(TEXTBOOK) == sorted(REQUIRED_ALGORITHMS)


@pytest.mark.parametrize("algorithm", sorted(TEXTBOOK))
def test_deck_complexities_are_the_published_ones(algorithm):
    best, average, worst, space, stable = TEXTBOOK[algorithm]
    card = STANDARD.algorithms[algorithm]
    assert (card.best, card.average, card.worst, card.space) == tuple(map(parse, (best, average, worst, space)))
    assert card.stable is stable


def test_standard_deck_has_the_special_cards_the_issue_lists():
    specials = STANDARD.specials.values()
    criteria = {card.name for card in specials if card.kind == "criterion"}
    assert {"stable", "unstable", "in-place", "not in-place", "comparison-based", "Θ(N log N)", "O(N²)"} <= criteria
    assert {card.case for card in specials if card.kind == "case"} == set(decks.CASES)
    assert "amount of swaps is O(N)" in {card.name for card in specials if card.kind == "robbery"}


def test_in_place_ruling_admits_a_logarithmic_stack_and_nothing_more():
    for card in STANDARD.algorithms.values():
        assert card.in_place == (card.space <= parse("log N")), card.id
    assert STANDARD.algorithms["quick"].in_place and not STANDARD.algorithms["merge"].in_place


def test_robbery_cards_are_dealt_only_with_the_extension():
    _, without = STANDARD.stacks(robbery=False)
    _, with_robbery = STANDARD.stacks(robbery=True)
    assert not any(STANDARD.specials[c].kind == "robbery" for c in without)
    assert any(STANDARD.specials[c].kind == "robbery" for c in with_robbery)


# --- the seed's example and other rulings ---------------------------------------------------
def test_seed_example_stable_and_theta_n_log_n():
    criteria = ["stable", "theta-n-log-n"]
    assert judge(STANDARD, "merge", criteria, "worst").valid
    heap = judge(STANDARD, "heap", criteria, "worst")
    assert not heap.valid and "the active card 'stable' requires a stable algorithm" in heap.explanation
    assert "heapsort is unstable" in heap.explanation and "Θ(N log N)'" not in heap.explanation
    insertion = judge(STANDARD, "insertion", criteria, "worst")
    assert not insertion.valid and "insertion sort's worst-case time is Θ(N²)" in insertion.explanation


def test_complexity_cards_are_judged_against_the_active_case():
    assert not judge(STANDARD, "insertion", ["o-n"], "worst").valid
    assert judge(STANDARD, "insertion", ["o-n"], "best").valid
    assert judge(STANDARD, "quick", ["theta-n-log-n"], "average").valid
    assert not judge(STANDARD, "quick", ["theta-n-log-n"], "worst").valid
    # O admits anything no slower; Ω anything no faster.
    assert judge(STANDARD, "merge", ["o-n2"], "worst").valid and judge(STANDARD, "bubble", ["omega-n-log-n"], "worst").valid
    assert not judge(STANDARD, "counting", ["omega-n-log-n"], "worst").valid


def test_with_no_criterion_every_algorithm_is_valid():
    assert all(judge(STANDARD, card, [], "worst").valid for card in STANDARD.algorithms)


# --- custom decks (Extension 2) -------------------------------------------------------------
def custom(**changes):
    data = copy.deepcopy(RAW)
    for path, value in changes.items():
        section, index, key = path.split("__")
        data[section][int(index)][key] = value
    return data


def problems_of(data) -> list[str]:
    with pytest.raises(decks.DeckError) as caught:
        decks.load_deck(data)
    return caught.value.problems


def test_unknown_property_is_reported():
    (problem,) = problems_of(custom(algorithms__0__speed="fast"))
    assert "unknown property 'speed'" in problem and "algorithms[0] (bubble)" in problem


def test_unknown_criterion_property_is_reported():
    (problem,) = problems_of(custom(specials__0__requires={"property": "adaptive", "is": True}))
    assert "unknown property 'adaptive'" in problem


def test_malformed_complexity_is_reported():
    (problem,) = problems_of(custom(algorithms__2__worst="N lg N"))
    assert "malformed complexity 'N lg N'" in problem and "'worst'" in problem


def test_duplicate_card_is_reported():
    data = copy.deepcopy(RAW)
    data["algorithms"].append(dict(data["algorithms"][0]))
    problems = problems_of(data)
    assert any("duplicate card id 'bubble'" in p for p in problems)
    assert any("duplicate card name 'bubble sort'" in p for p in problems)


def test_every_problem_is_listed_at_once():
    data = custom(algorithms__0__speed="fast", algorithms__1__best="fast", specials__0__kind="joker")
    assert len(problems_of(data)) == 3


def test_missing_source_and_in_place_contradiction_are_reported():
    data = custom(algorithms__12__in_place=True)  # merge sort, Θ(N) extra space
    data["algorithms"][0]["sources"].pop("swaps")
    problems = problems_of(data)
    assert any("in_place is true but extra space is Θ(N)" in p for p in problems)
    assert any("source of 'swaps'" in p for p in problems)


def test_a_custom_deck_plays_and_its_errors_are_config_errors():
    small = {
        "sources": {"notes": "the instructor's lecture notes"},
        "algorithms": [
            {"id": f"sort{i}", "name": f"sort {i}", "copies": 4, "stable": i % 2 == 0, "in_place": True,
             "comparison": True, "best": "N", "average": "N log N", "worst": ["N log N", "N²"][i % 2], "space": "1",
             "swaps": "N", "sources": {prop: "notes" for prop in decks.PROPERTIES}}
            for i in range(3)],
        "specials": [{"id": "stable", "name": "stable", "kind": "criterion", "copies": 6,
                      "requires": {"property": "stable", "is": True}}],
    }
    state = GAME.new_game(2, {"deck": small}, seed=1)
    assert set(state.full_view()["cards"]) == {"sort0", "sort1", "sort2", "stable"}
    with pytest.raises(ConfigError, match="unknown property 'speed'"):
        GAME.new_game(2, {"deck": {**small, "algorithms": [{**small["algorithms"][0], "speed": 1}]}})
    with pytest.raises(ConfigError, match="12 algorithm cards; dealing 6 players needs 18"):
        GAME.new_game(6, {"deck": small})


def test_deck_files_are_checked_from_the_command_line(tmp_path, capsys):
    assert deck_cli.main([]) == 0 and "is valid" in capsys.readouterr().out
    bad = tmp_path / "deck.json"
    bad.write_text(json.dumps(custom(algorithms__0__worst="fast")), encoding="utf-8")
    assert deck_cli.main([str(bad)]) == 1 and "malformed complexity 'fast'" in capsys.readouterr().err
    assert deck_cli.main(["--table"]) == 0 and "| `merge` merge sort | yes | no |" in capsys.readouterr().out


def test_the_bot_docs_show_the_current_deck_and_rulings():
    docs = (Path(__file__).resolve().parents[2] / "docs/bots/sortinggame.md").read_text(encoding="utf-8")
    assert STANDARD.markdown_table() in docs
    assert judge(STANDARD, "heap", ["stable"], "worst").explanation in docs
