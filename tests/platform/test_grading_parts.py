"""The rubric part types, scored by hand: what each makes of a handful of finished games.

The games here are stand-ins with only what a part reads (pk, winners, seats, replay), so every expected
fraction and detail is worked out in the comments from the rows given; the grading runs that play real
games are tests/platform/test_grading_runs.py. No database: these run without Django.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from arena.grading import parts
from arena.grading.parts import GameNeed, PartError


@dataclass
class Seats:
    rows: list

    def all(self):
        return self.rows


@dataclass
class Game:
    """A finished match as a part reads it: `statuses` and `scores` by seat."""

    pk: int
    winners: list[int]
    statuses: tuple[str, ...] = ("ok", "ok")
    scores: tuple[float, ...] = (0.0, 0.0)
    replay: list = field(default_factory=list)

    @property
    def seats(self) -> Seats:
        return Seats([SimpleNamespace(seat=number, status=status, score=score)
                      for number, (status, score) in enumerate(zip(self.statuses, self.scores))])


def context(games: dict[GameNeed, Game], game: str = "endgame") -> parts.Context:
    return parts.Context(SimpleNamespace(game=game, seed=11), None, None, games)


def need(board: int, seat: int, opponent: str = "greedy") -> GameNeed:
    return GameNeed(opponent, parts.derived_seed(11, board), seat)


def assignment(game: str = "endgame", seed: int = 11):
    return SimpleNamespace(game=game, seed=seed)


def test_every_part_type_is_registered_under_its_kind():
    assert {kind: type(part).__name__ for kind, part in parts.KINDS.items()} == {
        "win_rate": "WinRate", "reliability": "Reliability", "solver_loss": "SolverLoss",
        "tournament": "TournamentPlacement", "elo_percentile": "EloPercentile",
        "winning_moves": "SproutsWinningMoves", "team_score": "TeamScore",
    }


def test_board_seeds_are_stable_distinct_48_bit_numbers():
    seeds = [parts.derived_seed(11, index) for index in range(100)]
    assert seeds == [parts.derived_seed(11, index) for index in range(100)]  # the same boards on every run
    assert len(set(seeds)) == 100 and parts.derived_seed(12, 0) not in seeds
    # Six bytes of the digest: below 2**48, and (100 draws) some above 2**47.
    assert all(0 <= seed < 2 ** 48 for seed in seeds) and max(seeds) >= 2 ** 47


def test_a_number_option_takes_its_bounds_and_refuses_what_is_outside_or_not_a_number():
    win_rate = parts.KINDS["win_rate"]
    assert win_rate.clean(assignment(), {"games": 2, "full_at": 0.01})["full_at"] == 0.01
    assert win_rate.clean(assignment(), {"games": 200, "full_at": 1.0})["games"] == 200
    for options, message in [({"games": 1}, "games must be between 2 and 200"),
                             ({"games": 201}, "games must be between 2 and 200"),
                             ({"full_at": 1.01}, "full_at must be between 0.01 and 1.0"),
                             ({"full_at": 0.0}, "full_at must be between 0.01 and 1.0"),
                             ({"games": "ten"}, "games must be a number"),
                             ({"games": None}, "games must be a number")]:
        with pytest.raises(PartError, match=message):
            win_rate.clean(assignment(), options)


def test_games_against_a_built_in_come_in_pairs_with_seats_alternated():
    win_rate = parts.KINDS["win_rate"]
    assert win_rate.clean(assignment(), {}) == {"opponent": "greedy", "games": 10, "full_at": 0.8}
    cleaned = win_rate.clean(assignment(), {"games": 3, "opponent": "random"})
    assert cleaned["games"] == 4  # rounded up to a whole number of boards
    assert win_rate.needs(assignment(), cleaned) == [need(0, 0, "random"), need(0, 1, "random"),
                                                     need(1, 0, "random"), need(1, 1, "random")]
    # Sprouts has no greedy built-in: a part takes its own default opponent, or else the first by name.
    assert parts.KINDS["reliability"].clean(assignment("sprouts"), {})["opponent"] == "optimal"  # the first by name
    assert parts.KINDS["winning_moves"].clean(assignment("sprouts"), {})["opponent"] == "random"  # its own default
    with pytest.raises(PartError, match="opponent must be a built-in bot of endgame"):
        win_rate.clean(assignment(), {"opponent": "nobody"})


def test_part_types_refuse_games_they_cannot_grade():
    with pytest.raises(PartError, match="only for endgame, not sprouts"):
        parts.KINDS["solver_loss"].clean(assignment("sprouts"), {})
    with pytest.raises(PartError, match="use team_score"):
        parts.KINDS["win_rate"].clean(assignment("sorted"), {})
    assert parts.KINDS["win_rate"].clean(assignment("crazyking"), {})["opponent"] == "most-suit"


def test_win_rate_counts_a_draw_as_a_share_and_is_full_at_its_threshold():
    games = {need(0, 0): Game(1, [0]), need(0, 1): Game(2, [0, 1]), need(1, 0): Game(3, [1]),
             need(1, 1): Game(4, [1])}
    # Won 1 (seat 0 of game 1), a two-way draw (1/2), lost 1, won 1 (seat 1 of game 4): 2.5 of 4 = 62.5%.
    measured = parts.KINDS["win_rate"].measure(context(games), {"opponent": "greedy", "full_at": 0.8})
    assert measured.fraction == pytest.approx(0.625 / 0.8)
    assert measured.detail == "2.5 of 4 games won (62%) against greedy"
    assert (measured.matches, measured.facts) == ([1, 2, 3, 4], {"win_rate": 0.625})
    assert parts.KINDS["win_rate"].measure(context(games), {"opponent": "greedy", "full_at": 0.5}).fraction == 1.0
    assert parts.KINDS["win_rate"].measure(context({}), {"opponent": "greedy", "full_at": 0.8}).fraction == 0.0


def test_reliability_is_the_share_of_games_without_a_failure_of_the_graded_seat():
    games = {need(0, 0): Game(5, [0]), need(0, 1): Game(6, [0], statuses=("ok", "timeout")),
             need(1, 0): Game(7, [1], statuses=("crash", "ok")), need(1, 1): Game(8, [0], statuses=("ok", "timeout")),
             need(2, 0): Game(9, [1], statuses=("ok", "illegal"))}  # the opponent's failure is not the bot's
    measured = parts.KINDS["reliability"].measure(context(games), {"opponent": "greedy"})
    assert measured.fraction == pytest.approx(2 / 5)
    assert measured.detail == "2 of 5 games without failure (1 crash, 2 timeout)"
    assert measured.facts == {"failures": {"crash": 1, "timeout": 2}}
    clean = parts.KINDS["reliability"].measure(context({need(0, 0): Game(5, [0])}), {"opponent": "greedy"})
    assert (clean.fraction, clean.detail) == (1.0, "1 of 1 games without failure")
    assert parts.KINDS["reliability"].measure(context({}), {"opponent": "greedy"}).fraction == 0.0


class Analysis:
    """A game whose solver analysis is the rows stored as each match's replay."""

    cooperative, min_players = False, 2

    def analyse(self, replay):
        return replay


