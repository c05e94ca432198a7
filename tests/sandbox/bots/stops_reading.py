"""Answers its first decision, then freezes its whole process (SIGSTOP) a moment later: it never reads again."""
import os
import signal
import threading
import time


def freeze():
    time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGSTOP)


def act(observation):
    threading.Thread(target=freeze, daemon=True).start()
    return observation["legal_actions"][0]
