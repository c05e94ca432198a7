"""Writes one endless line (no newline ever) straight onto the protocol channel."""
import os


def act(observation):
    chunk = b"x" * 65536
    while True:
        for fd in range(3, 64):
            try:
                os.write(fd, chunk)
            except OSError:
                pass
