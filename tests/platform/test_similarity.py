"""The similarity check: copies disguised by renaming, reformatting, reordering and dead code score high;
independently written bots of the same algorithm score low; code everyone was given does not count.

The bots are in similarity_cases/: realistic End Game bots by different "students", and three disguised
copies of minimax_erin.py.
"""

import builtins
import keyword
import string
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.similarity.highlight import side_by_side
from arena.similarity.public_code import builtin_bot_sources
from arena.similarity.winnowing import SourceError, compare, compare_all, fingerprint, score_histogram

CASES = Path(__file__).parent / "similarity_cases"
HONEST_PAIRS = [("greedy_alice", "greedy_bob"), ("dp_carol", "dp_dave"), ("dp_carol", "starter_grace"),
                ("greedy_bob", "starter_frank"), ("dp_carol", "minimax_erin"), ("dp_dave", "minimax_erin")]


def case(name: str) -> str:
    return (CASES / f"{name}.py").read_text(encoding="utf-8")


def similarity(a: str, b: str, starter: str | None = None, public=()) -> float:
    [report] = compare_all({"a": a, "b": b}, starter, public=public)
    return report.similarity


def line_of(source: str, text: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), 1) if text in line)


def rename(source: str, mapping: dict[str, str]) -> str:
    return re.sub(r"\b(" + "|".join(mapping) + r")\b", lambda m: mapping[m.group(1)], source)


def highest_honest_similarity() -> float:
    starter = case("starter")
    return max(similarity(case(a), case(b), starter) for a, b in HONEST_PAIRS)


def test_a_renamed_and_reformatted_copy_scores_high():
    original, copy = case("minimax_erin"), case("minimax_erin_renamed")
    score, regions = compare(fingerprint(original), fingerprint(copy))
    assert score > 0.8
    # The copied search function is shown matched to its renamed twin.
    search, negamax = line_of(original, "def search("), line_of(copy, "def negamax(")
    assert any(r.a_start <= search + 2 <= r.a_end and r.b_start <= negamax + 2 <= r.b_end for r in regions)


def test_layout_comments_and_docstrings_do_not_count():
    original = case("minimax_erin")
    reformatted = ('import time\nDEPTH=8;BUDGET=0.5\ndef parity_bound(board):\n    evens=sum(board[0::2]);'
                   ' odds=sum(board[1::2])  # which is larger?\n    if len(board)%2: return max(evens-odds,0,)\n'
                   '    return abs(\n        evens - odds\n    )\n')
    head = original[:original.index("def search(")]
    assert similarity(head, reformatted) == 1.0


def test_reordered_functions_still_score_high_and_match_function_to_function():
    original, copy = case("minimax_erin"), case("minimax_erin_reordered")
    score, regions = compare(fingerprint(original), fingerprint(copy))
    assert score > 0.8
    # In the copy the class comes first and the helpers last; each is matched where it moved to.
    for in_original, in_copy in [("def parity_bound(", "def evaluate("), ("def search(", "def alphabeta("),
                                 ("def act(", "def act(")]:
        a_line, b_line = line_of(original, in_original) + 2, line_of(copy, in_copy) + 2
        assert any(r.a_start <= a_line <= r.a_end and r.b_start <= b_line <= r.b_end for r in regions), in_original


def test_dead_code_between_functions_barely_changes_the_score():
    original = case("minimax_erin")
    dead = "\n\ndef unused_{0}(values):\n    total = 0\n    for v in values:\n        total += v * {0}\n    return total\n\n"
    parts = re.split(r"\n(?=def |class )", original)
    padded = "\n".join(part + dead.format(i) for i, part in enumerate(parts))
    assert similarity(original, padded) > 0.9


def test_dead_code_inside_every_function_still_scores_high():
    """minimax_erin_padded.py adds unused imports, helpers, variables, logging and an `if False:` branch
    inside every function of the original: each insertion breaks the k-grams across it."""
    score = similarity(case("minimax_erin"), case("minimax_erin_padded"))
    assert score > 0.8
    assert score > 10 * highest_honest_similarity()


