"""Django's management commands for the Arena platform: `arena-admin COMMAND` once the package is installed
(any folder), or `python manage.py COMMAND` in a checkout."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
