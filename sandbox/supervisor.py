"""PID 1 of a warm bot container: starts the harness for each match and wipes everything after it.

Standalone on purpose (standard library only), like harness.py: it is copied next to the bot file and
run as `python3 -I -S /sandbox/supervisor.py`, as the container's init. It never carries the bot's bytes:
the worker hands it the three pipes of each match's harness, and the harness then speaks to the worker
straight down them (a decision is one write and one read between two processes, as for a plain process).

The worker listens on /sandbox/control.sock (the staging folder, bind-mounted read-only) before the
container starts; the supervisor connects to it first thing, and the worker accepts that one connection
only (from this container's PID 1, by its credentials) and removes the socket file before any bot code
runs: the connection stays the supervisor's alone, and nothing else in the folder can be connected to.
On that connection:

- from the worker, `!next` lines, each carrying three descriptors (SCM_RIGHTS): the read end of the
  next harness's stdin and the write ends of its stdout and stderr. The first one starts the harness of
  the container's first match (started ahead while the container waits: it loads the bot only at its
  setup message); each later one ends the current match (its stdin is already closed by the worker: the
  harness exits; every process is then killed and the container reset) and starts the next one's.
- to the worker, JSON events, one a line: {"event": "ready"} once the first harness runs,
  {"event": "exited", "status": N} when a match's harness is gone (every bot process is dead by then,
  so all the bot wrote is already in the worker's pipes), {"event": "reset", "clean": bool, "left": [...]}
  after each later `!next`.
- `!park` from the worker: the match ends and the container resets as for `!next`, but no match starts:
  the supervisor leaves the connection and waits for the next worker process (of the same worker) to
  listen on CONTROL again and send it SIGUSR1; it connects, says {"event": "reconnected", "clean": bool,
  "left": [...]}, and that process's `!next` starts the harness (sandbox/pool.py, shared pools). The
  harness is started as the supervisor reconnects, before it reports (a spare: Python's start overlaps
  the worker's side of the hand-over instead of following its `!next`; started as the container parked,
  it competed for the CPU with the worker recording the match that had just ended, which cost End Game
  challenges about a tenth of their rate, issue 27). The spare waits, running no bot code, for its three
  pipes, which `!next` passes it over a socket pair of its own (`harness.py --await-pipes`); the
  supervisor then closes its end, and the harness its own before it loads the bot.
The end of the connection otherwise (the worker is gone) ends the container.

The reset between matches: SIGKILL to every other process of the container's PID namespace until none
is left, then /tmp emptied, POSIX message queues and System V IPC objects removed. "clean" is false when
something could not be removed; the worker then discards the container. As PID 1 the supervisor cannot
be killed from inside its namespace, and it makes itself non-dumpable so that the bot (same uid) cannot
ptrace it or open its descriptors (the worker's connection among them) through /proc/1.
"""

import ctypes
import json
import os
import resource
import select
import signal
import socket
import stat
import sys
import time

CONTROL = "/sandbox/control.sock"
# Descriptors a `!next` line carries: the harness's stdin (read end), stdout and stderr (write ends).
HARNESS_FDS = 3
HARNESS_COMMAND = ["python3", "-I", "-S", "/sandbox/harness.py", "/sandbox/bot.py"]
# A spare harness (see the module's docstring) takes its pipes from its stdin, a socket to the supervisor.
SPARE_COMMAND = [*HARNESS_COMMAND, "--await-pipes"]
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


def connect_to_worker():
    """A connection to the worker listening on CONTROL (see the module's docstring); OSError if none is."""
    control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        control.connect(CONTROL)
    except OSError:
        control.close()
        raise
    return control


def event(control, name, **fields):
    try:
        control.sendall(json.dumps({"event": name, **fields}).encode() + b"\n")
    except OSError:
        pass  # the worker is gone (its connection's end is read next) or has parked the container


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


def start_harness(fds, command, *, await_exec=True):
    """Fork and exec the harness `command` on `fds` (its stdin, stdout, stderr); its pid, once its program
    runs with `await_exec` (a spare is not waited for: its match's pipes come later, over its socket pair,
    and if it died meanwhile `Spare.hand_over` finds it so). The descriptors are the harness's alone from
    then on: closed here."""
    # Closed by the child's exec (close-on-exec): its end means the harness's program is running.
    exec_read, exec_write = os.pipe() if await_exec else (None, None)
    harness["status"] = None
    harness["pid"] = os.fork()
    if harness["pid"] == 0:
        _become_harness(fds, exec_write, command)
    # The harness's ends are its own: once it is dead, the worker's pipes end.
    for fd in fds:
        os.close(fd)
    if await_exec:
        os.close(exec_write)
        os.read(exec_read, 1)
        os.close(exec_read)
    return harness["pid"]


def _become_harness(fds, exec_write, command):
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        # Nothing else of the supervisor's (the worker's connection above all) reaches the harness.
        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        if exec_write is None:
            os.closerange(3, limit)
        else:
            os.closerange(3, exec_write)
            os.closerange(exec_write + 1, limit)
        os.setsid()
        for number in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD):
            signal.signal(number, signal.SIG_DFL)
        # Dumpable again (as exec makes it anyway), or /proc/self would be root's and closed to us.
        libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        # The kernel's OOM killer takes the bot, never the supervisor.
        with open("/proc/self/oom_score_adj", "w") as adjust:
            adjust.write("1000")
        os.chdir(WRITABLE)
        os.execve(PYTHON, command, dict(os.environ))
    except BaseException as error:  # noqa: BLE001 - whatever failed, the child never returns into the loop
        os.write(2, f"[arena] the supervisor could not start the harness: {error!r}\n".encode())
        os._exit(127)


