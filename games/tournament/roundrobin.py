"""Round robin by the circle method: everybody meets everybody once."""

from __future__ import annotations

from .base import Format, Outcomes, opponent_tiebreaks
from .model import Series, Standing, rank


class RoundRobin(Format):
    """n-1 rounds for n entrants (n rounds when n is odd: each round one entrant has a bye).

    Circle method: entrant 0 stays put, the others turn one place a round, and table i pairs the i-th
    of the circle with the i-th from its end. A phantom entrant makes an odd count even; whoever meets
    it has the bye. Byes give no points (everybody has exactly one). Who sits first in a series does not
    matter: every series is seat-balanced, but it alternates anyway so a drawing reads naturally.
    """

    def series(self, outcomes: Outcomes) -> list[Series]:
        size = self.entrants + self.entrants % 2
        phantom = self.entrants if self.entrants % 2 else None
        others = list(range(1, size))
        listed = []
        for round_index in range(size - 1):
            turned = others[round_index:] + others[:round_index]
            circle = [0] + turned
            for table in range(size // 2):
                pair = (circle[table], circle[size - 1 - table])
                if (round_index + table) % 2:
                    pair = pair[::-1]
                key = f"R{round_index + 1}-{table + 1}"
                if phantom in pair:
                    real = tuple(e for e in pair if e != phantom)
                    listed.append(Series(key, round_index + 1, None, real, bye=True, drawable=True))
                else:
                    listed.append(Series(key, round_index + 1, None, pair, drawable=True))
        return listed

    def series_bound(self) -> int:
        players = len(self.active)
        return players * (players - 1) // 2

    def standings(self, outcomes: Outcomes) -> list[Standing]:
        """Points, then Sonneborn-Berger (Buchholz is nearly the same for all in a round robin)."""
        points, tiebreaks = opponent_tiebreaks(self, outcomes)
        shown = {e: {"sonneborn_berger": tiebreaks[e]["sonneborn_berger"]} for e in tiebreaks}
        keys = {e: (-points[e], -shown[e]["sonneborn_berger"]) for e in points}
        return rank(keys, points, shown)
