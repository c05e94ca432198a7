"""A costly result made once per run of the suite and shared by its xdist workers.

A module-scoped fixture is made once per worker that runs one of the module's tests: under `load` or
`worksteal` a module's tests are spread over the workers, and a subprocess that collects the whole suite
(tests/test_tiers.py) was run by each of them. The first worker to ask makes the file under a lock in the
run's own temporary directory (the one its workers share, as pytest-xdist advises); the others wait for it
and read it."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path

import pytest


def run_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary directory of this run: shared by its xdist workers, its own otherwise."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The file `name` of this run, written by `make(path)` in the first process that asks for it. A `make`
    that fails leaves no file: the next process to ask tries again (and fails the same way, in its own test)."""
    path = run_directory(tmp_path_factory) / name
    with open(path.with_name(f"{name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not path.exists():
            partial = path.with_name(f"{name}.partial")
            make(partial)
            partial.rename(path)
    return path
