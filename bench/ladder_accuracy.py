"""How fast a ladder finds the true order: the skill model (Weng-Lin, OpenSkill Plackett-Luce) against the
pairwise Elo it replaced, rating the same matches (figures, no assertions).

    python bench/ladder_accuracy.py [--games endgame crazyking sortinggame sprouts] [--seats 2 4]
                                    [--matches 300] [--runs 3] [--bots 6]

Bots of known strength enter an empty ladder: bot i plays the game's strongest built-in's move with
probability p_i and a uniformly random legal move otherwise, p evenly spaced from 1 (the strong built-in
itself) to 0 (the random bot), so the true order is the order of p. The platform's matchmaking
(arena/ratings/pairing.py, driven by the skill model, every bot's matches today counted as it counts them)
chooses each table of the given size; the games are played directly through games/ (the pure Python
referee, built-ins in process, no sandbox); both the skill model and pairwise Elo (K 32, arena/ratings/elo.py)
rate every result. After each match the bench computes Kendall's tau between each ladder's order (the skill
ladder's mu - 3 sigma, Elo's rating) and the true one, and prints the number of matches after which tau
first reaches 0.9 (">N" if it never does in the run), the median over the runs and each run's figure.
With 8 bots, tau 0.9 allows one pair of the 28 in the wrong order.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from itertools import combinations

from games import get_game
from games.referee import InProcessPlayer, play_match

from arena.ratings import elo  # pure modules: no Django settings needed
from arena.ratings.pairing import Candidate, choose_table
from arena.ratings.skill import Model, rate_match

# Per game: the strong built-in the mixes are made of, and options that keep a match short.
GAMES = {
    "endgame": ("optimal", {}),
    "crazyking": ("tactician", {"target_score": 50}),
    "sortinggame": ("shrewd", {}),
    "sprouts": ("optimal", {"spots": 4}),
}
ELO_K = 32.0
TARGET_TAU = 0.9


class MixedBot:
    """The strong built-in's move with probability `p`, else a random legal one. The strong bot sees every
    observation (it may keep state), whether its move is played or not."""

    def __init__(self, strong, p: float):
        self.strong, self.p = strong, p
        self.rng = random.Random()

    def setup(self, info):
        self.rng = random.Random(info.get("rng_seed"))
        if hasattr(self.strong, "setup"):
            self.strong.setup(info)

    def act(self, obs):
        move = self.strong.act(obs)
        return move if self.rng.random() < self.p else self.rng.choice(obs["legal_actions"])


def kendall_tau(order: list[int], truth: list[int]) -> float:
    """Kendall's tau-a between two orders of the same items (1: identical, -1: reversed)."""
    place = {item: index for index, item in enumerate(order)}
    pairs = list(combinations(truth, 2))  # truth: better first
    concordant = sum(place[a] < place[b] for a, b in pairs)
    return (2 * concordant - len(pairs)) / len(pairs)


def reached_at(taus: list[float]) -> int | None:
    """The number of matches after which tau first reaches TARGET_TAU (None: never in the run)."""
    return next((number for number, tau in enumerate(taus, start=1) if tau >= TARGET_TAU), None)


def run(game_name: str, seats: int, bots: int, matches: int, seed: int) -> tuple[int | None, int | None]:
    """One empty ladder of `bots` mixes filled with `matches` matches of `seats` seats: (the match after
    which the skill model's order first reaches TARGET_TAU, Elo's), None for never."""
    game = get_game(game_name)
    strong_name, config = GAMES[game_name]
    builtins = game.builtin_bots()
    strengths = [1 - index / (bots - 1) for index in range(bots)]  # bot i: p = strengths[i]; truth: 0, 1, ...
    truth = list(range(bots))
    model = Model()
    skills = {bot: model.initial() for bot in truth}
    elo_ratings = {bot: 1500.0 for bot in truth}
    played = dict.fromkeys(truth, 0)
    met: dict[int, set[int]] = {bot: set() for bot in truth}
    rng = random.Random(f"{game_name}/{seats}/{seed}")
    skill_taus, elo_taus = [], []
    for number in range(matches):
        pool = [Candidate(bot, bot, skills[bot], today=played[bot], met_today=frozenset(met[bot])) for bot in truth]
        table = [c.bot_id for c in choose_table(model, pool, seats, rng)]
        players = [InProcessPlayer(f"p{strengths[bot]:.2f}", MixedBot(builtins[strong_name](), strengths[bot]),
                                   rng_seed=rng.getrandbits(32)) for bot in table]
        result = play_match(game, players, config=config, seed=rng.getrandbits(48))
        placings = [player.placing for player in result.players]
        skills.update(rate_match(model, skills, list(zip(table, placings))))
        changes = elo.rating_changes([elo_ratings[bot] for bot in table], placings, ELO_K)
        for bot, change in zip(table, changes):
            elo_ratings[bot] += change
            played[bot] += 1
            met[bot].update(other for other in table if other != bot)
        # Ties (an empty ladder is all ties) break the wrong way round, worst first: no head start for either.
        skill_order = sorted(truth, key=lambda bot: (-skills[bot].conservative(model.k), -bot))
        elo_order = sorted(truth, key=lambda bot: (-elo_ratings[bot], -bot))
        skill_taus.append(kendall_tau(skill_order, truth))
        elo_taus.append(kendall_tau(elo_order, truth))
    return reached_at(skill_taus), reached_at(elo_taus)


def median(points: list[int | None], matches: int) -> str:
    """The median of the runs' figures, a run that never reached the target counting as past the end."""
    value = statistics.median([matches + 1 if point is None else point for point in points])
    return f">{matches}" if value > matches else f"{value:.0f}"


def _cell(points: list[int | None], matches: int) -> str:
    """The median and each run's figure: `120 (95, 120, >300)`."""
    return f"{median(points, matches)} ({', '.join(f'>{matches}' if p is None else str(p) for p in points)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--matches", type=int, default=300, help="matches per run")
    parser.add_argument("--runs", type=int, default=5, help="runs (seeds) per cell; the median is printed")
    parser.add_argument("--bots", type=int, default=8, help="bots of known strength per ladder")
    args = parser.parse_args(argv)
    print(f"Matches until Kendall tau first reaches {TARGET_TAU} ({args.bots} bots, {args.matches} matches a run, "
          f"median of {args.runs} runs)")
    print(f"| {'game':<12} | seats | skill model (runs) | pairwise Elo (runs) | s/match |")
    print("|--------------|-------|--------------------|---------------------|---------|")
    for game_name in args.games:
        game = get_game(game_name)
        for seats in args.seats:
            if not game.min_players <= seats <= game.max_players:
                allowed = f"n/a ({game.min_players}-{game.max_players} seats)"
                print(f"| {game_name:<12} | {seats:>5} | {allowed:<18} | {'':<19} | {'':<7} |")
                continue
            began = time.perf_counter()
            results = [run(game_name, seats, args.bots, args.matches, seed) for seed in range(args.runs)]
            took = (time.perf_counter() - began) / (args.runs * args.matches)
            skill = [s for s, _ in results]
            pairwise = [e for _, e in results]
            print(f"| {game_name:<12} | {seats:>5} | {_cell(skill, args.matches):<18} | "
                  f"{_cell(pairwise, args.matches):<19} | {took:>7.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
