"""Tries to kill its parent and then every process it can signal."""
import json
import os
import signal
import sys


def attempt(pid):
    try:
        os.kill(pid, signal.SIGKILL)
        return "sent"
    except OSError as error:
        return f"refused: {error}"


def act(observation):
    report = {"parent": attempt(os.getppid()), "every process": attempt(-1)}
    print("REPORT " + json.dumps(report), file=sys.stderr)
    raise RuntimeError("still here")
