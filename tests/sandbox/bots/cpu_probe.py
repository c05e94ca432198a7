"""Runs CHILDREN busy processes for WALL seconds and reports the CPU they got against the wall clock."""
import json
import os
import resource
import sys
import time

CHILDREN = 2
WALL = 1.5


def setup(info):
    began = time.monotonic()
    pids = []
    for _ in range(CHILDREN):
        pid = os.fork()
        if pid == 0:
            while time.monotonic() - began < WALL:
                pass
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    wall = time.monotonic() - began
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    print("REPORT " + json.dumps({"cpu": cpu, "wall": wall}), file=sys.stderr, flush=True)


def act(observation):
    return observation["legal_actions"][0]
