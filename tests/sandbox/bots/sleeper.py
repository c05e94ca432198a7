"""Never answers: sleeps through its first decision (no CPU used, so only the wall clock catches it)."""
import time


def act(observation):
    time.sleep(3600)
