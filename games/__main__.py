"""`python -m games`: play, solve and replay games offline, before uploading a bot."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import available_games, get_game, replay as replays
from .bots import BotSpecError, make_player
from .core import ConfigError, ScoreOrder
from .referee import play_match
from .tournament import FORMATS

SANDBOXES = ("none", "bwrap", "docker")


def _config(game, args) -> dict:
    text = args.config or "{}"
    if text.startswith("@"):  # a file, e.g. a SortingGame instructor's deck: {"deck": {...}}
        try:
            text = Path(text[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read the config file {text[1:]}: {exc.strerror}") from exc
    config = json.loads(text)
    if not isinstance(config, dict):
        raise ConfigError("--config must be a JSON object")
    if getattr(args, "board", None):
        from .endgame import parse_board

        config["board"] = parse_board(args.board)
    return config


def cmd_match(args) -> int:
    game = get_game(args.game)
    config = _config(game, args)
    if game.cooperative and len(args.bots) == 1:
        args.bots = args.bots * game.default_players  # one bot may be the whole team, one instance per seat
    if not game.min_players <= len(args.bots) <= game.max_players:
        raise ConfigError(f"{game.name} is played by {game.min_players} to {game.max_players} bots, not {len(args.bots)}")
    players = [
        make_player(game, spec, sandbox=args.sandbox, seed=args.seed, seat=seat) for seat, spec in enumerate(args.bots)
    ]

    def show_step(before, seat, action, after):
        print(f"{before.step + 1:>4}. seat {seat} ({players[seat].name}) {game.describe_action(before, action)}")
        print(_indent(game.render(after)))

    result = play_match(game, players, config=config, seed=args.seed, on_step=None if args.json else show_step)
    if args.replay:
        replays.save(result.replay, args.replay)
    if args.json:
        print(json.dumps(result.as_json()))
        return 0
    print()
    if game.cooperative:
        print(_team_line(game, result))
    for seat, player in enumerate(result.players):
        line = f"seat {seat} {player.name}: score {player.score}, place {player.placing}, {player.status}"
        print(line + (f" ({player.detail})" if player.detail else ""))
        if player.log and player.status != "ok":
            print(_indent(player.log.rstrip()[-2000:]))
    if not game.cooperative:
        names = ", ".join(f"seat {s} {result.players[s].name}" for s in result.winners)
        print(("draw between " if result.draw else "winner: ") + names)
    if args.replay:
        print(f"replay saved to {args.replay}")
    return 0


def _team_line(game, result) -> str:
    better = "lower" if game.score_order is ScoreOrder.LOWER_IS_BETTER else "higher"
    outcome = "won" if result.winners else "lost"
    return f"cooperative game: the team {outcome}, team score {result.players[0].score} ({better} is better)"


def cmd_solve(args) -> int:
    solvers = {"endgame": solve_endgame, "sorted": solve_sorted, "sprouts": solve_sprouts}
    if args.game not in solvers:
        raise ConfigError(f"no solver command for {args.game}; solvers: {', '.join(solvers)}")
    return solvers[args.game](args)


def solve_sorted(args) -> int:
    from .sorted import solver as sorted_solver

    if not args.deal:
        raise ConfigError('solve sorted needs --deal, e.g. --deal "2143/1234/3412/4321"')
    try:
        cards = sorted_solver.parse_deal(args.deal)
    except sorted_solver.DealError as exc:
        raise ConfigError(str(exc)) from exc
    solution = sorted_solver.Solver()
    turns = solution.min_turns(cards, args.mover)
    best = solution.best_actions(cards, args.mover)
    if args.json:
        print(json.dumps({"min_turns": turns, "mover": args.mover, "best_moves": best}))
    else:
        print(f"{sorted_solver.format_deal(cards)} with seat {args.mover} to move: sorted in {turns} turns at best")
        passes = [action for action in best if sorted_solver.is_pass(cards, args.mover, action)]
        shown = [sorted_solver.describe(action) for action in best if action not in passes]
        if passes:
            shown.insert(0, f"pass (any of the {len(passes)} swaps of two equal cards)")
        print("optimal move(s): " + "; ".join(shown))
    return 0


def solve_endgame(args) -> int:
    from .endgame import parse_board, solver

    if not args.board:
        raise ConfigError('solve endgame needs --board, e.g. --board "-1 3 9 4"')
    board = parse_board(args.board)
    table = solver.Table(board)
    solution = table.solution()
    best = table.best_moves(0, len(board))
    if args.json:
        print(json.dumps({"first": solution.first, "second": solution.second, "best_moves": best}))
    else:
        print(f"first player {solution.first}, second player {solution.second} under optimal play")
        print(f"optimal first move(s): {', '.join(best)}")
    return 0


def solve_sprouts(args) -> int:
    from .sprouts import notation, solver

    if args.position:
        position = notation.parse_position(args.position)
    elif args.spots >= 1:  # no match bound here: a patient user may solve more spots than a match allows
        position = notation.initial_position(args.spots)
    else:
        raise ConfigError(f"--spots must be at least 1, not {args.spots}")
    result = {"position": notation.format_position(position), "misere": args.misere,
              **solver.solve_position(position, args.misere)}
    if args.json:
        print(json.dumps(result))
    else:
        play = "misere" if args.misere else "normal"
        print(f"{result['position']} ({play} play): the {result['winner']} player wins")
        print(f"winning moves: {' '.join(result['winning_moves']) or 'none'}")
    return 0


def cmd_replay(args) -> int:
    replay = replays.load(args.file)
    game = get_game(replay["game"])
    analysis = {row["step"]: row for row in (game.analyse(replay) or [])}
    names = replay.get("players") or [f"seat {s}" for s in range(replay["num_players"])]
    lost = [0] * replay["num_players"]
    print(f"{game.title}, seed {replay['seed']}, players: {', '.join(names)}")
    previous = None
    for state, event in replays.states(replay):
        if event is None:
            print(_indent(game.render(state)))
        elif "verdict" in event:
            print(f"      seat {event['seat']} ({names[event['seat']]}) is out: {event['verdict']}")
        else:
            row = analysis.get(previous.step, {})
            lost[event["seat"]] += row.get("points_lost", 0)
            note = f"   [{row['text']}]" if "text" in row else ""
            print(f"{previous.step + 1:>4}. {names[event['seat']]} {game.describe_action(previous, event['action'])}{note}")
            print(_indent(game.render(state)))
        previous = state
    result = replay.get("result", {})
    print(f"winners: {result.get('winners')}, scores: {result.get('scores')}")
    if any("points_lost" in row for row in analysis.values()):
        print("points lost against optimal play: " + ", ".join(f"{names[s]} {lost[s]}" for s in range(len(lost))))
    return 0


def cmd_tournament(args) -> int:
    from .tournament import report, runner

    game = get_game(args.game)
    result = runner.run_tournament(
        game, args.bots, args.format, rounds=args.rounds, pod_size=args.pod_size, advance=args.advance,
        games_per_series=args.games_per_series, seed=args.seed, config=_config(game, args),
        sandbox="docker-warm" if args.sandbox == "docker" and not args.cold else args.sandbox,
        on_series=None if args.json else report.progress_bar,
    )
    if args.json:
        print(json.dumps(result))
    else:
        print(file=sys.stderr)  # ends the progress line
        print(report.render(result))
    return 0


def cmd_list(args) -> int:
    for name, game in sorted(available_games().items()):
        bots = ", ".join(f"builtin:{bot}" for bot in game.builtin_bots())
        print(f"{name:<12} {game.title}, {game.min_players}-{game.max_players} players; bots: {bots}")
    return 0


def _indent(text: str) -> str:
    return "\n".join("      " + line for line in text.splitlines())


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="python -m games", description=__doc__)
    commands = root.add_subparsers(dest="command", required=True)

    match = commands.add_parser("match", help="play one match between bots")
    match.add_argument("game")
    match.add_argument("bots", nargs="+", metavar="BOT", help="a bot file, or builtin:NAME")
    match.add_argument("--seed", type=int, default=0)
    match.add_argument("--sandbox", choices=SANDBOXES, default="none",
                       help="how file bots run: none = a plain child process, for your own trusted code only")
    match.add_argument("--json", action="store_true", help="print one JSON object with the result")
    match.add_argument("--replay", metavar="FILE", help="save the replay to FILE")
    match.add_argument("--config", metavar="JSON", help="game options as a JSON object, or @FILE to read them from a file")
    match.add_argument("--board", help="End Game: the board, e.g. \"-1 3 9 4\"")
    match.set_defaults(run=cmd_match)

    solve = commands.add_parser("solve", help="optimal play for a position")
    solve.add_argument("game")
    solve.add_argument("--board", help="End Game: the board, e.g. \"-1 3 9 4\" (required for endgame)")
    solve.add_argument("--deal", help="Sorted!: four hands, positions 1 to 4, e.g. 2143/1234/3412/4321")
    solve.add_argument("--mover", type=int, choices=range(4), default=0, help="Sorted!: the seat to move")
    solve.add_argument("--json", action="store_true")
    solve.add_argument("--spots", type=int, default=5, help="Sprouts: the number of starting spots")
    solve.add_argument("--misere", action="store_true", help="Sprouts: the last player to move loses")
    solve.add_argument("--position", help="Sprouts: any position in Hoey's notation, e.g. \"4,1,3,2/4,2,3,1\"")
    solve.set_defaults(run=cmd_solve)

    show = commands.add_parser("replay", help="show a replay move by move with its analysis")
    show.add_argument("file")
    show.set_defaults(run=cmd_replay)

    tournament = commands.add_parser("tournament", help="run a whole tournament between bots (seeds: the order given)")
    tournament.add_argument("game")
    tournament.add_argument("bots", nargs="+", metavar="BOT", help="a bot file, or builtin:NAME; the first is the top seed")
    tournament.add_argument("--format", required=True, choices=FORMATS)
    tournament.add_argument("--rounds", type=int, help="swiss: rounds (default: log2 of the entrants, rounded up)")
    tournament.add_argument("--pod-size", type=int, help="heats: players per pod (default 4)")
    tournament.add_argument("--advance", type=int, help="heats: how many of each pod go on (default half the pod)")
    tournament.add_argument("--games-per-series", type=int, default=2,
                            help="best of N, rounded up so every bot takes every seat equally often")
    tournament.add_argument("--seed", type=int, default=0)
    tournament.add_argument("--config", metavar="JSON", help="game options as a JSON object, or @FILE")
    tournament.add_argument("--sandbox", choices=SANDBOXES, default="none",
                            help="how file bots run: none = a plain child process, for your own trusted code only")
    tournament.add_argument("--cold", action="store_true",
                            help="docker: a fresh container for every game (default: one warm container per "
                                 "entrant, reset between its games)")
    tournament.add_argument("--json", action="store_true", help="print one JSON object with every series and the standings")
    tournament.set_defaults(run=cmd_tournament)

    listing = commands.add_parser("list", help="list the games and built-in bots")
    listing.set_defaults(run=cmd_list)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except (ConfigError, BotSpecError, KeyError, replays.ReplayError, json.JSONDecodeError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
