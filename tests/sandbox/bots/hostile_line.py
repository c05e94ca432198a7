"""Plays the first legal action, but at its first decision (or in its setup, if AT says so) first writes
LINES straight onto the protocol channel, found among the harness's own objects: whatever the harness
holds, a bot can reach.

"@SEQ@" in LINES becomes the number of the message being answered (the setup is message 0).
"""
import gc
import os

LINES = b""
AT = "act"
decisions = 0


def protocol_descriptor():
    return next(thing._writer_fd for thing in gc.get_objects()
                if type(thing).__name__ == "Channel" and hasattr(thing, "_writer_fd"))


def write_lines(seq):
    data = LINES.replace(b"@SEQ@", str(seq).encode())
    descriptor = protocol_descriptor()
    while data:
        data = data[os.write(descriptor, data):]


def setup(info):
    if AT == "setup":
        write_lines(0)


def act(observation):
    global decisions
    decisions += 1
    if AT == "act" and decisions == 1:
        write_lines(decisions)
    return observation["legal_actions"][0]