@pytest.fixture
def analysed(monkeypatch):
    monkeypatch.setattr(parts, "get_game", lambda name: Analysis())


def test_solver_loss_averages_the_points_the_graded_seat_lost_per_move(analysed):
    games = {need(0, 0): Game(1, [0], replay=[{"seat": 0, "points_lost": 1}, {"seat": 1, "points_lost": 5},
                                             {"seat": 0, "points_lost": 2}]),
             need(0, 1): Game(2, [1], replay=[{"seat": 1, "points_lost": 0}, {"seat": 0, "points_lost": 9}])}
    # The graded seat's moves: 1 + 2 in game 1, 0 in game 2: 3 points over 3 moves, 1.0 a move; 1 - 1/3.
    measured = parts.KINDS["solver_loss"].measure(context(games), {"zero_at": 3.0})
    assert measured.fraction == pytest.approx(2 / 3)
    assert measured.detail == "1.00 points lost per move over 3 moves"
    assert (measured.matches, measured.facts) == ([1, 2], {"average_points_lost": 1.0})
    assert parts.KINDS["solver_loss"].measure(context(games), {"zero_at": 0.5}).fraction == 0.0  # not below 0
    nothing = parts.KINDS["solver_loss"].measure(context({}), {"zero_at": 3.0})
    assert (nothing.fraction, nothing.detail) == (0.0, "3.00 points lost per move over 0 moves")


