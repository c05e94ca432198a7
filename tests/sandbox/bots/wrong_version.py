"""Answers in a protocol version the referee does not speak, straight onto the protocol channel."""
import json
import os
import time


def act(observation):
    reply = json.dumps({"v": 2, "seq": 1, "type": "action", "action": observation["legal_actions"][0]}) + "\n"
    for fd in range(3, 64):
        try:
            os.write(fd, reply.encode())
        except OSError:
            pass
    time.sleep(3600)
