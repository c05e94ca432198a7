"""The requests of bench/load_run.py: what a class watching the ladder and its matches asks for.

Locust reads the signed-in session and the ids from the environment that load_run.py sets.
"""

import os
import random

from locust import HttpUser, constant

MATCHES = [int(pk) for pk in os.environ["ARENA_LOAD_MATCHES"].split(",")]


class Viewer(HttpUser):
    wait_time = constant(0)  # each client asks again as soon as it has its answer

    def on_start(self):
        self.client.cookies.set("sessionid", os.environ["ARENA_LOAD_SESSION"])

    def _get(self, path: str, name: str):
        self.client.get(path, name=name)

    @staticmethod
    def _match() -> int:
        return random.choice(MATCHES)

    tasks = {
        (lambda self: self._get("/ladder/endgame/", "ladder page")): 1,
        (lambda self: self._get(f"/matches/{self._match()}/", "match page")): 1,
        (lambda self: self._get(f"/matches/{self._match()}/replay/data/", "replay data")): 1,
        (lambda self: self._get("/api/matches/", "API match list")): 1,
    }
