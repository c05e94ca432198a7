"""Writes a program to /tmp (the only writable place) and tries to make it executable and run it, in the
ways a bot could; each answer goes to stderr on a REPORT line, then the bot plays normally."""
import json
import os
import shutil
import subprocess
import sys

SCRIPT = b"#!/bin/sh\necho escaped\n"


def attempt(action):
    try:
        result = action()
        return "done" if result is None else result
    except OSError as error:
        return f"refused: {error.__class__.__name__} errno {error.errno}"


def write(path, mode):
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(descriptor, "wb") as file:
        file.write(SCRIPT)


def run(path):
    return "ran: " + subprocess.run([path], capture_output=True, text=True, check=False).stdout.strip()


def setup(info):
    report = {
        "write a file": attempt(lambda: write("/tmp/plain", 0o644)),
        "create it executable": attempt(lambda: write("/tmp/tool", 0o755)),
        "chmod +x": attempt(lambda: os.chmod("/tmp/plain", 0o755)),
        "copy an executable": attempt(lambda: shutil.copy("/bin/sh", "/tmp/shell")),
        "run the written file": attempt(lambda: run("/tmp/plain")),
        "run the executable": attempt(lambda: run("/tmp/tool")),
    }
    print("REPORT " + json.dumps(report), file=sys.stderr)


def act(observation):
    return observation["legal_actions"][0]
