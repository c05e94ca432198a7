"""Running a whole tournament offline: the referee plays every game the formats ask for.

Only the `Tournament` / `SeriesPlan` interface and `games.referee.play_match` are used, as the platform
uses them, so what a student sees offline is what the platform's tournament does.
"""

from __future__ import annotations

from functools import partial
from typing import Callable

from ..bots import make_player
from ..core import BotFailure, ConfigError, Game
from ..referee import play_match, seated, setup_info
from .model import Outcome, Series, series_winner
from .series import GameRecord, SeriesPlan
from .tournament import Tournament

# on_series(series_done, series_known, series, outcome): after each series, for a progress display.
Progress = Callable[[int, int, Series, Outcome], None]


def run_tournament(game: Game, bots: list[str], format: str, *, rounds: int | None = None,
                   pod_size: int | None = None, advance: int | None = None, games_per_series: int = 2,
                   seed: int = 0, config: dict | None = None, sandbox: str = "none",
                   on_series: Progress | None = None) -> dict:
    """Play the tournament between `bots` (index = entrant id = seed order) and return it as JSON.

    A bot that fails to load and set up before the start is withdrawn: it loses every series it is in
    without playing. A bot spec that names nothing raises BotSpecError; bad options raise ConfigError.
    """
    config = game.configure(config)
    try:
        tournament = Tournament(format, len(bots), rounds=rounds, pod_size=pod_size, advance=advance,
                                withdrawn=frozenset())
        tournament.check_tables(game.name, game.min_players, game.max_players)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    sizes = tournament.table_sizes()
    failures = {e: message for e, spec in enumerate(bots)
                if (message := _validation_failure(game, spec, min(sizes), config, sandbox, seed)) is not None}
    if failures:
        tournament = Tournament(format, len(bots), rounds=rounds, pod_size=pod_size, advance=advance,
                                withdrawn=frozenset(failures))
    cooperative = getattr(game, "cooperative", False)
    outcomes: dict[str, Outcome] = {}
    games: dict[str, list[dict]] = {}
    while not tournament.finished(outcomes):
        ready = tournament.ready(outcomes)
        if not ready:
            raise AssertionError(f"{format}: unfinished, but nothing to play")
        for series in ready:
            plan = SeriesPlan(series, games_per_series, len(series.entrants), seed, cooperative)
            played: list[GameRecord] = []
            games[series.key] = []
            while specs := plan.next_games(played):
                for spec in specs:
                    record, shown = _play(game, bots, spec, config, sandbox)
                    played.append(record)
                    games[series.key].append(shown)
            outcomes[series.key] = plan.outcome(played)
            if on_series:
                known = sum(1 for s in tournament.series(outcomes) if not s.bye and tournament.walkover(s) is None)
                on_series(len(outcomes), known, series, outcomes[series.key])
    return _as_json(tournament, format, bots, outcomes, games, failures)


def _validation_failure(game: Game, spec: str, seats: int, config: dict, sandbox: str, seed: int) -> str | None:
    """Load the bot and run its setup as a game would; the failure's message, or None if it is fine."""
    with seated([partial(make_player, game, spec, sandbox=sandbox, seed=seed)]) as (player,):
        try:
            player.start(setup_info(game, game.new_game(seats, config, seed), 0))
        except BotFailure as failure:
            return str(failure)
    return None


def _play(game: Game, bots: list[str], spec, config: dict, sandbox: str) -> tuple[GameRecord, dict]:
    # With "docker-warm", each entrant keeps one container for all its games (reset between them).
    openers = [partial(make_player, game, bots[entrant], sandbox=sandbox, seed=spec.seed, seat=seat,
                       key=f"entrant:{entrant}") for seat, entrant in enumerate(spec.seats)]
    with seated(openers) as players:
        result = play_match(game, players, config=config, seed=spec.seed)
    record = GameRecord(
        seats=spec.seats,
        scores=tuple(p.score for p in result.players),
        placings=tuple(p.placing for p in result.players),
        statuses=tuple(p.status for p in result.players),
    )
    shown = {"seats": list(spec.seats), "seed": spec.seed, "scores": list(record.scores),
             "statuses": list(record.statuses), "winners": [spec.seats[s] for s in result.winners]}
    return record, shown


def _as_json(tournament: Tournament, format: str, bots: list[str], outcomes: dict[str, Outcome],
             games: dict[str, list[dict]], failures: dict[int, str]) -> dict:
    listed = []
    for series in tournament.series(outcomes):
        outcome = outcomes.get(series.key) or tournament.walkover(series)
        listed.append({
            "key": series.key,
            "round": series.round,
            "bracket": series.bracket,
            "entrants": list(series.entrants),
            "bye": series.bye,
            "winner": series_winner(outcome),
            "placings": [outcome.placings[e] for e in series.entrants],
            "games": games.get(series.key, []),
        })
    return {
        "format": format,
        "entrants": list(bots),
        "withdrawn": {str(e): message for e, message in sorted(failures.items())},
        "series": listed,
        "standings": [{"entrant": row.entrant, "place": row.place, "points": row.points, "tiebreaks": row.tiebreaks}
                      for row in tournament.standings(outcomes)],
        "champion": tournament.champion(outcomes),
    }
