"""Playing one series fairly: seat-balanced blocks of games, best-of-N, and a tie-break when level.

A series is played in blocks. A block is one game per seat rotation, all on the same seed: for two
entrants, two games with the seats swapped (End Game: the same board twice, each bot first once); for a
pod of s, s games with the seats turned one place each time. So every entrant sits in every seat equally
often and meets the same luck from every seat. `games_per_series` is rounded up to whole blocks.

Game points: in each game an entrant scores one point per other seat placed below it and half a point
per other seat placed level (two players: win 1, draw 1/2, loss 0). A bot that fails (crash, timeout,
illegal move) is placed last by the referee, so it loses that game.

Best of N: after each block the series stops if its order can no longer change, i.e. every entrant's
game points lead the next one's by more than the remaining games could take back.

When entrants are level on game points after the N games:
- round robin and Swiss series (`drawable`) end drawn: both place 1 and take half a point;
- elimination and heats series need an order, so the tie-break is, in turn:
  1. total points: the sum of the entrant's own game scores over the series (End Game: the values it
     took from the board), higher first;
  2. more games: up to TIEBREAK_BLOCKS further blocks, one at a time, each on a fresh seed, as seat-
     balanced as the others; after each, game points then total points over all games are compared again;
  3. the higher seed (lower entrant id).
  A cooperative game shares one score among all seats, so neither total points nor more games can
  separate its entrants: there only failures separate them, then the higher seed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

from .model import Outcome, Series, places_from_keys

TIEBREAK_BLOCKS = 2


@dataclass(frozen=True)
class GameSpec:
    index: int  # 0-based index of the game within the series
    seats: tuple[int, ...]  # entrant ids in seat order
    seed: int  # the games of one block share it


@dataclass(frozen=True)
class GameRecord:
    """What a played game gave, per seat."""

    seats: tuple[int, ...]
    scores: tuple[float, ...]
    placings: tuple[int, ...]  # 1-based from the referee (failed seats last), ties shared
    statuses: tuple[str, ...]  # "ok", "timeout", "crash", ...


def game_seed(tournament_seed: int, series_key: str, block: int) -> int:
    """A 63-bit seed from (tournament seed, series key, block): the same on every run and machine."""
    digest = hashlib.sha256(f"{tournament_seed}/{series_key}/{block}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class SeriesScore:
    """How a decided series reads: each entrant's game points and own total, and what separated entrants
    level on game points ("" when nothing had to: the game points differ, or the series ended drawn)."""

    game_points: dict[int, float]
    totals: dict[int, float]
    tiebreak: str  # "", "more games", "total points", "higher seed", or one of these "after more games"


class SeriesPlan:
    def __init__(self, series: Series, games_per_series: int, num_players: int, seed: int, cooperative: bool = False):
        if None in series.entrants or series.bye:
            raise ValueError(f"series {series.key} is not playable (a bye, or entrants not known yet)")
        if num_players != len(series.entrants):
            raise ValueError(f"series {series.key} seats {len(series.entrants)} entrants, not {num_players}")
        if games_per_series < 1:
            raise ValueError(f"a series plays at least one game, not {games_per_series}")
        self.series = series
        self.block_size = num_players  # one game per seat rotation
        self.blocks = -(-games_per_series // self.block_size)
        self.seed = seed
        self.cooperative = cooperative

    @property
    def games_per_series(self) -> int:
        return self.blocks * self.block_size

    def _block(self, block: int) -> list[GameSpec]:
        entrants = self.series.entrants
        count = len(entrants)
        seed = game_seed(self.seed, self.series.key, block)
        return [
            GameSpec(block * count + turn, tuple(entrants[(seat + turn) % count] for seat in range(count)), seed)
            for turn in range(count)
        ]

    def next_games(self, played: Sequence[GameRecord]) -> list[GameSpec]:
        """The games to play now: the rest of the current block, or the next block; [] once decided."""
        self._check(played)
        done = len(played)
        if done % self.block_size:
            return self._block(done // self.block_size)[done % self.block_size:]
        if self.outcome(played) is not None:
            return []
        return self._block(done // self.block_size)

    def outcome(self, played: Sequence[GameRecord]) -> Outcome | None:
        """The series result once decided, else None."""
        self._check(played)
        done = len(played)
        if done % self.block_size:
            return None
        entrants = self.series.entrants
        game_points, totals = self._tally(played)
        remaining = self.games_per_series - done
        if remaining > 0:
            return self._outcome(game_points) if self._clinched(game_points, remaining) else None
        if self.series.drawable:
            return self._outcome(game_points)
        keys = {e: (-game_points[e],) if self.cooperative else (-game_points[e], -totals[e]) for e in entrants}
        level = len(set(keys.values())) < len(entrants)
        extra_blocks = done // self.block_size - self.blocks
        if level and not self.cooperative and extra_blocks < TIEBREAK_BLOCKS:
            return None  # more games
        return self._outcome(game_points, {e: keys[e] + (e,) for e in entrants})

    def score(self, played: Sequence[GameRecord]) -> SeriesScore:
        """The game points, totals and tie-break of a series that `played` decided."""
        if self.outcome(played) is None:
            raise ValueError(f"series {self.series.key} is not decided by these games")
        game_points, totals = self._tally(played)
        after = " after more games" if len(played) > self.games_per_series else ""
        if len(set(game_points.values())) == len(game_points):
            return SeriesScore(game_points, totals, "more games" if after else "")
        if self.series.drawable:
            return SeriesScore(game_points, totals, "")
        level = [e for e in game_points if list(game_points.values()).count(game_points[e]) > 1]
        separated = not self.cooperative and len({totals[e] for e in level}) == len(level)
        return SeriesScore(game_points, totals, ("total points" if separated else "higher seed") + after)

    def _tally(self, played: Sequence[GameRecord]) -> tuple[dict[int, float], dict[int, float]]:
        """Each entrant's game points and the sum of its own scores over `played`."""
        game_points = {e: 0.0 for e in self.series.entrants}
        totals = {e: 0.0 for e in self.series.entrants}
        for record in played:
            for seat, entrant in enumerate(record.seats):
                game_points[entrant] += beaten(record.placings, seat)
                totals[entrant] += record.scores[seat]
        return game_points, totals

    def _clinched(self, game_points: dict[int, float], remaining: int) -> bool:
        """True when no result of the remaining games can change the order: one game moves two
        entrants apart by at most (seats - 1) points."""
        ordered = sorted(game_points.values(), reverse=True)
        swing = remaining * (self.block_size - 1)
        return all(better - worse > swing for better, worse in zip(ordered, ordered[1:]))

    def _outcome(self, game_points: dict[int, float], keys: dict[int, tuple] | None = None) -> Outcome:
        placings = places_from_keys(keys or {e: (-p,) for e, p in game_points.items()})
        places = list(placings.values())
        return Outcome(placings, {e: beaten(places, i) for i, e in enumerate(placings)})

    def _check(self, played: Sequence[GameRecord]) -> None:
        for index, record in enumerate(played):
            expected = self._block(index // self.block_size)[index % self.block_size]
            if record.seats != expected.seats:
                raise ValueError(f"game {index} of {self.series.key} seated {record.seats}, not {expected.seats}")


def beaten(placings: Sequence[int], seat: int) -> float:
    """Points for a place: one per other seat placed below, half per other seat placed level."""
    mine = placings[seat]
    return sum(1.0 if other > mine else 0.5 if other == mine else 0.0
               for other_seat, other in enumerate(placings) if other_seat != seat)
