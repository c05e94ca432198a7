"""What one seat's decision costs at a person's table, early and late in a long game: kept vs replayed.

    python3 bench/table_decisions.py [--sandbox docker-warm|bwrap|none] [--decisions 1,100,300]

A Crazy-KING table (2 seats, target 2000 points: well over 300 decisions a seat) where seat 0 is the example
bot (docs/bots/examples/crazyking_example.py) in the sandbox and seat 1 stands for the person (a built-in
deciding in-process, not measured). Seat 0 decides as the platform's worker has it decide:

- kept: through the host's seat holder (sandbox/holder.py, a holder of this run's own), which keeps the bot
  running between its decisions: `Table.bot_move_kept`;
- replayed: started afresh for the decision and told its earlier observations (`Table.bot_move_afresh`, the
  path taken where no holder can be had), measured at the same decisions on a copy of the same table.

Printed: the wall time of each path's decision at the decisions asked for (milliseconds, the median of
`--repeat` runs of the replayed path at each point; the kept path is measured once per decision, as it is
played, and shown as the median of that decision and the 4 before it, decision 1 alone), the median kept decision over the whole game, and the ratio of the last decision asked for to the
first. Also the time to rebuild the table from its facts before the decision, outside both paths (the
platform does it before each decision and each read): the whole game replayed by its rules
(`Table.from_json`), and only the moves since the process's checkpoint of the seat's last decision
(`from_json(..., known=)`, what a worker that recorded that decision does). Both paths must answer the same action at each point (the bot is deterministic): the bench fails if
not. `measure()` returns the figures for other benches (bench/hall.py).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import tempfile
import time
from pathlib import Path

from games import get_game
from games.bots import make_player
from games.table import Seat, Table

ROOT = Path(__file__).resolve().parents[1]

BOT = ROOT / "docs" / "bots" / "examples" / "crazyking_example.py"
CONFIG = {"target_score": 2000, "max_rounds": 100, "max_run_outs": 10}
SEED = 2026


def best_sandbox() -> str:
    import sandbox

    return "docker-warm" if sandbox.docker_ready() else "bwrap" if "bwrap" in sandbox.available_backends() else "none"


def measure(sandbox_name: str | None = None, checkpoints=(1, 100, 300), repeat: int = 3) -> dict:
    """{"sandbox", "kept": {n: ms}, "replayed": {n: ms}, "kept_median": ms, "decisions": played}: seat 0's
    decision cost at each checkpoint on both paths."""
    from sandbox.holder import HeldPlayer, HolderClient, HolderUnavailable

    sandbox_name = sandbox_name or best_sandbox()
    game = get_game("crazyking")
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-held-")) / "holder"
    client = HolderClient(folder, idle_seconds=600)
    bot = {"game": game.name, "builtin": None, "code": BOT.read_text(), "key": f"bench:{os.getpid()}",
           "sandbox": sandbox_name, "seed": SEED, "seat": 0, "name": BOT.name, "scope": "bench"}
    table = Table.open(game, [Seat("bot"), Seat("person")], config=CONFIG, seed=SEED, move_seconds=None)
    person = make_player(game, "builtin:random", sandbox="none", seed=SEED, seat=1)
    table.start_bot(1, person)
    client.start()  # once per host, not a seat's cost (a python start and the sandbox's imports)
    kept: dict[int, float] = {}
    replayed: dict[int, float] = {}
    rebuilt: dict[int, float] = {}
    caught_up: dict[int, float] = {}
    seen = None
    every: list[float] = []
    decision = 0
    try:
        while not table.over and decision < max(checkpoints):
            if table.seat_on_move == 1:
                table.bot_move(person)
                continue
            decision += 1
            if decision in checkpoints:
                replayed[decision], expected = _replayed(table, game, sandbox_name, repeat)
                facts = table.to_json()
                for known, figures in ((None, rebuilt), (seen, caught_up)):
                    began = time.perf_counter()
                    Table.from_json(facts, known=known)
                    figures[decision] = (time.perf_counter() - began) * 1000
            began = time.perf_counter()
            action = table.bot_move_kept(HeldPlayer(client, "bench/table:1/seat:0/", bot))
            every.append((time.perf_counter() - began) * 1000)
            seen = table.checkpoint()  # what the worker that recorded this decision keeps of the table
            if decision in checkpoints:
                # One decision is one sample on a shared machine: the median of it and the 4 before (not
                # decision 1's, which starts the bot).
                kept[decision] = every[0] if decision == 1 else statistics.median(every[max(1, decision - 5):])
                if action != expected:
                    raise SystemExit(f"decision {decision}: kept bot answered {action!r}, replayed {expected!r}")
            if action is None:
                raise SystemExit(f"the bot failed at decision {decision}: {table.details[0]}")
    finally:
        try:
            pid = client.status()["pid"]
            client.release("")
            os.kill(pid, signal.SIGTERM)
        except (HolderUnavailable, ProcessLookupError):
            pass
    return {"sandbox": sandbox_name, "kept": kept, "replayed": replayed, "rebuilt": rebuilt, "caught_up": caught_up,
            "decisions": decision,
            "kept_median": statistics.median(every[1:]) if len(every) > 1 else None}


def _replayed(table: Table, game, sandbox_name: str, repeat: int) -> tuple[float, object]:
    """The median wall time (ms) of seat 0's decision started afresh and caught up, on copies of `table`."""
    times, actions = [], set()
    for _ in range(repeat):
        copy = Table.from_json(table.to_json())
        player = make_player(game, str(BOT), sandbox=sandbox_name, seed=SEED, seat=0,
                             key=f"bench-replay:{os.getpid()}")
        began = time.perf_counter()
        try:
            action = copy.bot_move_afresh(player)
        finally:
            player.close()
        times.append((time.perf_counter() - began) * 1000)
        actions.add(repr(action))
    if len(actions) != 1:
        raise SystemExit(f"the replayed bot answered differently from run to run: {actions}")
    return statistics.median(times), copy.events[-1].get("action")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sandbox", choices=["docker-warm", "bwrap", "none"], default=None)
    parser.add_argument("--decisions", default="1,100,300", help="the decisions of seat 0 to measure")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the replayed path at each point")
    options = parser.parse_args()
    checkpoints = tuple(sorted({int(n) for n in options.decisions.split(",")}))
    figures = measure(options.sandbox, checkpoints, options.repeat)
    print(f"Crazy-KING, seat 0 = {BOT.name} in sandbox {figures['sandbox']}; load average "
          f"{os.getloadavg()[0]:.1f}; {figures['decisions']} decisions played")
    print(f"{'decision':>9} {'kept (ms)':>10} {'replayed (ms)':>14} {'table rebuilt: whole':>21} "
          f"{'from its checkpoint (ms)':>25}")
    for number in checkpoints:
        print(f"{number:>9} {figures['kept'].get(number, float('nan')):>10.1f} "
              f"{figures['replayed'].get(number, float('nan')):>14.1f} "
              f"{figures['rebuilt'].get(number, float('nan')):>21.1f} "
              f"{figures['caught_up'].get(number, float('nan')):>25.2f}")
    first, last = checkpoints[0], checkpoints[-1]
    if first in figures["kept"] and last in figures["kept"]:
        print(f"decision {last} / decision {first}: kept {figures['kept'][last] / figures['kept'][first]:.2f}x, "
              f"replayed {figures['replayed'][last] / figures['replayed'][first]:.2f}x")
    if figures["kept_median"] is not None:
        print(f"kept, median of decisions 2-{figures['decisions']}: {figures['kept_median']:.2f} ms "
              "(decision 1 starts the bot)")


if __name__ == "__main__":
    main()
