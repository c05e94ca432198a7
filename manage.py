#!/usr/bin/env python3
"""Django's command-line utility for the Arena platform (which lives in platform/, not a package)."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent

if __name__ == "__main__":
    # platform/ is a source folder, not a package: a package named `platform` would shadow the stdlib.
    sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
