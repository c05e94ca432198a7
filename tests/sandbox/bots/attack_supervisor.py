"""Goes after the warm container's supervisor (PID 1): its descriptors, its memory, ptrace, signals.

Writing to its stdout (fd 1 of PID 1) would let the bot forge the supervisor's events; none of it may work.
"""
import ctypes
import json
import os
import signal
import sys

PTRACE_ATTACH = 16
libc = ctypes.CDLL(None, use_errno=True)


def attempt(action):
    try:
        result = action()
        return f"done: {result}"
    except OSError as error:
        return f"refused: {error}"


def ptrace():
    if libc.ptrace(PTRACE_ATTACH, 1, None, None) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def act(observation):
    report = {
        "open its stdout": attempt(lambda: os.open("/proc/1/fd/1", os.O_WRONLY)),
        "open its stdin": attempt(lambda: os.open("/proc/1/fd/0", os.O_RDONLY)),
        "read its memory": attempt(lambda: os.open("/proc/1/mem", os.O_RDONLY)),
        "ptrace it": attempt(ptrace),
    }
    for number in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):
        os.kill(1, number)  # ignored: PID 1 of a namespace gets only the signals it handles
    print("REPORT " + json.dumps(report), file=sys.stderr)
    return observation["legal_actions"][0]