@pytest.mark.parametrize("a, b", HONEST_PAIRS)
def test_independently_written_bots_score_low(a, b):
    assert similarity(case(a), case(b), case("starter")) < 0.3


def test_two_textbook_dp_tables_share_only_their_recurrence():
    """Dave and Grace both fill the interval table bottom-up, as the textbook does: their table set-up,
    loop headers and recurrence are the same tokens. That is found, the rest of their code is not, and
    the score stays below that of any disguised copy."""
    dave, grace, starter = case("dp_dave"), case("starter_grace"), case("starter")
    ignore = fingerprint(starter)
    score, regions = compare(fingerprint(dave, ignore=ignore), fingerprint(grace, ignore=ignore))
    assert 0.0 < score < 0.5
    table = range(line_of(grace, "n = len(board)"), line_of(grace, "margin[lo][hi] = max(") + 1)
    assert regions and all(r.b_start in table and r.b_end in table for r in regions)
    assert score < similarity(case("minimax_erin"), case("minimax_erin_padded")) - 0.4


def test_code_only_shared_through_the_starter_does_not_count():
    frank, grace, starter = case("starter_frank"), case("starter_grace"), case("starter")
    assert similarity(frank, grace) > 0.5  # what the starter alone would make them look like
    assert similarity(frank, grace, starter) < 0.05


def test_copying_on_top_of_the_starter_is_still_found():
    frank, starter = case("starter_frank"), case("starter")
    copy = rename(frank, {"net": "gain", "rest": "left_over", "value": "points", "action": "move"})
    assert similarity(frank, copy, starter) > 0.8


def parity_bot_with_own_fallback(fallback: str) -> str:
    """A student's file: the built-in ParityBot pasted from the repository, its greedy fallback replaced."""
    [parity] = [source for source in builtin_bot_sources("endgame") if source.startswith("class ParityBot")]
    pasted = parity.replace("class ParityBot:", "class Bot:").replace("GreedyBot().act(obs)", "self.fallback(obs)")
    return pasted + "\n" + "\n".join("    " + line for line in fallback.splitlines()) + "\n"


def test_code_pasted_from_the_built_in_bots_does_not_count():
    greedy = 'def fallback(self, obs):\n    b = obs["board"]\n    return "left" if b[0] > b[-1] else "right"\n'
    lookahead = ('def fallback(self, obs):\n    board = obs["board"]\n    if len(board) < 3:\n        return "left"\n'
                 '    left = board[0] - max(board[1], board[-1])\n    right = board[-1] - max(board[0], board[-2])\n'
                 '    return "left" if left >= right else "right"\n')
    a, b = parity_bot_with_own_fallback(greedy), parity_bot_with_own_fallback(lookahead)
    assert similarity(a, b) > 0.5
    assert similarity(a, b, public=builtin_bot_sources("endgame")) < 0.3


@pytest.mark.parametrize("source, expected", [
    ("def act(observation:\n    return 'left'\n", "line 1"),
    ("def act(observation):\nreturn 'left'\n", "line 2: expected an indented block"),
    ("x = (1,\n", "line 1"),
    ("x = 1\0\n", "null bytes"),
])
def test_a_file_that_is_not_python_is_reported_clearly(source, expected):
    with pytest.raises(SourceError, match=re.escape(expected)):
        fingerprint(source)


def test_compare_all_names_every_file_that_is_not_python():
    sources = {"good.py": case("greedy_alice"), "bad.py": "def act(:\n", "worse.py": "if True\n    pass\n"}
    with pytest.raises(SourceError, match=r"bad\.py: line 1.*worse\.py: line 1"):
        compare_all(sources)
    with pytest.raises(SourceError, match="starter code: line 1"):
        compare_all({"a": "x = 1\n", "b": "y = 2\n"}, starter="def (\n")


