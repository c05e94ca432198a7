"""Tries to write outside /tmp, to change its own file, and to run a program it wrote to /tmp.

Each attempt's outcome goes to stderr as a REPORT line; then the bot gives up (raises).
"""
import json
import os
import stat
import subprocess
import sys


def attempt(action):
    try:
        action()
        return "done"
    except OSError as error:
        return f"refused: {error}"


def write(path, mode="w"):
    with open(path, mode) as file:
        file.write("# changed by the bot\n")


def run_from_tmp():
    write("/tmp/tool.sh")
    os.chmod("/tmp/tool.sh", stat.S_IRWXU)
    subprocess.run(["/tmp/tool.sh"], check=False)


def fill_tmp():
    with open("/tmp/big", "wb") as file:
        for _ in range(1024):
            file.write(b"\0" * (1 << 20))


def act(observation):
    own = os.path.abspath(__file__)
    report = {
        "append to own file": attempt(lambda: write(own, "a")),
        "make own file writable": attempt(lambda: os.chmod(own, 0o666)),
        "delete own file": attempt(lambda: os.remove(own)),
        "write to /": attempt(lambda: write("/escape")),
        "write to /etc": attempt(lambda: write("/etc/escape")),
        "write to /usr": attempt(lambda: write("/usr/lib/escape")),
        "write to /dev/shm": attempt(lambda: write("/dev/shm/escape")),
        "write to /tmp": attempt(lambda: write("/tmp/note")),
        "run a program from /tmp": attempt(run_from_tmp),
        "write 1 GiB to /tmp": attempt(fill_tmp),
    }
    print("REPORT " + json.dumps(report), file=sys.stderr)
    raise RuntimeError("no way out")
