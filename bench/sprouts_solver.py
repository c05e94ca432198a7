"""Sprouts solver timings on this machine: the time per N, normal play 1..11 and misere play 1..9.

Run: python bench/sprouts_solver.py [--budget SECONDS] [--misere-only | --normal-only]   (prints figures)

Each N is solved from cold tables and an empty store of solved positions (a file of its own, not var/) in
its own process, which is stopped when it has used the budget (default 60 s) of CPU time; the N after
the first one that did not finish are not tried (each takes several times its predecessor). The budget is
CPU time, not wall time, so that a machine shared with other work gives the same answer, only later: the
load average is printed before and after, to tell how much later.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOLVE = """
import sys, time
from games.sprouts import solver
from games.sprouts.notation import initial_position
began, cpu = time.perf_counter(), time.process_time()
wins = solver.mover_wins(solver.components_of(initial_position({spots})), misere={misere})
print("first" if wins else "second", time.perf_counter() - began, time.process_time() - cpu,
      solver.expanded())
"""


def solve(spots: int, misere: bool, budget: float):
    """(winner, wall seconds, CPU seconds, components expanded), or None when the budget ran out."""
    code = SOLVE.format(spots=spots, misere=misere)

    def limit_cpu():
        seconds = max(1, int(budget))
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))

    with tempfile.TemporaryDirectory() as cold:
        env = {**os.environ, "ARENA_SPROUTS_STORE": str(Path(cold) / "solved.sqlite3")}
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                              preexec_fn=limit_cpu, env=env)
    if done.returncode != 0:  # SIGXCPU: the budget ran out
        return None
    winner, seconds, cpu, expanded = done.stdout.split()
    return winner, float(seconds), float(cpu), int(expanded)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=60.0, help="CPU seconds one N may take (default 60)")
    parser.add_argument("--normal-spots", type=int, default=11, help="largest N tried in normal play (11)")
    parser.add_argument("--misere-spots", type=int, default=9, help="largest N tried in misere play (9)")
    plays = parser.add_mutually_exclusive_group()
    plays.add_argument("--normal-only", action="store_true")
    plays.add_argument("--misere-only", action="store_true")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{load:.2f}' for load in os.getloadavg())} ({os.cpu_count()} cores)")
    for misere in [m for m in (False, True) if not (m and args.normal_only) and not (not m and args.misere_only)]:
        print(f"{'misere' if misere else 'normal'} play (budget {args.budget:.0f} s per N)")
        print(f"{'N':>4} {'winner':>8} {'wall time':>10} {'CPU time':>10} {'components':>11}")
        stopped = False
        for spots in range(1, (args.misere_spots if misere else args.normal_spots) + 1):
            result = None if stopped else solve(spots, misere, args.budget)
            if result is None:
                note = "(not tried)" if stopped else "(stopped)"
                print(f"{spots:>4} {'':>8} {'':>10} {'> ' + format(args.budget, '.0f') + ' s':>10}   {note}", flush=True)
                stopped = True
                continue
            winner, seconds, cpu, expanded = result
            print(f"{spots:>4} {winner:>8} {seconds:>8.2f} s {cpu:>8.2f} s {expanded:>11}", flush=True)
    print(f"load average after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()
