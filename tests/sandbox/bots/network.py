"""Tries to reach the network: the host's Redis, the Docker gateway, the host's addresses, the internet.

The test fills TARGETS in before the match. Each attempt's outcome goes to stderr as a REPORT line; then
the bot gives up (raises), so a bot that found no way out loses by a crash.
"""
import json
import socket
import sys

TARGETS = []  # [host, port] pairs, set by the test


def attempt(host, port):
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return "connected"
    except OSError as error:
        return f"refused: {error}"


def act(observation):
    report = {f"{host}:{port}": attempt(host, port) for host, port in TARGETS}
    try:
        report["dns"] = "resolved " + socket.gethostbyname("deb.debian.org")
    except OSError as error:
        report["dns"] = f"refused: {error}"
    print("REPORT " + json.dumps(report), file=sys.stderr)
    raise RuntimeError("no way out")
