"""A command line run inside the test's own process, answered as subprocess.run answers (exit code, stdout,
stderr).

Starting Python for a run costs 0.3 s of CPU for `python -m games` and 2 s for `manage.py` (which sets up
Django and imports every app): the tests of what a command prints and refuses run it here, and each command
keeps tests that start it as a real process (its entry point, its exit code as the shell sees it). An exception
the command lets out fails the test where it is raised, which is what the processes' "no Traceback" checks ask.
"""

import io
import os
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from typing import Callable
from unittest.mock import patch


def run_main(main: Callable[[list[str]], int | None], argv: list[str],
             stdin: bytes = b"") -> subprocess.CompletedProcess:
    """`main(argv)` with its stdout and stderr captured and `stdin` on a pipe of its own (a command may read its
    file descriptor, as `games play` does); a SystemExit's code (argparse's 2, Django's CommandError's 1) is its
    exit code, as the process would have exited with."""
    out, err = io.StringIO(), io.StringIO()
    read_end, write_end = os.pipe()
    with open(write_end, "wb") as writer:
        writer.write(stdin)  # a pipe holds 64 KiB: enough for what the tests type
    with open(read_end, "rb") as reader, redirect_stdout(out), redirect_stderr(err), \
            patch("sys.stdin", io.TextIOWrapper(reader)):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = exit_.code
    return subprocess.CompletedProcess(argv, code or 0, out.getvalue(), err.getvalue())
