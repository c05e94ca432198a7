"""The ladder's skill model: Weng-Lin Bayesian ratings (OpenSkill's Plackett-Luce), one model for every seat count.

Each bot has a skill estimate mu and an uncertainty sigma. A match of any number of seats is a ranking of its
seats by placing (shared placings are ties); Plackett-Luce updates every seat's mu and sigma from that one
ranking, so a 5-seat Crazy-KING table counts as what it is rather than as ten invented duels (the pairwise Elo
before, kept in elo.py for the accuracy bench). The ladder orders by the conservative estimate mu - k*sigma:
a bot is ranked by what it has shown with confidence, so a new bot (sigma high) starts at the bottom and rises
as its matches narrow sigma. A bot is provisional while sigma is above a threshold.

Cooperative games (Sorted!) have no opponents: the team of bots seated is measured against the game's exact
optimum (for Sorted!, the fewest turns the deal allows, from its solver; the team's score is the turns it
took beyond them). The match is rated as one ranking of the team among fixed yardsticks: the optimum itself
and the optimum missed by 1, 2, 4 and 8 (YARDSTICKS), each as strong as a new bot's prior and certain. A team
that matches the optimum ties the first and beats the rest; 2 turns over beats two, ties one, loses to two;
an unsorted deal (the lost-game score) loses to them all. Yardsticks never move: every teammate's mu rises
when the team does better than its skill predicted against them, and falls when worse. A bot filling
several seats of one team counts once.

Pure functions over plain numbers (no Django): the platform, the recompute command, the migration and
bench/ladder_accuracy.py all rate through here.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

# OpenSkill's defaults: mu 25, sigma 25/3; mu - 3 sigma starts at 0.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0
DEFAULT_K = 3.0
# A cooperative team is ranked among the exact optimum and the optimum missed by these many points.
YARDSTICKS = (0, 1, 2, 4, 8)


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    def conservative(self, k: float = DEFAULT_K) -> float:
        """What the ladder orders by: the skill the bot has with high confidence."""
        return self.mu - k * self.sigma


@dataclass(frozen=True)
class Model:
    """The model's parameters (the platform's come from settings, see ratings.services.model())."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    k: float = DEFAULT_K

    def initial(self) -> Skill:
        return Skill(self.mu, self.sigma)

    def yardstick(self) -> Skill:
        """A cooperative game's fixed opponent: as strong as a new bot's prior mean, and certain."""
        return Skill(self.mu, self.sigma / 8)

    def _openskill(self) -> PlackettLuce:
        return PlackettLuce(mu=self.mu, sigma=self.sigma)

    def rate(self, skills: list[Skill], placings: list[int]) -> list[Skill]:
        """Each seat's skill after a match in which seat i (skill skills[i]) placed placings[i] (1 = first,
        equal placings tie). Seats of one bot must be given once (see rate_match)."""
        if len(skills) < 2:
            return list(skills)
        model = self._openskill()
        teams = [[model.rating(mu=skill.mu, sigma=skill.sigma)] for skill in skills]
        rated = model.rate(teams, ranks=[float(placing) for placing in placings])
        return [Skill(team[0].mu, team[0].sigma) for team in rated]

    def rate_team(self, skills: list[Skill], over_optimum: float) -> list[Skill]:
        """The teammates' skills after a cooperative match whose score missed the exact optimum by
        `over_optimum` (0: matched it): one team ranked among the YARDSTICKS, whose updates are dropped."""
        model = self._openskill()
        fixed = self.yardstick()
        team = [model.rating(mu=skill.mu, sigma=skill.sigma) for skill in skills]
        yardsticks = [[model.rating(mu=fixed.mu, sigma=fixed.sigma)] for _ in YARDSTICKS]
        rated = model.rate([team, *yardsticks], ranks=[float(over_optimum), *map(float, YARDSTICKS)])
        return [Skill(player.mu, player.sigma) for player in rated[0]]

    def predict_win(self, skills: list[Skill]) -> list[float]:
        """Each seat's chance to place first against the others (matchmaking's measure of a close match)."""
        model = self._openskill()
        return model.predict_win([[model.rating(mu=s.mu, sigma=s.sigma)] for s in skills])


def rate_match(model: Model, skills: dict[int, Skill], seats: list[tuple[int, int]], *,
               over_optimum: float | None = None) -> dict[int, Skill]:
    """New skills of the bots of one match, by bot id. `seats` are (bot id, placing); a bot holding several
    seats counts once, at its best placing (a competitive match never seats a bot twice; a cooperative team
    may). `skills` has every bot's skill before. A cooperative match gives `over_optimum` (see rate_team)."""
    best: dict[int, int] = {}
    for bot_id, placing in seats:
        best[bot_id] = min(placing, best.get(bot_id, placing))
    bots = list(best)
    before = [skills[bot_id] for bot_id in bots]
    after = (model.rate(before, [best[bot_id] for bot_id in bots]) if over_optimum is None
             else model.rate_team(before, over_optimum))
    return dict(zip(bots, after))


@dataclass(frozen=True)
class RecordedMatch:
    """A finished rated match as the history holds it, for replay(): its seats as (seat key, bot id,
    placing), in seat order; a cooperative match's team score beyond the exact optimum (None: competitive)."""

    seats: list[tuple[object, int, int]]
    over_optimum: float | None = None


@dataclass
class Replayed:
    """A bot's state after replay(): its skill and record."""

    skill: Skill
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


RECORD_FIELDS = {"win": "wins", "draw": "draws", "loss": "losses"}


def outcome(placing: int, placings: list[int]) -> str:
    """win (sole first place), draw (shared first place) or loss, for the ladder's record."""
    if placing != 1:
        return "loss"
    return "draw" if placings.count(1) > 1 else "win"


def replay(model: Model, matches, bots: dict[int, Replayed] | None = None):
    """Apply `matches` (RecordedMatch, in the order they finished) to `bots` (every bot from the initial
    skill when None); yield, per seat, (seat key, skill before, skill after, the bot's rated number) -- None
    for the skills and number of a bot's repeated seat in one match, so that its history has one point a
    match. Returns nothing; `bots` holds the result (pass a dict to read it)."""
    bots = {} if bots is None else bots
    for match in matches:
        for _, bot_id, _ in match.seats:
            bots.setdefault(bot_id, Replayed(model.initial()))
        placings = [placing for _, _, placing in match.seats]
        after = rate_match(model, {bot_id: bots[bot_id].skill for _, bot_id, _ in match.seats},
                           [(bot_id, placing) for _, bot_id, placing in match.seats],
                           over_optimum=match.over_optimum)
        seen = set()
        for key, bot_id, placing in match.seats:
            if bot_id in seen:
                yield key, None, None, None
                continue
            seen.add(bot_id)
            state = bots[bot_id]
            before, state.skill = state.skill, after[bot_id]
            state.played += 1
            result = (outcome(placing, placings) if match.over_optimum is None
                      else "win" if match.over_optimum == 0 else "loss")  # a team wins by matching the optimum
            field = RECORD_FIELDS[result]
            setattr(state, field, getattr(state, field) + 1)
            yield key, before, state.skill, state.played

