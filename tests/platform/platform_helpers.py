"""Helpers shared by the platform tests (conftest.py holds the fixtures)."""

import subprocess
import time

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
BROWSER_TIMEOUT_MS = 90_000

EXAMPLE_BOT = b"def act(observation):\n    board = observation['board']\n    return 'left' if board[0] >= board[-1] else 'right'\n"
# Never answers, so its match ends in a timeout: asleep rather than spinning, which would burn a core until its
# time runs out (3 to 4 s of CPU a validation).
SLOW_BOT = b"import time\ndef act(observation):\n    time.sleep(60)\n"


def database_url() -> str:
    """The test database's URL, for the worker processes a test starts."""
    from django.db import connection

    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def stop_process(process, timeout: float = 30) -> None:
    """A warm shutdown (SIGTERM), then SIGKILL if it has not ended within `timeout` seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_for(predicate, timeout: float, what: str):
    """Poll `predicate` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out after {timeout}s waiting for {what}")


def play_now(match):
    """Run a queued match in this process, as a worker would."""
    from arena.matches import services

    claimed = services.claim(match.pk)
    assert isinstance(claimed, services.Claim)
    services.run(claimed)
    match.refresh_from_db()
    return match


def failing_on_the_platform(monkeypatch, broken) -> None:
    """Every attempt to play the match `broken` raises, as a platform bug would; other matches play as usual."""
    from arena.matches import runner

    real_play = runner.play

    def play(match, seats):
        if match.pk == broken.pk:
            raise RuntimeError("the sandbox engine fell over")
        return real_play(match, seats)

    monkeypatch.setattr(runner, "play", play)


def active_bot(owner, game="endgame", name="mine", code: bytes = EXAMPLE_BOT):
    """A bot of `owner` with one accepted version of `code` (as if validation had passed), ready to challenge."""
    import hashlib

    from arena.bots.models import Bot, BotVersion

    bot = Bot.objects.create(owner=owner, game=game, name=name)
    BotVersion.objects.create(bot=bot, number=1, filename="bot.py", code=code.decode(), size=len(code),
                              sha256=hashlib.sha256(code).hexdigest(), status=BotVersion.Status.ACCEPTED)
    return bot


def with_confirmed_email(user, address: str):
    """`user` with `address` as their e-mail, confirmed (as if they had opened the mailed link)."""
    from arena.accounts.models import profile_of

    user.email = address
    user.save(update_fields=["email"])
    profile = profile_of(user)
    profile.confirmed_email = address
    profile.save(update_fields=["confirmed_email"])
    return user


def free_port() -> int:
    """A TCP port nobody listens on now, for a server a test starts."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def session_processes(session_id: int) -> list[int]:
    """Every live process of the session `session_id` (a process started with start_new_session)."""
    from pathlib import Path

    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session_id and fields[0] != "Z":
            pids.append(int(stat.parent.name))
    return pids


def session_sandbox_containers(pids: list[int]) -> set[str]:
    """The sandbox containers that one of `pids` started (their owner label names the process)."""
    import docker

    from sandbox.base import local_owner_pid
    from sandbox.docker_backend import LABEL, OWNER_LABEL

    client = docker.from_env()
    try:
        # The list's own rows (not an inspection per container: other tests remove theirs meanwhile).
        return {row["Id"] for row in client.api.containers(all=True, filters={"label": LABEL})
                if local_owner_pid((row.get("Labels") or {}).get(OWNER_LABEL, "")) in pids}
    finally:
        client.close()


def signed_in_page(chromium, url: str, user, viewport: dict | None = None):
    """A new page of `chromium` with `user` signed in by the sign-in form (their password is the fixtures')."""
    page = chromium.new_page(viewport=viewport or {"width": 1280, "height": 900})
    page.set_default_timeout(BROWSER_TIMEOUT_MS)
    page.goto(f"{url}/accounts/login/")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", f"{user.username}-pass-1234")
    page.click("button[type=submit]")
    page.wait_for_url(lambda address: "/accounts/login/" not in address)
    return page

def end_streams_left_open() -> bool:
    """Ends the live streams the session's server still runs (their clients gone or not) and lets new ones
    start: True once they have all ended. A stream whose client closed learns of it only at its next write
    (a keepalive, up to ARENA_LIVE_KEEPALIVE_SECONDS later), and one of a test that set a long lifetime and
    polling kept reading its snapshot five times a second meanwhile, through later tests and their flushes."""
    from arena.core import live

    ending, live.streams = live.streams, live._StreamCount()  # a stream leaves the count it entered
    return ending.close_all(timeout=30)
