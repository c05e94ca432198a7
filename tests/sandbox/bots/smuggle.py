"""Tries to carry data from one match to the next through the processes its harness is forked from.

A warm container's harness is a fork, not a new interpreter (sandbox/supervisor.py): whatever the process it
is forked from once held may still lie in its memory, freed but not overwritten. In each match this bot
leaves its marker where the reset has to read it (the names of 40 files in /tmp) and goes after the
processes it may reach (the zygote: kill it, stop it, signal it); at setup it first searches its own
memory for the marker (stderr REPORT). The marker is in this file only reversed: no copy of it in
memory can come from loading the bot.
"""
import json
import os
import signal
import sys

REVERSED_MARKER = b""  # set by the test
TARGETS = []  # set by the test: "signal" (stop and signal the container's other processes), "kill" (kill them)


def marker():
    return bytes(reversed(REVERSED_MARKER))


def memory_holds(needle):
    """Where `needle` is in this process's readable memory, but for the one copy made to look for it."""
    own = id(needle) + sys.getsizeof(b"") - 1  # (a bytes object's data follows its header)
    found = []
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", buffering=0) as memory:
        for line in maps:
            span, modes = line.split()[:2]
            if not modes.startswith("r") or line.rstrip().endswith(("[vvar]", "[vsyscall]", "[vdso]")):
                continue
            start, end = (int(bound, 16) for bound in span.split("-"))
            try:
                memory.seek(start)
                data = memory.read(end - start)
            except OSError:
                continue
            at = data.find(needle)
            while at >= 0:
                if start + at != own:
                    found.append(hex(start + at))
                at = data.find(needle, at + 1)
    return found


def others():
    return [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) not in (1, os.getpid())]


def name(pid):
    """The process's name, and how it was started: "by exec" when its command line says it is a zygote."""
    with open(f"/proc/{pid}/comm") as comm, open(f"/proc/{pid}/cmdline", "rb") as command:
        return comm.read().strip() + (" by exec" if b"--zygote" in command.read().split(b"\0") else "")


def setup(info):
    report = {"found": memory_holds(marker()), "others": sorted(name(pid) for pid in others())}
    print("REPORT " + json.dumps(report), file=sys.stderr)


def act(observation):
    for number in range(40):
        with open(f"/tmp/{marker().decode()}-{number}", "w"):
            pass
    signals = {"signal": (signal.SIGUSR1, signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGSTOP),
               "kill": (signal.SIGKILL,)}
    for pid in others():
        for number in (number for target in TARGETS for number in signals[target]):
            try:
                os.kill(pid, number)
            except OSError:
                pass
    return observation["legal_actions"][0]