class Spare:
    """A harness started ahead of its match (as a parked container is called back), waiting for its pipes
    on a socket pair: its stdin; its stdout and stderr are the supervisor's own, which nobody reads."""

    def __init__(self):
        self.link, theirs = socket.socketpair()
        self.pid = start_harness((theirs.detach(), os.dup(1), os.dup(2)), SPARE_COMMAND, await_exec=False)

    def hand_over(self, fds):
        """Pass the harness its three pipes; False if it is not there to take them (then nothing is sent)."""
        try:
            alive = harness["pid"] == self.pid and harness["status"] is None
            return alive and bool(socket.send_fds(self.link, [b"!"], fds))
        except OSError:
            return False
        finally:
            self.link.close()


class Match:
    """One run of the harness on the three pipes the worker handed over for it (to the spare, if any)."""

    def __init__(self, control, fds, spare=None):
        self.control = control
        if spare is not None and spare.hand_over(fds):
            for fd in fds:
                os.close(fd)
        else:
            reap()  # (a spare that died: its status is not this match's)
            start_harness(fds, HARNESS_COMMAND)
        self.status = None
        self.exited_sent = False

    def finish(self):
        """Kill what is left of the bot and say how it ended."""
        clean = kill_everything_else()
        self.note_exit()
        if self.status is None:
            self.status = -signal.SIGKILL
        if not self.exited_sent:
            self.exited_sent = True
            event(self.control, "exited", status=self.status)
        return clean

    def note_exit(self):
        if self.status is None and harness["status"] is not None:
            self.status = os.waitstatus_to_exitcode(harness["status"])


class Supervisor:
    def __init__(self, control):
        self.control = control
        self.buffer = bytearray()
        self.fds = []
        self.match = None
        # The harness started for the next match as a parked container is called back (see `park`).
        self.spare = None
        self.wake_read, wake_write = os.pipe()
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda number, frame: None)
        # A parked container's wake-up (see `park`); from the bot, while a worker is connected, it does nothing.
        signal.signal(signal.SIGUSR1, lambda number, frame: None)

    def run(self):
        while True:
            self.step()

    def step(self):
        ready, _, _ = select.select([self.control, self.wake_read], [], [])
        if self.wake_read in ready:
            os.read(self.wake_read, 4096)
            reap()
            match = self.match
            if match:
                match.note_exit()
                if match.status is not None and not match.exited_sent:
                    match.finish()  # the harness died: like a cold container, the whole sandbox goes with it
        if self.control in ready:
            self.read_worker()

    def read_worker(self):
        chunk, fds, _, _ = socket.recv_fds(self.control, READ_CHUNK, HARNESS_FDS)
        self.fds += fds
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
            if line == b"!next\n":
                self.next_match()
            elif line == b"!park\n":
                self.park()
                return

    def next_match(self):
        """End the current match (if any) and reset, then start the next one's harness on its pipes."""
        first = self.match is None
        if not first:
            clean = self.end()
            left = reset()
        fds, self.fds = self.fds[:HARNESS_FDS], self.fds[HARNESS_FDS:]
        if len(fds) < HARNESS_FDS:
            sys.exit("the worker sent !next without the harness's three pipes")
        spare, self.spare = self.spare, None
        self.match = Match(self.control, fds, spare)
        if first:
            event(self.control, "ready")
        else:
            event(self.control, "reset", clean=clean and not left, left=left[:20])

    def park(self):
        """End the current match and reset as `!next` does, then leave the worker: the container's next
        match may be another worker process's. Whichever it is makes the socket CONTROL afresh and sends
        SIGUSR1; the next match's harness then starts (a spare), the reset's report goes to that process
        ("reconnected"), and its `!next` hands the spare its pipes."""
        clean, left = True, []
        if self.match is not None:
            clean = self.end()
            left = reset()
        self.control.close()
        self.buffer.clear()
        for fd in self.fds:
            os.close(fd)
        self.fds = []
        while True:
            try:  # (first without waiting: the worker's signal may have come while the match was ending)
                self.control = connect_to_worker()
                break
            except OSError:
                pass  # nobody is calling yet: wait for the signal (the bot's, while it ran, are long read)
            select.select([self.wake_read], [], [])
            os.read(self.wake_read, 4096)
            reap()
        if clean and not left:
            try:
                self.spare = Spare()
            except OSError:
                pass  # (no spare: the next match's `!next` starts its harness, as a fresh container's does)
        event(self.control, "reconnected", clean=clean and not left, left=left[:20])

    def end(self):
        """The worker has closed the harness's stdin: it exits at once; a bot that does not is killed.
        Whether every process could be killed."""
        match, self.match = self.match, None
        deadline = time.monotonic() + END_GRACE
        while match.status is None and time.monotonic() < deadline:
            ready, _, _ = select.select([self.wake_read], [], [], max(deadline - time.monotonic(), 0))
            if ready:
                os.read(self.wake_read, 4096)
                reap()
                match.note_exit()
        return match.finish()


def main():
    if os.getpid() != 1:
        sys.exit("the supervisor runs as PID 1 of its container")
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # before anything of the worker's is held
    try:
        control = connect_to_worker()
    except OSError as error:
        sys.exit(f"the supervisor cannot reach its worker at {CONTROL}: {error}")
    Supervisor(control).run()


if __name__ == "__main__":
    main()