def test_compare_all_reports_every_pair_highest_first():
    names = ["greedy_alice", "greedy_bob", "dp_carol", "minimax_erin", "minimax_erin_renamed"]
    reports = compare_all({name: case(name) for name in names})
    assert len(reports) == 10
    assert {frozenset((r.a, r.b)) for r in reports} == {frozenset((a, b)) for a in names for b in names if a < b}
    assert [r.similarity for r in reports] == sorted((r.similarity for r in reports), reverse=True)
    assert {reports[0].a, reports[0].b} == {"minimax_erin", "minimax_erin_renamed"}
    histogram = score_histogram(reports)
    assert sum(bin["count"] for bin in histogram) == 10
    assert histogram[-1]["count"] == 1 and histogram[-1]["high"] == 1.0


def test_fingerprints_of_different_parameters_are_not_compared():
    with pytest.raises(ValueError, match="k/window"):
        compare(fingerprint("x = 1\n", k=5), fingerprint("x = 1\n", k=6))


def test_side_by_side_marks_both_halves_of_each_match_and_escapes_html():
    original = case("minimax_erin").replace("if lo > hi:", "if lo > hi:  # <b>&")
    copy = case("minimax_erin_reordered")
    _, regions = compare(fingerprint(original), fingerprint(copy))
    sides = side_by_side(original, copy, regions)
    assert [line["number"] for line in sides["a"]] == list(range(1, len(original.splitlines()) + 1))
    marked = next(line for line in sides["a"] if "if lo &gt; hi:" in line["text"])
    assert marked["text"].endswith("# &lt;b&gt;&amp;")
    region = regions[marked["match"]]
    partner = [line for line in sides["b"] if line["match"] == marked["match"]]
    assert [line["number"] for line in partner] == list(range(region.b_start, region.b_end + 1))
    assert any("if start &gt; end:" in line["text"] for line in partner)
    assert sides["a"][0]["match"] is None  # the docstring is no one's copy


# Programs built from statement shapes with the identifiers filled in from a pool of names.
SHAPES = [
    "{0} = {1} + {n}",
    "def {0}({1}):\n    return {1} * {n}",
    "if {0} > {n}:\n    {1} = [{0}, {n}]",
    "for {0} in range({n}):\n    {1} += {0}",
    "{0} = max({1}, key=lambda {2}: {2} % {n})",
    "class {0}:\n    def {1}(self, {2}):\n        self.{2} = {2}\n        return '{0}'",
    "while {0} < {n}:\n    {0} = {0} * 2 + {1}",
]
# Identifiers of up to 8 characters, but not those a program could not use for its own. Built from two cheap
# draws and a set rather than a regex filtered through dir() at each draw: drawing three names took up to
# 0.1 s that way, and hypothesis's too_slow health check failed under load.
TAKEN_NAMES = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | {"self"}
identifier = st.builds(str.__add__, st.sampled_from(string.ascii_lowercase + "_"),
                       st.text(string.ascii_lowercase + string.digits + "_", max_size=7)
                       ).filter(lambda name: name not in TAKEN_NAMES)
names = st.lists(identifier, min_size=3, max_size=3, unique=True)
program_shape = st.lists(st.tuples(st.sampled_from(SHAPES), st.permutations(range(3)), st.integers(0, 99)),
                         min_size=1, max_size=30)


def render(shape, pool: list[str]) -> str:
    return "\n".join(text.format(*(pool[i] for i in order), n=n) for text, order, n in shape) + "\n"


@given(program_shape, program_shape, names)
def test_similarity_is_symmetric_and_a_share(shape_a, shape_b, pool):
    a, b = fingerprint(render(shape_a, pool)), fingerprint(render(shape_b, pool))
    forward, backward = compare(a, b)[0], compare(b, a)[0]
    assert forward == backward
    assert 0.0 <= forward <= 1.0


@given(program_shape, names, names)
def test_a_file_matches_itself_and_any_renaming_of_itself_fully(shape, pool, other_pool):
    source = fingerprint(render(shape, pool))
    assert compare(source, source)[0] == 1.0
    assert compare(source, fingerprint(render(shape, other_pool)))[0] == 1.0
