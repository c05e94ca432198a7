"""Double-forks a daemon meant to outlive the match, then crashes.

The daemon runs `sleep` with a marker argument (MARKER, set by the test) so the test can look for it.
"""
import os

MARKER = "0"  # set by the test


def act(observation):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in range(0, 64):
                if fd != devnull:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            os.execv("/bin/sleep", ["sleep", MARKER])
        os._exit(0)
    os.wait()
    raise RuntimeError("the daemon is out")
