"""Writes garbage straight onto every descriptor it has, the protocol channel included."""
import os


def act(observation):
    for fd in range(3, 64):
        try:
            os.write(fd, b"this is not JSON\n")
        except OSError:
            pass
    return observation["legal_actions"][0]
