"""Run by test_sqlite_concurrency.py in its own process on the SQLite demo configuration: a burst of
uploads and challenges from concurrent threads, as a class of students would send them to the web server.

Prints one JSON line: the ids of the matches it queued.
"""

import json
import sys
import threading

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402 - after setup
from django.db import connection  # noqa: E402

from arena.bots.models import Bot  # noqa: E402
from arena.bots.services import create_bot, upload_version  # noqa: E402
from arena.matches import services  # noqa: E402

BOT = b"def act(observation):\n    board = observation['board']\n    return 'left' if board[0] >= board[-1] else 'right'\n"


def student(number: int, uploads: int, challenges: int, queued: list, errors: list) -> None:
    try:
        user = get_user_model().objects.create_user(f"student{number}", password="x-burst-1234")
        bot = create_bot(user, "endgame", f"bot{number}")
        opponents = [Bot.objects.builtin("endgame", name) for name in ("greedy", "random")]
        builtin_bot = Bot.objects.builtin("endgame", "optimal")
        for round_ in range(max(uploads, challenges)):
            if round_ < uploads:
                version = upload_version(bot, BOT, f"bot{round_}.py")
                queued.append(version.validation_match_id)
            if round_ < challenges:
                # The student's bot is validating; challenge as the built-ins' table would, through the
                # same service, so that web writes and worker claims overlap throughout.
                match = services.create_match("endgame", [builtin_bot, opponents[round_ % 2]],
                                              purpose="challenge", rated=False, created_by=user)
                queued.append(match.pk)
    except Exception as exc:  # reported to the test, which fails with it
        errors.append(f"student {number}: {type(exc).__name__}: {exc}")
    finally:
        connection.close()


def main(students: int, uploads: int, challenges: int) -> None:
    queued, errors = [], []
    threads = [threading.Thread(target=student, args=(n, uploads, challenges, queued, errors))
               for n in range(students)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"queued": queued, "errors": errors}))


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:4]))
