"""Writes to stderr without end."""
import sys


def act(observation):
    line = "flood " * 200 + "\n"
    while True:
        sys.stderr.write(line)
