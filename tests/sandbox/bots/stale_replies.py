"""Before each answer, writes a well-formed reply to an earlier message onto the protocol channel.

Setup is message 0 and the n-th decision message n, so the stale reply names message n-1. The referee
must ignore it and take the real answer that follows.
"""
import json
import os

decisions = 0


def act(observation):
    global decisions
    decisions += 1
    stale = json.dumps({"v": 1, "seq": decisions - 1, "type": "action", "action": "stale"}) + "\n"
    for fd in range(3, 64):
        try:
            os.write(fd, stale.encode())
        except OSError:
            pass
    return observation["legal_actions"][-1]
