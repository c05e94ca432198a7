"""A played tournament (the JSON of `run_tournament`) as text: the series round by round, then standings."""

from __future__ import annotations

import sys
from itertools import groupby

BRACKET_TITLES = {"winners": "Winners' bracket", "losers": "Losers' bracket", "final": "Final", None: None}


def render(result: dict) -> str:
    names = result["entrants"]

    def name(entrant) -> str:
        return "?" if entrant is None else f"#{entrant} {names[entrant]}"

    lines = [f"{result['format']} tournament, {len(names)} entrants"]
    for entrant, message in result["withdrawn"].items():
        lines.append(f"withdrawn: {name(int(entrant))}: {message}")
    for (bracket, round_number), group in groupby(result["series"], key=lambda s: (s["bracket"], s["round"])):
        lines.append("\n" + " ".join(filter(None, [BRACKET_TITLES[bracket], f"round {round_number}"])))
        for series in group:
            lines.append(f"  {series['key']:<7} " + _series_line(series, name))
    lines.append("\nStandings")
    for row in result["standings"]:
        tiebreaks = "".join(f"  {key} {value:g}" for key, value in row["tiebreaks"].items())
        lines.append(f"  {row['place']:>3}. {name(row['entrant']):<28} points {row['points']:g}{tiebreaks}")
    champion = result["champion"]
    lines.append("\nchampion: " + (name(champion) if champion is not None else "none (first place is shared)"))
    return "\n".join(lines)


def _series_line(series: dict, name) -> str:
    if series["bye"]:
        return " ".join(name(e) for e in series["entrants"]) + " (bye)"
    ranked = sorted(zip(series["placings"], series["entrants"]))
    if len(ranked) == 2:
        games = series["games"]
        wins = [sum(1 for g in games if g["winners"] == [e]) for _, e in ranked]
        drawn = ranked[0][0] == ranked[1][0]
        tie_break = ", on the series tie-break" if wins[0] == wins[1] and not drawn else ""
        score = f"{wins[0]}-{wins[1]} ({len(games)} games{tie_break})" if games else "(walkover)"
        verb = "drew with" if drawn else "beat"
        return f"{name(ranked[0][1])} {verb} {name(ranked[1][1])} {score}"
    return ", ".join(f"{place}. {name(e)}" for place, e in ranked) + f" ({len(series['games'])} games)"


def progress_bar(done: int, known: int, series, outcome, width: int = 30) -> None:
    """One updating line on stderr (stdout stays clean for the results)."""
    filled = width * done // max(known, done, 1)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{max(known, done)} series, last {series.key}")
    sys.stderr.flush()
