"""Goes after the channel between the worker and its sandbox (a warm container's supervisor is handed
the harness's pipes over a Unix socket in /sandbox, removed before any bot code runs): connects to that
socket, from itself and from a forked child, makes one of its own there, passes a descriptor on every
descriptor it holds, and looks for any socket file it could reach. None of it may work or find anything.
"""
import json
import os
import socket
import stat
import sys

CONTROL = "/sandbox/control.sock"
# Not searched for socket files: they hold none a bot could use, and take long to walk.
SKIPPED = ("/proc", "/sys", "/usr")
sockets = []


def attempt(action):
    try:
        return f"done: {action()}"
    except OSError as error:
        return f"refused: {error}"


def connect():
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(CONTROL)
        return "connected"


def connect_from_a_child():
    pid = os.fork()
    if pid == 0:
        try:
            connect()
            os._exit(0)
        except OSError:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise OSError("the child could not connect")
    return "the child connected"


def bind_one_of_its_own():
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind("/sandbox/mine.sock")
        return "bound"


def pass_a_descriptor(fd):
    copy = os.dup(fd)
    try:
        carrier = socket.socket(fileno=copy)  # OSError unless the descriptor is a socket
    except OSError:
        os.close(copy)
        raise
    with carrier:
        socket.send_fds(carrier, [b"{}\n"], [0])
        return "passed"


def find_sockets(folder="/", depth=0):
    try:
        with os.scandir(folder) as entries:  # (one descriptor at a time: the bot has few)
            entries = list(entries)
    except OSError:
        return
    for entry in entries:
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError:
            continue
        if stat.S_ISSOCK(mode):
            sockets.append(entry.path)
        elif stat.S_ISDIR(mode) and entry.path not in SKIPPED and depth < 12:
            find_sockets(entry.path, depth + 1)


def setup(info):
    find_sockets()  # (in setup, which has the time for a walk)


def act(observation):
    report = {
        "connect to the control socket": attempt(connect),
        "connect from a forked child": attempt(connect_from_a_child),
        "bind a socket in /sandbox": attempt(bind_one_of_its_own),
    }
    for fd in sorted(int(name) for name in os.listdir("/proc/self/fd")):
        report[f"pass a descriptor on fd {fd}"] = attempt(lambda: pass_a_descriptor(fd))
    print("REPORT " + json.dumps({"attempts": report, "sockets": sockets}), file=sys.stderr)
    return observation["legal_actions"][0]
