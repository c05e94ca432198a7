"""`Tournament`: one format over n entrants, driven by the outcomes of the series played so far.

A tournament holds no results itself: the caller (the platform, or `runner.run_tournament` offline)
keeps the outcomes by series key and asks what to play next. The same outcomes always give the same
series, keys and standings, so a tournament can be rebuilt from its stored outcomes at any time.
"""

from __future__ import annotations

from typing import Mapping

from .base import Format
from .elimination import Elimination
from .heats import Heats
from .model import FORMATS, Outcome, Series, Standing
from .roundrobin import RoundRobin
from .swiss import Swiss


class Tournament:
    def __init__(self, format: str, entrants: int, *, rounds: int | None = None, pod_size: int | None = None,
                 advance: int | None = None, withdrawn: frozenset[int] = frozenset()):
        if format not in FORMATS:
            raise ValueError(f"unknown tournament format {format!r}; formats: {', '.join(FORMATS)}")
        if not isinstance(entrants, int) or entrants < 2:
            raise ValueError(f"a tournament needs at least 2 entrants, not {entrants}")
        strangers = sorted(e for e in withdrawn if not 0 <= e < entrants)
        if strangers:
            raise ValueError(f"withdrawn entrant(s) {strangers} are not entrants 0 to {entrants - 1}")
        if rounds is not None and format != "swiss":
            raise ValueError(f"rounds is an option of swiss, not of {format}")
        if (pod_size is not None or advance is not None) and format != "heats":
            raise ValueError(f"pod size and advance are options of heats, not of {format}")
        self.format = format
        self.entrants = entrants
        self.withdrawn = frozenset(withdrawn)
        self._format = self._make(format, entrants, self.withdrawn, rounds, pod_size, advance)

    @staticmethod
    def _make(format, entrants, withdrawn, rounds, pod_size, advance) -> Format:
        if format == "round-robin":
            return RoundRobin(entrants, withdrawn)
        if format == "swiss":
            return Swiss(entrants, withdrawn, rounds)
        if format == "heats":
            return Heats(entrants, withdrawn, pod_size, advance)
        return Elimination(entrants, withdrawn, double=format == "double-elimination")

    def series(self, outcomes: Mapping[str, Outcome]) -> list[Series]:
        """Every series known so far, in play order: future bracket slots (entrant None) and byes too."""
        listed = self._format.series(outcomes)
        self._check(listed, outcomes)
        return listed

    def ready(self, outcomes: Mapping[str, Outcome]) -> list[Series]:
        """The series playable now: every entrant known, no outcome yet, not decided without play."""
        return [s for s in self.series(outcomes)
                if None not in s.entrants and s.key not in outcomes and self._format.walkover(s) is None]

    def walkover(self, series: Series) -> Outcome | None:
        """The outcome a series gets without play (a bye, or a withdrawn entrant's loss), else None."""
        return self._format.walkover(series)

    def finished(self, outcomes: Mapping[str, Outcome]) -> bool:
        self.series(outcomes)
        return self._format.finished(outcomes)

    def standings(self, outcomes: Mapping[str, Outcome]) -> list[Standing]:
        self.series(outcomes)
        return self._format.standings(outcomes)

    def champion(self, outcomes: Mapping[str, Outcome]) -> int | None:
        """The winner once finished; None before, or when first place is shared (round robin, Swiss)."""
        self.series(outcomes)
        return self._format.champion(outcomes)

    def table_sizes(self) -> set[int]:
        """The numbers of seats the played series need (see `check_tables`)."""
        return self._format.table_sizes()

    def check_tables(self, game: str, min_players: int, max_players: int) -> None:
        """ValueError unless the game seats every table the tournament plays."""
        unplayable = sorted(size for size in self.table_sizes() if not min_players <= size <= max_players)
        if unplayable:
            raise ValueError(f"{game} is played by {min_players} to {max_players} players; this {self.format} "
                             f"of {self.entrants} needs tables of {', '.join(map(str, unplayable))}")

    def series_bound(self) -> int:
        """The most series the tournament can play, byes and walkovers aside, whatever the results."""
        return self._format.series_bound()

    def _check(self, listed: list[Series], outcomes: Mapping[str, Outcome]) -> None:
        by_key = {s.key: s for s in listed}
        for key, outcome in outcomes.items():
            series = by_key.get(key)
            if series is None or None in series.entrants or series.bye:
                raise ValueError(f"an outcome for {key}, which is not a series to play now")
            if set(outcome.placings) != set(series.entrants) or set(outcome.points) != set(series.entrants):
                raise ValueError(f"the outcome of {key} must place and score exactly entrants {series.entrants}")
            if not series.drawable and len(set(outcome.placings.values())) < len(series.entrants):
                raise ValueError(f"{key} cannot end with a shared place: {self.format} series are always decided")


def smallest_field(format: str, largest: int, *, rounds: int | None = None, pod_size: int | None = None,
                   advance: int | None = None, seats: tuple[str, int, int] | None = None) -> int:
    """The fewest entrants these settings play; ValueError, saying why, unless they play every field from there
    to `largest` (and, given `seats` = (game, fewest, most players), the game seats every table).

    A format may need a field of some size (Swiss needs more entrants than rounds), but settings that play a
    small field and not a larger one (heats with pods of 3 and 2 advancing: 3 entrants, never 4) can never be
    trusted: they are refused before anyone enters, not at the start."""
    smallest, refusal = None, None
    for entrants in range(2, largest + 1):
        try:
            tournament = Tournament(format, entrants, rounds=rounds, pod_size=pod_size, advance=advance)
            if seats is not None:
                tournament.check_tables(*seats)
        except ValueError as exc:
            if smallest is not None:
                raise ValueError(f"{exc} (these settings play {smallest} to {entrants - 1} entrants, "
                                 f"not {entrants})") from exc
            refusal = exc
            continue
        smallest = smallest or entrants
    if smallest is None:
        raise ValueError(f"these settings cannot run with any number of entrants: {refusal}")
    return smallest
