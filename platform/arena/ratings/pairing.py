"""Choosing a ladder match's table from the skill model (pure: matchmaking.py feeds it from the database,
bench/ladder_accuracy.py from simulated ladders). The rules are stated in matchmaking.py's docstring."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from .skill import Model, Skill


@dataclass(frozen=True)
class Candidate:
    """An active bot as matchmaking weighs it."""

    bot_id: int
    owner_id: int | None  # None for a built-in
    skill: Skill
    today: int = 0  # ladder matches finished or under way in the last 24 hours
    new_version: bool = False
    met_today: frozenset[int] = field(default_factory=frozenset)  # bot ids it played in a ladder match today

    def need(self) -> float:
        """Lower is sooner: its matches today, a new version's counting half."""
        return self.today / 2 if self.new_version else self.today


def closeness(model: Model, a: Skill, b: Skill) -> float:
    """How close a match of `a` and `b` is expected to be, 0 to 1: TrueSkill's two-player match quality
    with the model's beta (sigma/2), so the same gap in mu counts less between uncertain bots."""
    beta_squared = (model.sigma / 2) ** 2
    spread = 2 * beta_squared + a.sigma ** 2 + b.sigma ** 2
    return math.sqrt(2 * beta_squared / spread) * math.exp(-((a.mu - b.mu) ** 2) / (2 * spread))


def opponent_weight(model: Model, table: list[Candidate], other: Candidate) -> float:
    """How much `other` is wanted at `table`: close to everyone there, uncertain, few matches today, and not
    already met today by the table's bots."""
    close = min(closeness(model, seated.skill, other.skill) for seated in table)
    uncertainty = other.skill.sigma / model.sigma
    repeats = sum(other.bot_id in seated.met_today for seated in table)
    return close * (0.5 + uncertainty) / (1 + other.need()) / (1 + 2 * repeats)


# How many matches ahead of the least played free bot an opponent may be today.
FAIR_SLACK = 2


def choose_table(model: Model, candidates: list[Candidate], seats: int, rng: random.Random, *,
                 cooperative: bool = False) -> list[Candidate] | None:
    """The bots of the next match of `seats` seats, focus bot first, or None when too few can meet.
    Two bots of one owner never share the table (built-ins have none)."""
    if not candidates:
        return None
    focus = min(candidates, key=lambda c: (c.need(), -c.skill.sigma, rng.random()))
    table = [focus]
    while len(table) < seats:
        owners = {seated.owner_id for seated in table if seated.owner_id is not None}
        seated_bots = {seated.bot_id for seated in table}
        free = [c for c in candidates
                if c.bot_id not in seated_bots and (c.owner_id is None or c.owner_id not in owners)]
        if not free:
            break
        # Fair share first: opponents among the bots least ahead of the others today (within FAIR_SLACK
        # matches of the least played); skill and uncertainty choose among them.
        least = min(c.need() for c in free)
        free = [c for c in free if c.need() <= least + FAIR_SLACK]
        weights = [opponent_weight(model, table, c) for c in free]
        table.append(rng.choices(free, weights=weights)[0] if sum(weights) > 0 else rng.choice(free))
    if len(table) < seats:
        if not cooperative:
            return None
        table += [focus] * (seats - len(table))  # a team short of bots: the focus bot plays the other seats
    return table


def seat_counts(game) -> list[int]:
    """The table sizes a ladder plays: every count the game allows (a cooperative team its standard size)."""
    if game.cooperative:
        return [game.default_players]
    return list(range(game.min_players, game.max_players + 1))


def table_size(game, played_today: dict[int, int], free: int) -> int | None:
    """The least played table size today that `free` bots can fill (the smallest first among equals)."""
    sizes = [size for size in seat_counts(game) if size <= free or game.cooperative]
    return min(sizes, key=lambda size: (played_today.get(size, 0), size)) if sizes else None
