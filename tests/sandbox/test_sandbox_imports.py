"""The Docker SDK is imported with the sandbox's backend, before any match: a match opens its seats in threads
at once (games.referee.seated), and two threads making a process's first import of the SDK together can each
get the other's half-initialised module (an ImportError that failed a match as a platform fault in CI)."""

import subprocess
import sys


def test_the_pool_brings_the_docker_sdk_whole_before_any_seat_thread_needs_it():
    probe = ("import sys, sandbox.pool; "
             "print(all(name in sys.modules for name in ('docker', 'docker.errors', 'docker.types', 'docker.api')))")
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert found.stdout.strip() == "True", found.stderr
