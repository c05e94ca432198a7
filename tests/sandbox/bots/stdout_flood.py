"""Prints without end: its prints go to its log, never onto the protocol channel."""


def act(observation):
    line = "flood " * 200
    while True:
        print(line)
