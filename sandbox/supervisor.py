"""PID 1 of a warm bot container: starts the harness for each match and wipes everything after it.

Standalone on purpose (standard library only), like harness.py: it is copied next to the bot file and
run as `python3 -I -S /sandbox/supervisor.py`, as the container's init. It speaks to the worker over the
container's stdin and stdout:

- stdin: lines from the worker. `!start` starts a match: the harness on /sandbox/bot.py (started ahead,
  while the container waited, and loading the bot only at its setup message); `!end` ends the match
  (the harness's stdin is closed, then every process is killed and the container reset); any other
  line is a protocol message for the harness and is passed to its stdin unchanged.
- stdout: frames, `kind (1 byte) + length (4 bytes, big-endian) + payload`. Kind 1 and 2 carry the
  harness's stdout and stderr, kind 3 a JSON event of the supervisor's own: {"event": "ready"} once at
  start, {"event": "exited", "status": N} when the bot's match is over (every bot process is dead by
  then, so nothing the bot writes can come after it), {"event": "reset", "clean": bool, "left": [...]}
  after `!end`. The bot's bytes are always inside frames, so it cannot forge an event.

The reset between matches: SIGKILL to every other process of the container's PID namespace until none
is left, then /tmp emptied, POSIX message queues and System V IPC objects removed. "clean" is false when
something could not be removed; the worker then discards the container. As PID 1 the supervisor cannot
be killed from inside its namespace, and it makes itself non-dumpable so that the bot (same uid) cannot
ptrace it or open its descriptors through /proc/1.
"""

import ctypes
import json
import os
import resource
import select
import signal
import stat
import struct
import sys
import time

FRAME = struct.Struct(">BL")
BOT_STDOUT, BOT_STDERR, EVENT = 1, 2, 3
HARNESS_COMMAND = ["python3", "-I", "-S", "/sandbox/harness.py", "/sandbox/bot.py"]
PYTHON = "/usr/bin/python3"
READ_CHUNK = 1 << 16
# After `!end` the harness exits at once (it flushes the bot's last prints); a bot that does not is killed.
END_GRACE = 0.5
# How long the reset keeps killing (a fork bomb keeps forking) before it declares the container unclean.
KILL_PATIENCE = 3.0
WRITABLE = "/tmp"
MQUEUE = "/dev/mqueue"
SYSV_IPC = {"shm": "shmctl", "sem": "semctl", "msg": "msgctl"}
IPC_RMID = 0
PR_SET_DUMPABLE = 4

libc = ctypes.CDLL(None, use_errno=True)


def write_frame(kind, payload):
    data = FRAME.pack(kind, len(payload)) + payload
    while data:
        data = data[os.write(1, data):]


def event(name, **fields):
    write_frame(EVENT, json.dumps({"event": name, **fields}).encode())


# The current match's harness: its pid, and its wait status once reaped (other children are only reaped).
harness = {"pid": None, "status": None}