def test_winning_moves_counts_only_moves_made_in_won_positions(analysed):
    # Analysis rows (games.contracts.AnalysisRow) by their verdict; an unsettled move counts for nothing.
    rows = [{"seat": seat, "verdict": verdict} for seat, verdict in [
        (0, "keeps_win"), (0, "throws_win"), (0, "lost_position"), (1, "throws_win"), (0, "keeps_win"),
        (0, "unsettled"), (0, "keeps_win")]]
    games = {need(0, 0, "random"): Game(3, [0], replay=rows)}
    # The graded seat moved 4 times in won positions and kept the win 3 times: 75%.
    measured = parts.KINDS["winning_moves"].measure(context(games, "sprouts"), {"opponent": "random", "full_at": 0.9})
    assert measured.fraction == pytest.approx(0.75 / 0.9)
    assert measured.detail == "kept the win with 3 of 4 moves made in won positions (75%)"
    assert measured.facts == {"winning_move_rate": 0.75}
    full = parts.KINDS["winning_moves"].measure(context(games, "sprouts"), {"opponent": "random", "full_at": 0.7})
    assert full.fraction == 1.0
    never = {need(0, 0, "random"): Game(3, [1], replay=rows[2:4])}
    assert parts.KINDS["winning_moves"].measure(context(never, "sprouts"), {"full_at": 1.0}).fraction == 0.0


def test_team_score_is_linear_between_its_full_and_zero_marks():
    team_score = parts.KINDS["team_score"]
    cleaned = team_score.clean(assignment("sorted"), {"games": 3, "full_at": 2, "zero_at": 12})
    assert cleaned == {"games": 3, "full_at": 2.0, "zero_at": 12.0}
    assert team_score.needs(assignment("sorted"), cleaned) == [GameNeed("", parts.derived_seed(11, deal), 0)
                                                                for deal in range(3)]
    with pytest.raises(PartError, match="zero_at must be worse"):
        team_score.clean(assignment("sorted"), {"full_at": 5, "zero_at": 5})
    games = {GameNeed("", deal, 0): Game(20 + deal, winners, scores=(score,) * 4)
             for deal, (score, winners) in enumerate([(3.0, []), (0.0, [0, 1, 2, 3]), (9.0, [])])}
    # Average 4.0 with full marks at 2 and none at 12: (12 - 4) / 10 = 0.8.
    measured = team_score.measure(context(games, "sorted"), cleaned)
    assert measured.fraction == pytest.approx(0.8)
    assert measured.detail == "average team score 4.00 over 3 deals (1 sorted)"
    assert (measured.matches, measured.facts) == ([20, 21, 22], {"average_score": 4.0, "won": 1})
    assert team_score.measure(context(games, "sorted"), {**cleaned, "full_at": 5.0}).fraction == 1.0  # not above 1
    assert team_score.measure(context(games, "sorted"), {**cleaned, "zero_at": 3.0, "full_at": 0.0}).fraction == 0.0
    assert team_score.measure(context({}, "sorted"), cleaned).fraction == 0.0


# Every number option of every part type: its default, and its bounds (taken, and the message on refusal).
# (kind, game, option, default, low, high, just below low, just above high)
OPTIONS = [
    ("win_rate", "endgame", "full_at", 0.8, 0.01, 1.0, 0.0, 1.01),
    ("solver_loss", "endgame", "zero_at", 3.0, 0.1, 1000.0, 0.09, 1000.5),
    ("winning_moves", "sprouts", "full_at", 1.0, 0.01, 1.0, 0.005, 1.001),
    ("team_score", "sorted", "games", 10, 1, 200, 0, 201),
    ("team_score", "sorted", "zero_at", 10.0, 0.1, 1000.0, 0.05, 1000.01),
]


