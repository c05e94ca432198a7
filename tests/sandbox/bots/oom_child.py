"""Plays legally, but its first move forks a child that eats memory until the kernel's OOM killer takes it."""
import os

started = False


def act(observation):
    global started
    if not started:
        started = True
        child = os.fork()
        if child == 0:
            hog = []
            while True:
                hog.append(bytearray(8 << 20))
        os.waitpid(child, 0)
    return observation["legal_actions"][0]
