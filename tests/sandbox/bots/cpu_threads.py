"""Answers at once, but keeps threads computing between turns (time nobody asked it to use)."""
import threading


def burn():
    while True:
        pass


def setup(info):
    for _ in range(4):
        threading.Thread(target=burn, daemon=True).start()


def act(observation):
    return observation["legal_actions"][0]
