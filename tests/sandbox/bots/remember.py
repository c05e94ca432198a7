"""Tries to carry what it learned of its opponent in one match over to its next match in the same container.

At setup it reports (stderr REPORT) what it finds of an earlier match, then, while it plays, keeps the
opponent's moves in every place named by CHANNELS (set by the test):
- "daemon": a double-forked process that outlives the harness and serves the memory on an abstract socket;
- "tmp": a file in /tmp, the working folder;
- "home": a file in the home folder;
- "shm": POSIX shared memory (/dev/shm), a System V shared memory segment, a POSIX message queue.
"""
import ctypes
import json
import os
import socket
import sys

CHANNELS = ["daemon", "tmp", "home", "shm"]  # set by the test
SOCKET = "\0arena-remember"
SYSV_KEY = 0x41524E41
IPC_CREAT = 0o1000
MQUEUE = "/dev/mqueue"

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
stored = {}


def files():
    return {"tmp": "/tmp/.remember", "home": os.path.join(os.path.expanduser("~"), ".remember"),
            "dev/shm": "/dev/shm/remember"}


def attempt(name, action):
    try:
        action()
        stored[name] = "done"
    except OSError as error:
        stored[name] = f"refused: {error}"


def write_file(path, memory):
    with open(path, "w") as out:
        out.write(memory)


def write_sysv(memory):
    segment = libc.shmget(SYSV_KEY, 4096, IPC_CREAT | 0o600)
    address = libc.shmat(segment, None, 0) if segment >= 0 else None
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "shmget/shmat")
    ctypes.memmove(address, memory.encode()[:4000] + b"\0", len(memory.encode()[:4000]) + 1)


def read_sysv():
    segment = libc.shmget(SYSV_KEY, 0, 0)
    if segment < 0:
        return None
    address = libc.shmat(segment, None, 0)
    return ctypes.string_at(address).decode()


def write_mqueue(memory):
    for name in os.listdir(MQUEUE):
        os.unlink(os.path.join(MQUEUE, name))
    # The queue's name is the memory (creating a file in the mqueue file system makes a queue).
    os.close(os.open(os.path.join(MQUEUE, memory.replace("/", "_")[:200]), os.O_CREAT | os.O_RDWR, 0o600))


def start_daemon(memory):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(SOCKET)
            server.listen(1)
            for fd in range(0, 3):
                os.close(fd)
            while True:
                connection, _ = server.accept()
                connection.sendall(memory.encode())
                connection.close()
        os._exit(0)
    os.wait()


def ask_daemon():
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.connect(SOCKET)
        return client.recv(4096).decode()
    except OSError:
        return None


def recall():
    found = {name: open(path).read() for name, path in files().items() if os.path.exists(path)}
    found["daemon"] = ask_daemon()
    found["sysv"] = read_sysv()
    found["mqueue"] = ",".join(os.listdir(MQUEUE)) or None if os.path.isdir(MQUEUE) else None
    return {name: value for name, value in found.items() if value}


def remember(memory):
    paths = files()
    if "tmp" in CHANNELS:
        attempt("tmp", lambda: write_file(paths["tmp"], memory))
    if "home" in CHANNELS:
        attempt("home", lambda: write_file(paths["home"], memory))
    if "shm" in CHANNELS:
        attempt("dev/shm", lambda: write_file(paths["dev/shm"], memory))
        attempt("sysv", lambda: write_sysv(memory))
        attempt("mqueue", lambda: write_mqueue(memory))
    if "daemon" in CHANNELS and "daemon" not in stored:
        attempt("daemon", lambda: start_daemon(memory))


def setup(info):
    print("REPORT " + json.dumps({"recalled": recall()}), file=sys.stderr)
    sys.stderr.flush()


def act(observation):
    opponent = 1 - observation["seat"]  # the seats move in turn, seat 0 first
    remember(f"opponent {opponent} played {json.dumps(observation['moves'][opponent::2])}")
    print("STORED " + json.dumps(stored), file=sys.stderr)
    return observation["legal_actions"][0]
