"""On a 6-number board it leaves a child behind that writes forged answers to the protocol's next
messages (and a marker) on every descriptor it holds, after the bot has crashed; otherwise it plays
the first legal move. The crash leaves a warm container that is reset and kept: the bot's next match
there must see none of it.
"""
import json
import os
import time

MARKER = "FORGED AFTER THE VERDICT"
attack = False


def setup(info):
    global attack
    attack = info["config"]["length"] == 6


def forge(fds):
    time.sleep(0.3)  # the bot's crash is reported by then
    lines = b"".join(json.dumps({"v": 1, "seq": seq, "type": "action", "action": MARKER}).encode() + b"\n"
                     for seq in range(40))
    for _ in range(200):
        for fd in fds:
            try:
                os.write(fd, lines)
            except OSError:
                pass
        time.sleep(0.01)


def act(observation):
    if not attack:
        return observation["legal_actions"][0]
    fds = [int(name) for name in os.listdir("/proc/self/fd")]
    if os.fork() == 0:
        forge(fds)
        os._exit(0)
    raise RuntimeError("gone, but my child is not")
