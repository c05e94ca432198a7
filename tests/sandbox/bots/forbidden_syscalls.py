"""Calls system calls that Docker's default seccomp profile forbids, through libc's syscall(), and reports
each answer (an errno name, or "allowed") from the inside on a REPORT line; then plays normally.

SYSCALLS (name -> number on this machine) is filled in by the test; ARGUMENTS keeps every call harmless
should it get through: null pointers, invalid requests, no-op flags.
"""
import ctypes
import errno
import json
import sys

SYSCALLS = {}
ARGUMENTS = {
    "personality": (0x0400000,),  # READ_IMPLIES_EXEC: not one of the personalities Docker allows
    "keyctl": (0, -3, 0),  # KEYCTL_GET_KEYRING_ID of the session keyring, without creating it
    "ptrace": (2, 0, 0, 0),  # PTRACE_PEEKDATA of pid 0
    "setns": (-1, 0),
    "bpf": (0xFFFF, 0, 0),
    "perf_event_open": (0, 0, -1, -1, 0),
    "reboot": (0, 0, 0, 0),  # no magic numbers: the kernel would refuse it too
    "syslog": (10, 0, 0),  # SYSLOG_ACTION_SIZE_BUFFER
    "finit_module": (-1, 0, 0),
    "open_by_handle_at": (-1, 0, 0),
    "name_to_handle_at": (-100, 0, 0, 0, 0),
    "clock_settime": (0, 0),
    "clone3": (0, 0),
}


def answer(name):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    args = [ctypes.c_long(value) for value in ARGUMENTS.get(name, (0, 0, 0, 0, 0, 0))]
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(SYSCALLS[name]), *args)
    return errno.errorcode[ctypes.get_errno()] if result == -1 else "allowed"


def probe():
    return {name: answer(name) for name in SYSCALLS}


def setup(info):
    print("REPORT " + json.dumps(probe()), file=sys.stderr)


def act(observation):
    return observation["legal_actions"][0]


if __name__ == "__main__":  # outside any sandbox (the test's control run): the same calls, unfiltered
    print(json.dumps(probe()))
