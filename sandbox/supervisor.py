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
  harness is started as the supervisor reconnects, before it reports (a spare, ready when `!next` comes;
  started as the container parked, it competed for the CPU with the worker recording the match that had
  just ended, issue 27). The spare waits, running no bot code, for its three pipes, which `!next` passes
  it over a socket pair of its own (`harness.py --await-pipes`); the supervisor then closes its end, and
  the harness its own before it loads the bot.
The end of the connection otherwise (the worker is gone) ends the container.

The zygote. A harness is not a new interpreter (15-20 ms of CPU for each seat of each match, most of a
short match's cost) but a fork of the zygote, a second process with harness.py loaded: a fork costs about
1 ms. The supervisor forks the zygote first thing, before it has read anything (one that a bot killed is
replaced by exec, `--zygote`, while no bot process is left: by then the supervisor's memory is not clean).
The zygote learns nothing of any match: it reads only the supervisor's requests (a harness to fork, on
three descriptors), and each harness forks from it through a child that exits at once, so that the harness
is the supervisor's child and its end and status are the supervisor's to see. Whatever a bot leaves for
the reset to read (file names in /tmp, its exit status) is thus never in the memory the next harness is
forked from: the supervisor, which reads it, is never forked after that. The bot may signal the zygote
(same uid): it ignores every signal; a stop is undone (SIGCONT) before each request, and a zygote that is
gone or does not answer is replaced by a new one.

The reset between matches: SIGKILL to every process of the container's PID namespace but the supervisor
and the zygote until none is left, then /tmp emptied, POSIX message queues and System V IPC objects
removed. "clean" is false when something could not be removed; the worker then discards the container.
As PID 1 the supervisor cannot be killed from inside its namespace; it and the zygote make themselves
non-dumpable so that the bot (same uid) can neither ptrace them nor open their descriptors (the worker's
connection among them) through /proc.
"""

import ctypes
import importlib.util
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
HARNESS = "/sandbox/harness.py"
# The harness's sys.argv (as if run as `python3 -I -S /sandbox/harness.py /sandbox/bot.py`, see harness.py).
HARNESS_ARGV = [HARNESS, "/sandbox/bot.py"]
# A spare harness (see the module's docstring) takes its pipes from its stdin, a socket to the supervisor.
SPARE_ARGV = [*HARNESS_ARGV, "--await-pipes"]
# Each harness's and the zygote's process names (/proc/PID/comm; their command line is the zygote's).
HARNESS_NAME = b"arena-harness"
ZYGOTE_NAME = b"arena-zygote"
SUPERVISOR = "/sandbox/supervisor.py"
PYTHON = "/usr/bin/python3"
ZYGOTE_FLAG = "--zygote"
# How long the supervisor waits for a harness the zygote forks to say its pid before it starts a new zygote.
ZYGOTE_PATIENCE = 5.0
PID_BYTES = 4
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
PR_SET_NAME = 15

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
    """Every process of the namespace but this one and the zygote: the bot's."""
    keep = {os.getpid(), zygote.pid if zygote else None}
    return [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) not in keep]


def kill_everything_else():
    """SIGKILL every process of the bot's until none is left; False if some survive."""
    give_up = time.monotonic() + KILL_PATIENCE
    while True:
        others = other_processes()
        if not others:
            return True
        for pid in others:  # (one by one, not kill(-1): the zygote stays)
            try:
                os.kill(pid, signal.SIGKILL)
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


class Zygote:
    """The supervisor's side of the zygote (see the module's docstring): a process that forks a harness when
    asked and learns nothing else. The container's first is a fork of the supervisor made before it has
    read anything (`clean`); a later one, after a bot killed the last, is started by exec: the supervisor's
    memory may hold what it read of earlier matches by then."""

    def __init__(self, *, clean):
        self.link, theirs = socket.socketpair()
        self.link.settimeout(ZYGOTE_PATIENCE)
        self.pid = os.fork()
        if self.pid == 0:
            try:
                self.link.close()
                if clean:
                    zygote_main(theirs)
                os.dup2(theirs.fileno(), 0)
                os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
                os.execv(PYTHON, [PYTHON, "-I", "-S", SUPERVISOR, ZYGOTE_FLAG])
            finally:
                os._exit(127)
        theirs.close()

    def fork_harness(self, fds, request):
        """A harness forked on `fds` (b"next": to run now; b"spare": to wait for its pipes); its pid once it
        is ready. OSError if the zygote does not answer."""
        # The last match's bot may have stopped it (same uid); none of its processes is left to do it again.
        os.kill(self.pid, signal.SIGCONT)
        socket.send_fds(self.link, [request], fds)
        answer = b""
        while len(answer) < PID_BYTES:
            chunk = self.link.recv(PID_BYTES - len(answer))
            if not chunk:
                raise ConnectionResetError("the zygote is gone")
            answer += chunk
        return int.from_bytes(answer, "big")

    def close(self):
        self.link.close()
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