@pytest.mark.parametrize("kind, game, option, default, low, high, below, above", OPTIONS)
def test_each_option_has_its_default_and_takes_its_bounds(kind, game, option, default, low, high, below, above):
    part = parts.KINDS[kind]
    assert part.clean(assignment(game), {})[option] == default
    assert part.clean(assignment(game), {option: low})[option] == low
    assert part.clean(assignment(game), {option: high})[option] == high
    for value in (below, above):
        with pytest.raises(PartError, match=re.escape(f"{option} must be between {low} and {high}")):
            part.clean(assignment(game), {option: value})


def test_a_team_score_may_be_full_from_zero_and_takes_no_negative_score():
    team_score = parts.KINDS["team_score"]
    assert team_score.clean(assignment("sorted"), {})["full_at"] == 0.0
    assert team_score.clean(assignment("sorted"), {"full_at": 999.5, "zero_at": 1000})["full_at"] == 999.5
    for value in (-0.5, 1000.5):
        with pytest.raises(PartError, match=re.escape("full_at must be between 0.0 and 1000.0")):
            team_score.clean(assignment("sorted"), {"full_at": value, "zero_at": 1000})


def test_games_against_a_built_in_default_to_five_boards_and_take_from_one_to_a_hundred():
    for kind, game in [("win_rate", "endgame"), ("reliability", "sprouts"), ("solver_loss", "endgame"),
                       ("winning_moves", "sprouts")]:
        part = parts.KINDS[kind]
        assert part.clean(assignment(game), {})["games"] == 10
        assert part.clean(assignment(game), {"games": 2})["games"] == 2
        assert part.clean(assignment(game), {"games": 200})["games"] == 200
        for value in (1, 201):
            with pytest.raises(PartError, match="games must be between 2 and 200"):
                part.clean(assignment(game), {"games": value})


class StandIn:
    """A game's rules as `clean` reads them."""

    title = "Stand-in"

    def __init__(self, cooperative: bool, seats: int):
        self.cooperative, self.min_players = cooperative, seats

    def builtin_bots(self):
        return {"greedy": object}


@pytest.mark.parametrize("cooperative, seats", [(True, 2), (False, 3), (True, 4)])
def test_a_part_played_against_a_built_in_refuses_a_cooperative_game_or_one_of_more_than_two_seats(
        monkeypatch, cooperative, seats):
    monkeypatch.setattr(parts, "get_game", lambda name: StandIn(cooperative, seats))
    with pytest.raises(PartError, match=f"Stand-in seats {seats}: use team_score"):
        parts.KINDS["win_rate"].clean(assignment("standin"), {})
    monkeypatch.setattr(parts, "get_game", lambda name: StandIn(False, 2))
    assert parts.KINDS["win_rate"].clean(assignment("standin"), {})["opponent"] == "greedy"


def test_the_average_team_score_keeps_its_fraction():
    games = {GameNeed("", deal, 0): Game(30 + deal, [], scores=(score,) * 4) for deal, score in enumerate([3.0, 4.0])}
    # 7 points over 2 deals: 3.5; full marks at 0, none at 10: (10 - 3.5) / 10 = 0.65.
    measured = parts.KINDS["team_score"].measure(context(games, "sorted"), {"games": 2, "full_at": 0.0, "zero_at": 10.0})
    assert measured.fraction == pytest.approx(0.65)
    assert measured.detail == "average team score 3.50 over 2 deals (0 sorted)"
    assert measured.facts == {"average_score": 3.5, "won": 0}


def test_a_part_type_without_a_measure_cannot_be_registered():
    class Unfinished(parts.PartType):
        kind = "unfinished"

    with pytest.raises(TypeError, match="abstract"):
        parts.register(Unfinished)
    assert "unfinished" not in parts.KINDS
