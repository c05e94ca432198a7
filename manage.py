#!/usr/bin/env python3
"""Django's command-line utility for the Arena platform in this checkout (installed: `arena-admin`).

The platform is the package `arena` in platform/ (a source folder): `scripts/setup` installs it in editable
mode, so that this file, the tests and the workers import it without any path of their own.
"""

try:
    from arena.manage import main
except ModuleNotFoundError as exc:
    if exc.name != "arena":
        raise
    raise SystemExit("manage.py: the arena package is not installed: run scripts/setup (pip install -e .) "
                     "or put platform/ on PYTHONPATH") from exc

if __name__ == "__main__":
    main()