zygote = None  # the Zygote, once main() has started it


def start_harness(fds, request=b"next"):
    """A harness on `fds` (its stdin, stdout, stderr), from the zygote (a new one if the bot killed the
    last); its pid. The descriptors are the harness's alone from then on: closed here."""
    global zygote
    harness["status"] = None
    try:
        try:
            harness["pid"] = zygote.fork_harness(fds, request)
        except OSError:
            zygote.close()
            zygote = Zygote(clean=False)
            harness["pid"] = zygote.fork_harness(fds, request)
    finally:
        for fd in fds:  # the harness's ends are its own: once it is dead, the worker's pipes end
            os.close(fd)
    return harness["pid"]


def zygote_main(link):
    """The zygote: forks a harness for each request on `link` (a socket pair with the supervisor), and does
    nothing else. Each harness forks from it through a child that exits at once, so that the harness is
    the supervisor's child (orphans go to PID 1): its end and its status are never the zygote's to see."""
    # First (after an exec; a fork of the supervisor already is): the bot (same uid) may neither ptrace it
    # nor read it. (Started by exec only while no bot process is left, so none can in between either.)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_NAME, ZYGOTE_NAME, 0, 0, 0)
    for number in signal.valid_signals():  # the bot may signal it: no signal it can send does anything
        try:
            signal.signal(number, signal.SIG_IGN)  # (SIGCHLD too: the kernel reaps the children that exit)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP: the supervisor starts another zygote, or continues this one
    spec = importlib.util.spec_from_file_location("harness", HARNESS)
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    while True:
        request, fds, _, _ = socket.recv_fds(link, 16, HARNESS_FDS)
        if not request:
            os._exit(0)
        if os.fork() == 0:
            if os.fork() == 0:
                _become_harness(program, link, fds, SPARE_ARGV if request == b"spare" else HARNESS_ARGV)
            os._exit(0)
        for fd in fds:
            os.close(fd)


def _become_harness(program, link, fds, argv):
    """The zygote's grandchild becomes a fresh interpreter's harness: harness.py's main on `fds`, with
    nothing else of the zygote's open (a new interpreter's start costs 15-20 ms of CPU a seat; a fork 1)."""
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.setsid()
        # A fresh interpreter's handlers: SIGINT raises KeyboardInterrupt, SIGPIPE and SIGXFSZ are ignored.
        for number in signal.valid_signals():
            try:
                signal.signal(number, signal.SIG_DFL)
            except (OSError, ValueError):
                pass
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for number in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(number, signal.SIG_IGN)
        # Dumpable (the zygote is not), or /proc/self would be root's and closed to the bot.
        libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        libc.prctl(PR_SET_NAME, HARNESS_NAME, 0, 0, 0)
        # The kernel's OOM killer takes the bot, never the supervisor.
        with open("/proc/self/oom_score_adj", "w") as adjust:
            adjust.write("1000")
        os.chdir(WRITABLE)
        sys.argv = list(argv)
        link.sendall(os.getpid().to_bytes(PID_BYTES, "big"))
        # Nothing else of the zygote's (its link to the supervisor above all) reaches the bot.
        os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
        program.main()  # it ends the process itself (os._exit)
        status = 0
    except BaseException as error:  # noqa: BLE001 - whatever failed, the child never returns into the loop
        os.write(2, f"[arena] the zygote could not start the harness: {error!r}\n".encode())
        status = 127
    os._exit(status)


class Spare:
    """A harness started ahead of its match (as a parked container is called back), waiting for its pipes
    on a socket pair: its stdin; its stdout and stderr are the supervisor's own, which nobody reads."""

    def __init__(self):
        self.link, theirs = socket.socketpair()
        self.pid = start_harness((theirs.detach(), os.dup(1), os.dup(2)), b"spare")

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
            start_harness(fds)
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
    if sys.argv[1:] == [ZYGOTE_FLAG]:  # a zygote started by exec (see `Zygote`): its link is its stdin
        link = socket.socket(fileno=os.dup(0))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        zygote_main(link)
    if os.getpid() != 1:
        sys.exit("the supervisor runs as PID 1 of its container")
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # before anything of the worker's is held
    global zygote
    zygote = Zygote(clean=True)  # before anything is read: see `Zygote`
    try:
        control = connect_to_worker()
    except OSError as error:
        sys.exit(f"the supervisor cannot reach its worker at {CONTROL}: {error}")
    Supervisor(control).run()


if __name__ == "__main__":
    main()
