"""Answers at once, but keeps threads computing between turns (time nobody asked it to use).

They hash a large buffer, which releases the GIL: the bot's own answers are never slowed by its threads,
so only the charge for their CPU can time it out.
"""
import hashlib
import threading

BUFFER = bytes(1 << 20)


def burn():
    while True:
        hashlib.sha256(BUFFER).digest()


def setup(info):
    for _ in range(4):
        threading.Thread(target=burn, daemon=True).start()


def act(observation):
    return observation["legal_actions"][0]
