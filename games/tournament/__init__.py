"""Tournament formats in pure Python: round robin, single and double elimination, Swiss, heats.

`Tournament` says which series to play from the outcomes so far; `series.SeriesPlan` plays one series
fairly (seat-balanced, seeded, with a documented tie-break); `runner.run_tournament` runs a whole
tournament offline with the referee. See docs/tournaments.md.
"""

from .model import FORMATS, Outcome, Series, Standing
from .tournament import Tournament

__all__ = ["FORMATS", "Outcome", "Series", "Standing", "Tournament"]