def reap():
    """Collect every exited child (orphans are re-parented to us too)."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if pid == harness["pid"]:
            harness["status"] = status


def other_processes():
    return [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) != os.getpid()]


def kill_everything_else():
    """SIGKILL every other process of the namespace until none is left; False if some survive."""
    give_up = time.monotonic() + KILL_PATIENCE
    while True:
        if not other_processes():
            return True
        try:
            os.kill(-1, signal.SIGKILL)  # every process we may signal but ourselves: all the bot's
        except ProcessLookupError:
            pass
        reap()
        if time.monotonic() > give_up:
            return not other_processes()
        time.sleep(0.002)


def remove_tree(path):
    """Delete `path` whatever the bot did to its modes (all of it belongs to our uid)."""
    info = os.lstat(path)
    if stat.S_ISDIR(info.st_mode):
        os.chmod(path, 0o700)
        for name in os.listdir(path):
            remove_tree(os.path.join(path, name))
        os.rmdir(path)
    else:
        os.unlink(path)


def empty_folder(folder):
    """Remove everything in `folder`; what is still there after."""
    for name in os.listdir(folder):
        try:
            remove_tree(os.path.join(folder, name))
        except (OSError, RecursionError):  # (a tree nested deeper than python recurses)
            pass  # reported below, as left: the container is then discarded
    return [f"{folder}/{name}" for name in os.listdir(folder)]


def remove_sysv_ipc():
    left = []
    for kind, control in SYSV_IPC.items():
        with open(f"/proc/sysvipc/{kind}") as table:
            ids = [int(line.split()[1]) for line in table.readlines()[1:] if line.strip()]
        for ipc_id in ids:
            # semctl takes a semaphore number before the command; the others take a buffer after it.
            arguments = (ipc_id, 0, IPC_RMID) if kind == "sem" else (ipc_id, IPC_RMID, None)
            if getattr(libc, control)(*arguments) != 0:
                left.append(f"System V {kind} {ipc_id}: {os.strerror(ctypes.get_errno())}")
    return left


def reset():
    """Leave nothing of the match behind; the list of what could not be removed."""
    left = [] if kill_everything_else() else [f"process {pid}" for pid in other_processes()]
    left += empty_folder(WRITABLE)
    if os.path.isdir(MQUEUE):
        left += empty_folder(MQUEUE)
    left += remove_sysv_ipc()
    return left


class Match:
    """One run of the harness, with its three pipes."""

    def __init__(self):
        stdin_read, self.stdin = os.pipe()
        stdout, stdout_write = os.pipe()
        stderr, stderr_write = os.pipe()
        # Closed by the child's exec (close-on-exec): its end means the harness's program is running.
        exec_read, exec_write = os.pipe()
        harness["status"] = None
        harness["pid"] = os.fork()
        if harness["pid"] == 0:
            self._become_harness(stdin_read, stdout_write, stderr_write, exec_write)
        for fd in (stdin_read, stdout_write, stderr_write, exec_write):
            os.close(fd)
        os.read(exec_read, 1)
        os.close(exec_read)
        os.set_blocking(self.stdin, False)
        self.outputs = {stdout: BOT_STDOUT, stderr: BOT_STDERR}
        self.pending = bytearray()
        self.status = None
        self.exited_sent = False

    @staticmethod
    def _become_harness(stdin, stdout, stderr, exec_write):
        try:
            for target, fd in enumerate((stdin, stdout, stderr)):
                os.dup2(fd, target)
            os.closerange(3, exec_write)
            os.closerange(exec_write + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
            os.setsid()
            for number in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD):
                signal.signal(number, signal.SIG_DFL)
            # Dumpable again (as exec makes it anyway), or /proc/self would be root's and closed to us.
            libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
            # The kernel's OOM killer takes the bot, never the supervisor.
            with open("/proc/self/oom_score_adj", "w") as adjust:
                adjust.write("1000")
            os.chdir(WRITABLE)
            os.execve(PYTHON, HARNESS_COMMAND, dict(os.environ))
        except BaseException as error:  # noqa: BLE001 - whatever failed, the child never returns into the loop
            os.write(2, f"[arena] the supervisor could not start the harness: {error!r}\n".encode())
            os._exit(127)

    def feed(self, line):
        if self.stdin is not None:
            self.pending += line

    def flush_input(self):
        while self.pending and self.stdin is not None:
            try:
                self.pending = self.pending[os.write(self.stdin, self.pending):]
            except BlockingIOError:
                return
            except BrokenPipeError:
                self.pending.clear()

    def close_input(self):
        if self.stdin is not None:
            os.close(self.stdin)
            self.stdin = None
            self.pending.clear()

    def discard(self):
        self.close_input()
        for fd in self.outputs:
            os.close(fd)
        self.outputs.clear()

    def relay(self, fd):
        chunk = os.read(fd, READ_CHUNK)
        if chunk:
            write_frame(self.outputs[fd], chunk)
        else:
            os.close(fd)
            del self.outputs[fd]

    def finish(self):
        """Kill what is left of the bot, pass on the rest of its output, and say how it ended."""
        self.close_input()
        clean = kill_everything_else()
        self.note_exit()
        while self.outputs:  # every writer is dead: the pipes end
            self.relay(next(iter(self.outputs)))
        if self.status is None:
            self.status = -signal.SIGKILL
        if not self.exited_sent:
            self.exited_sent = True
            event("exited", status=self.status)
        return clean

    def note_exit(self):
        if self.status is None and harness["status"] is not None:
            self.status = os.waitstatus_to_exitcode(harness["status"])


class Supervisor:
    def __init__(self):
        self.buffer = bytearray()
        self.match = None
        # The next match's harness, started while the container waits (it loads no bot before setup):
        # python's start is then no part of a match.
        self.spare = None
        self.wake_read, wake_write = os.pipe()
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda number, frame: None)

    def run(self):
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        self.spare = Match()
        event("ready")
        while True:
            self.step()

    def step(self):
        match = self.match
        readable = [0, self.wake_read] + (list(match.outputs) if match else [])
        writable = [match.stdin] if match and match.pending and match.stdin is not None else []
        ready, can_write, _ = select.select(readable, writable, [])
        if self.wake_read in ready:
            os.read(self.wake_read, 4096)
            reap()
            if match:
                match.note_exit()
        if match and can_write:
            match.flush_input()
        if match:
            for fd in [fd for fd in ready if fd in match.outputs]:
                match.relay(fd)
            if match.status is not None and not match.exited_sent:
                match.finish()  # the harness died: like a cold container, the whole sandbox goes with it
        if 0 in ready:
            self.read_worker()

    def read_worker(self):
        chunk = os.read(0, READ_CHUNK)
        if not chunk:  # the worker is gone: so is this container
            kill_everything_else()
            os._exit(0)
        self.buffer += chunk
        while True:
            newline = self.buffer.find(b"\n")
            if newline < 0:
                return
            line = bytes(self.buffer[:newline + 1])
            del self.buffer[:newline + 1]
            if line == b"!start\n":
                self.start()
            elif line == b"!end\n":
                self.end()
            elif self.match is not None:
                self.match.feed(line)
                self.match.flush_input()

    def start(self):
        if self.match is not None:
            self.end()
        reap()
        spare, self.spare = self.spare, None
        if spare is not None and harness["status"] is not None:
            spare.discard()  # it died waiting
            spare = None
        self.match = spare or Match()

    def end(self):
        match, self.match = self.match, None
        clean = True
        if match is not None:
            match.close_input()
            deadline = time.monotonic() + END_GRACE
            while match.status is None and match.outputs and time.monotonic() < deadline:
                ready, _, _ = select.select(list(match.outputs) + [self.wake_read], [], [],
                                            max(deadline - time.monotonic(), 0))
                if self.wake_read in ready:
                    os.read(self.wake_read, 4096)
                    reap()
                    match.note_exit()
                for fd in [fd for fd in ready if fd in match.outputs]:
                    match.relay(fd)
            clean = match.finish()
        left = reset()
        self.spare = Match()
        event("reset", clean=clean and not left, left=left[:20])


if __name__ == "__main__":
    if os.getpid() != 1:
        sys.exit("the supervisor runs as PID 1 of its container")
    Supervisor().run()
