"""Forks idle children until fork fails, reports how many it got and the errno (stderr REPORT), then plays."""
import errno
import json
import os
import signal
import sys
import time


def setup(info):
    children = []
    failure = None
    while failure is None and len(children) < 10_000:
        try:
            pid = os.fork()
        except OSError as error:
            failure = errno.errorcode.get(error.errno, str(error.errno))
            break
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        children.append(pid)
    for pid in children:  # free the pids again, so the match goes on normally
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    print("REPORT " + json.dumps({"forks": len(children), "error": failure}), file=sys.stderr, flush=True)


def act(observation):
    return observation["legal_actions"][0]
