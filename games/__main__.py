"""`python -m games`: play, solve and replay games offline, before uploading a bot."""

from __future__ import annotations

import argparse
import datetime
import json
import secrets
import sys
import time
from functools import partial
from itertools import pairwise
from pathlib import Path

from . import available_games, get_game, replay as replays
from .bots import BotSpecError, make_player
from .contracts import Replay, is_verdict, seat_names
from .core import ConfigError, ScoreOrder, loads_json, short_repr
from .referee import play_match, seated
from .table import DEFAULT_MOVE_SECONDS, TableError
from .tournament import FORMATS

SANDBOXES = ("none", "bwrap", "docker")


def _config(game, args) -> dict:
    text, source = args.config or "{}", "--config"
    if text.startswith("@"):  # a file, e.g. a SortingGame instructor's deck: {"deck": {...}}
        source = f"the config file {text[1:]}"
        try:
            text = Path(text[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read {source}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{source} is not UTF-8 text (byte {exc.start})") from None
    try:
        config = loads_json(text)  # bounded: a config nested 200,000 deep is refused, not a RecursionError
    except ValueError as exc:  # not JSON, nested too deep, NaN or Infinity, an integer too long to read
        raise ConfigError(f"{source} is not valid JSON: {exc}") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{source} must be a JSON object, not {short_repr(config)}")
    if getattr(args, "board", None):
        from .endgame import parse_board

        config["board"] = parse_board(args.board)
    return config


# Seeds drawn for a match when none is given: small enough to retype.
FRESH_SEEDS = 1_000_000


def cmd_match(args) -> int:
    game = get_game(args.game)
    config = _config(game, args)
    if game.cooperative and len(args.bots) == 1:
        args.bots = args.bots * game.default_players  # one bot may be the whole team, one instance per seat
    if not game.min_players <= len(args.bots) <= game.max_players:
        raise ConfigError(f"{game.name} is played by {game.min_players} to {game.max_players} bots, not {len(args.bots)}")
    seed = secrets.randbelow(FRESH_SEEDS) if args.seed is None else args.seed
    openers = [partial(make_player, game, spec, sandbox=args.sandbox, seed=seed, seat=seat)
               for seat, spec in enumerate(args.bots)]
    with seated(openers) as players:
        show_step = None
        if not args.json:
            drawn = "" if args.seed is not None else f" (drawn; --seed {seed} plays it again)"
            print(f"{game.title}, seed {seed}{drawn}")
            print("starting table:")
            print(_indent(game.render(game.new_game(len(players), config, seed))))
            show_step = StepPrinter(game, [player.name for player in players], verbose=args.verbose)
        result = play_match(game, players, config=config, seed=seed, on_step=show_step)
    if args.replay:
        replays.save(result.replay, args.replay)
    if args.json:
        print(json.dumps({**result.as_json(), "seed": seed}))
        return 0
    assert show_step is not None  # made whenever the output is text
    if show_step.summarised:
        print("final table (--verbose shows every move):")
        print(_indent(game.render(result.final_state)))
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


class StepPrinter:
    """The on_step display of `match`: every move with the table after it, or, for games played in rounds
    (Crazy-KING's hundreds of moves), one line per round unless `verbose`."""

    def __init__(self, game, names: list[str], verbose: bool):
        self.game, self.names, self.verbose = game, names, verbose
        self.by_round: bool | None = None  # decided at the first move: does the game count rounds?
        self.moves = 0

    def __call__(self, before, seat, action, after) -> None:
        rounds = before.full_view().get("round"), after.full_view().get("round")
        if self.by_round is None:
            self.by_round = rounds[0] is not None
        if self.verbose or not self.by_round:
            print(f"{before.step + 1:>4}. seat {seat} ({self.names[seat]}) {self.game.describe_action(before, action)}")
            print(_indent(self.game.render(after)))
            return
        self.moves += 1
        if rounds[1] != rounds[0] or after.is_terminal():
            scores = ", ".join(f"{self.names[s]} {_number(v)}" for s, v in enumerate(after.scores()))
            print(f"round {rounds[0]}: {self.moves} moves; scores {scores}")
            self.moves = 0

    @property
    def summarised(self) -> bool:
        return bool(self.by_round) and not self.verbose


def _number(value) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def cmd_solve(args) -> int:
    solvers = {"endgame": solve_endgame, "sorted": solve_sorted, "sprouts": solve_sprouts}
    if args.game not in solvers:
        raise ConfigError(f"no solver command for {args.game}; solvers: {', '.join(solvers)}")
    return solvers[args.game](args)


def solve_sorted(args) -> int:
    from .sorted_game import solver as sorted_solver

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


# In a won Sprouts position every move's result is searched to list the winning moves; a losing move can
# take minutes to refute, so each gets this long and is reported "not settled" past it.
SPROUTS_SECONDS_PER_MOVE = 5.0
# `solve sprouts --warm SECONDS` (scripts/setup): the openings whose analysis is the slowest (the most
# lives) solved into the shared store beforehand, for the classroom games' sizes; those up to two moves in
# are in the opening book (games/sprouts/book.py), so the warm-up goes one move further.
WARM_SPOTS, WARM_MOVES, WARM_SECONDS_PER_POSITION = (6, 10), 3, 5.0


def solve_sprouts(args) -> int:
    from .sprouts import notation, solver

    if args.book:
        return write_sprouts_book()
    if args.clear_cache:
        removed = solver.STORE.clear()
        print(f"emptied {solver.STORE.path}: {removed} solved positions removed")
        return 0
    if args.warm is not None:
        counts = solver.warm(range(WARM_SPOTS[0], WARM_SPOTS[1] + 1), WARM_MOVES, args.warm, WARM_SECONDS_PER_POSITION)
        print(f"warmed {solver.STORE.path}: the positions up to {WARM_MOVES} moves into games of {WARM_SPOTS[0]} "
              f"to {WARM_SPOTS[1]} spots, {counts['in_book']} answered by the opening book, {counts['solved']} "
              f"solved and {counts['unsettled']} not settled within {WARM_SECONDS_PER_POSITION:g} s each, then "
              f"four times as long a pass while the time lasts ({solver.STORE.rows()} solved positions stored)")
        return 0
    if args.position:
        position = notation.parse_position(args.position)
    elif args.spots >= 1:  # no match bound here: a patient user may solve more spots than a match allows
        position = notation.initial_position(args.spots)
    else:
        raise ConfigError(f"--spots must be at least 1, not {args.spots}")
    result = {"position": notation.format_position(position), "misere": args.misere,
              **solver.solve_position(position, args.misere, seconds_per_move=SPROUTS_SECONDS_PER_MOVE)}
    if args.json:
        print(json.dumps(result))
    else:
        play = "misere" if args.misere else "normal"
        print(f"{result['position']} ({play} play): the {result['winner']} player wins")
        print(f"winning moves: {' '.join(result['winning_moves']) or 'none'}")
        if result["unsettled_moves"]:
            print(f"not settled within {SPROUTS_SECONDS_PER_MOVE:g} s each (so neither winning nor losing as far "
                  f"as shown): {' '.join(result['unsettled_moves'])}")
    return 0


def write_sprouts_book() -> int:
    """`solve sprouts --book`: each position printed as it is solved, the file written at the end."""
    from .sprouts import book, solver

    started, openings = time.process_time(), []
    for opening in solver.book_openings():
        openings.append(opening)
        print(f"{len(openings):4d}  {'misere' if opening.misere else 'normal'} {opening.spots} spots, "
              f"{opening.depth} moves in: {opening.position}: the "
              f"{'first' if opening.mover_wins else 'second'} player wins "
              f"({time.process_time() - started:.0f} s of CPU so far)", flush=True)
    seconds = time.process_time() - started
    book.write(openings, header=[
        f"The Sprouts opening book (games/sprouts/book.py): who wins each position up to {book.BOOK_MOVES} moves "
        f"into games of {book.BOOK_SPOTS.start} to {book.BOOK_SPOTS.stop - 1} spots, in both plays.",
        f"Written by `python -m games solve sprouts --book` on {datetime.date.today().isoformat()}: every "
        f"position solved by the search with no time limit, never read from an earlier book "
        f"({seconds:.0f} s of CPU, on a store holding {solver.STORE.rows()} solved positions).",
        "Format: <play> <spots> <moves into the game> <position> <first|second: who wins>"])
    print(f"wrote {book.BOOK_PATH}: {len(openings)} positions, {seconds:.0f} s of CPU")
    return 0


def cmd_replay(args) -> int:
    replay = replays.load(args.file)
    if args.step is not None or args.seat is not None:
        return _show_position(replay, args.step or 0, args.seat)
    game = get_game(replay["game"])
    positions = list(replays.states(replay))  # every move checked before the analysis reads them
    analysis = {row["step"]: row for row in (game.analyse(replay) or [])}
    names = seat_names(replay)
    lost: list[float] = [0] * replay["num_players"]
    print(f"{game.title}, seed {replay['seed']}, players: {', '.join(names)}")
    print(_indent(game.render(positions[0][0])))
    for (previous, _), (state, event) in pairwise(positions):
        assert event is not None  # only the first position has no event
        if is_verdict(event):
            print(f"      seat {event['seat']} ({names[event['seat']]}) is out: {event['verdict']}")
        else:
            row = analysis.get(previous.step)
            lost[event["seat"]] += (row["points_lost"] or 0) if row else 0
            note = f"   [{row['text']}]" if row else ""
            print(f"{previous.step + 1:>4}. {names[event['seat']]} {game.describe_action(previous, event['action'])}{note}")
            print(_indent(game.render(state)))
    result = replay.get("result", {})
    print(f"winners: {result.get('winners')}, scores: {result.get('scores')}")
    if any(row["points_lost"] is not None for row in analysis.values()):
        print("points lost against optimal play: " + ", ".join(f"{names[s]} {lost[s]}" for s in range(len(lost))))
    return 0


def _show_position(replay: Replay, step: int, seat: int | None) -> int:
    """One position of a replay (the web viewer's "open offline" link): the table at `step`, seen by `seat`
    or in full, the move that led there and the decision taken next, with its analysis when it has one."""
    game = get_game(replay["game"])
    if seat is not None and not 0 <= seat < replay["num_players"]:
        raise ConfigError(f"--seat must be 0 to {replay['num_players'] - 1}")
    positions = list(replays.states(replay))
    if not 0 <= step < len(positions):
        raise ConfigError(f"--step must be 0 to {len(positions) - 1} for this replay")
    names = seat_names(replay)
    state, event = positions[step]
    print(f"{game.title}, seed {replay['seed']}, step {step} of {len(positions) - 1}"
          + (f", as {names[seat]} (seat {seat}) sees it" if seat is not None else ", full view"))
    if event is not None and not is_verdict(event):
        print(f"last move: {names[event['seat']]} {game.describe_action(positions[step - 1][0], event['action'])}")
    print(_indent(game.render(state, seat)))
    chosen = positions[step + 1][1] if step + 1 < len(positions) else None
    if chosen is not None and not is_verdict(chosen):
        row = {row["step"]: row for row in (game.analyse(replay) or [])}.get(state.step)
        hidden = seat is not None and chosen["seat"] != seat  # another seat's analysis may name its cards
        note = f"   [{row['text']}]" if row and not hidden else ""
        print(f"next: {names[chosen['seat']]} {game.describe_action(state, chosen['action'])}{note}")
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


HUMAN_SPEC = "human"


def play_seats(game, assigned: list[list[str]], opponents: list[str] | None, count: int | None) -> list[str]:
    """Each seat's spec for `play`: the seats given with --seat, the others filled in order with the
    --opponents, the last of them again for any seat still empty (builtin:random when none is given).

    Without `count`, the table has the seats given and the opponents (at least the game's fewest), or the
    game's usual number when no opponent is given."""
    given = {}
    for seat_text, spec in assigned:
        if not seat_text.isdigit() or len(seat_text) > 3:
            raise ConfigError(f"--seat takes a seat number and who plays it, not {short_repr(seat_text)}")
        if int(seat_text) in given:
            raise ConfigError(f"seat {int(seat_text)} is given twice")
        given[int(seat_text)] = spec
    opponents = list(opponents or [])
    if max(given) >= game.max_players:
        raise ConfigError(f"{game.name} has seats 0 to {game.max_players - 1}, not seat {max(given)}")
    if count is None:
        count = max(len(given) + len(opponents), game.min_players if opponents else game.default_players,
                    max(given) + 1)
    if not game.min_players <= count <= game.max_players:
        raise ConfigError(f"{game.name} is played by {game.min_players} to {game.max_players} players, not {count}")
    if max(given) >= count:
        raise ConfigError(f"seat {max(given)} is not at a table of {count} seats (seats are 0 to {count - 1})")
    if len(opponents) > count - len(given):
        raise ConfigError(f"{len(opponents)} opponents do not fit in the {count - len(given)} seats left")
    fill = iter(opponents)
    last = opponents[-1] if opponents else "builtin:random"
    return [given[seat] if seat in given else next(fill, last) for seat in range(count)]


def cmd_play(args) -> int:
    from . import play
    from .table import Seat, Table, check_move_seconds

    game = get_game(args.game)
    config = _config(game, args)
    specs = play_seats(game, args.seat, args.opponents, args.players)
    if HUMAN_SPEC not in specs:
        raise ConfigError("no seat is played by a person: give one with --seat K human (or use `match`)")
    seed = secrets.randbelow(FRESH_SEEDS) if args.seed is None else args.seed
    # Options and a time the table refuses are refused before any bot is opened.
    game.new_game(len(specs), config, seed)
    move_seconds = check_move_seconds(args.move_time or None)
    bot_seats = [seat for seat, spec in enumerate(specs) if spec != HUMAN_SPEC]
    openers = [partial(make_player, game, specs[seat], sandbox=args.sandbox, seed=seed, seat=seat) for seat in bot_seats]
    reader = play.LineReader(sys.stdin.buffer)
    try:
        with seated(openers) as opened:
            players = dict(zip(bot_seats, opened))
            people = specs.count(HUMAN_SPEC)
            seats = [Seat(players[seat].name) if seat in players
                     else Seat("you" if people == 1 else f"person {seat}", human=True) for seat in range(len(specs))]
            table = Table.open(game, seats, config=config, seed=seed, move_seconds=move_seconds)
            print(f"{game.title}, seed {seed}; seats: "
                  + ", ".join(f"{seat} {sitter.name}" for seat, sitter in enumerate(seats)))
            play.play_to_the_end(table, players, reader, sys.stdout)
    except KeyboardInterrupt:
        print("\ninterrupted: the game was not finished and no replay was saved", file=sys.stderr)
        return 130
    replay_file = args.replay or f"{game.name}-{seed}.replay.json"
    try:
        replays.save(table.replay(), replay_file)
    except OSError as exc:
        raise ConfigError(f"cannot save the replay to {replay_file}: {exc.strerror}") from None
    print("\nfinal table:")
    print(_indent(game.render(table.state)))
    scores = table.state.scores()
    for seat, sitter in enumerate(seats):
        print(f"seat {seat} {sitter.name}: score {_number(scores[seat])}, place {table.state.ranking()[seat]}")
    print(f"winners: {', '.join(f'seat {s} {seats[s].name}' for s in table.state.winners()) or 'none'}")
    print(f"replay saved to {replay_file}; `python -m games replay {replay_file}` shows it with its analysis")
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
    match.add_argument("--seed", type=int, help="all chance in the match (default: a fresh one, printed)")
    match.add_argument("--sandbox", choices=SANDBOXES, default="none",
                       help="how file bots run: none = a plain child process, for your own trusted code only")
    match.add_argument("--json", action="store_true", help="print one JSON object with the result")
    match.add_argument("--replay", metavar="FILE", help="save the replay to FILE")
    match.add_argument("--config", metavar="JSON", help="game options as a JSON object, or @FILE to read them from a file")
    match.add_argument("--board", help="End Game: the board, e.g. \"-1 3 9 4\" or -1,3,9,4")
    match.add_argument("--verbose", action="store_true", help="every move with the table, even in long games")
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
    solve.add_argument("--clear-cache", action="store_true",
                       help="Sprouts: empty the file of solved positions shared by every process (var/)")
    solve.add_argument("--warm", type=float, metavar="SECONDS",
                       help="Sprouts: solve the first three moves of 6- to 10-spot games into that file, for at "
                            "most SECONDS (the replay page's analysis of those moves then answers at once; the "
                            "first two are in the opening book)")
    solve.add_argument("--book", action="store_true",
                       help="Sprouts: solve every position of the opening book again, with no time limit, and "
                            "write games/sprouts/openings.txt (hours of CPU on an empty store)")
    solve.set_defaults(run=cmd_solve)

    show = commands.add_parser("replay", help="show a replay move by move with its analysis")
    show.add_argument("file")
    show.add_argument("--step", type=int, help="show only the position at this step (0: the start)")
    show.add_argument("--seat", type=int, help="as this seat sees it (default: the full view)")
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

    play = commands.add_parser("play", help="play a game yourself in the terminal, against bots or each other")
    play.add_argument("game")
    play.add_argument("--seat", nargs=2, action="append", metavar=("K", "WHO"), required=True,
                      help="seat K is played by WHO: human (you, at this terminal), builtin:NAME or a bot file")
    play.add_argument("--opponents", nargs="+", metavar="BOT",
                      help="who plays the other seats, in order: builtin:NAME or a bot file (default builtin:random)")
    play.add_argument("--players", type=int, help="how many seats (default: the seats and opponents given, "
                                                  "at least the game's usual number)")
    play.add_argument("--seed", type=int, help="all chance in the game (default: a fresh one, printed)")
    play.add_argument("--move-time", type=float, default=DEFAULT_MOVE_SECONDS, metavar="SECONDS",
                      help=f"a person's time per move, 0 for none (default {DEFAULT_MOVE_SECONDS:g}); "
                           "out of time, the seat loses with the verdict timeout. Bots keep their own limits")
    play.add_argument("--sandbox", choices=SANDBOXES, default="none",
                      help="how bot files run: none = a plain child process, for your own trusted code only")
    play.add_argument("--replay", metavar="FILE", help="where to save the finished game (default GAME-SEED.replay.json)")
    play.add_argument("--config", metavar="JSON", help="game options as a JSON object, or @FILE")
    play.add_argument("--board", help="End Game: the board, e.g. \"-1 3 9 4\"")
    play.set_defaults(run=cmd_play)

    listing = commands.add_parser("list", help="list the games and built-in bots")
    listing.set_defaults(run=cmd_list)
    return root


# Options whose value may start with "-" (a board "-1,3,9,4", a config "-1e+16" that is refused as JSON that
# is no object), which argparse would take for an option.
VALUE_MAY_LOOK_LIKE_AN_OPTION = ("--board", "--config")


def _attach_values(argv: list[str]) -> list[str]:
    """`--board -1,3,9,4` as `--board=-1,3,9,4`, so both spellings work."""
    joined: list[str] = []
    for arg in argv:
        if joined and joined[-1] in VALUE_MAY_LOOK_LIKE_AN_OPTION and arg.startswith("-"):
            joined[-1] = f"{joined[-1]}={arg}"
        else:
            joined.append(arg)
    return joined


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(_attach_values(sys.argv[1:] if argv is None else argv))
    try:
        return args.run(args)
    except (ConfigError, BotSpecError, KeyError, replays.ReplayError, TableError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
