"""Fixtures for the platform tests: users, bots, and a live Celery worker on the real broker.

Run with `--ds=arena.settings` and `platform` on the Python path (pyproject.toml sets both). Under CI
(CI=true) a missing PostgreSQL, Redis or Docker fails the tests instead of skipping them.
"""

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from arena.celery import app as celery_app
from platform_helpers import (BROWSER_TIMEOUT_MS, CHROMIUM, CHROMIUM_ARGS, database_url,
                              end_streams_left_open, stop_process, wait_for)
from required import IN_CI, require

ROOT = Path(__file__).resolve().parents[2]
WORKER_ID = os.environ.get("PYTEST_XDIST_WORKER", "main")
# One queue per xdist worker: each pytest worker talks only to its own Celery worker, and only during the tests
# that ask for it (`live_worker`). The others' tasks (a transactional test's commits send them) go to a queue
# nobody consumes: the session's worker, once started, would otherwise play a later test's matches behind its
# back (a grading run played in the test's own process found its games taken, then the flush deadlocked).
QUEUE = f"arena-test-{WORKER_ID}"
UNATTENDED_QUEUE = f"arena-test-{WORKER_ID}-unattended"
celery_app.conf.task_default_queue = UNATTENDED_QUEUE


@pytest.fixture(scope="session", autouse=True)
def ci_services():
    """In CI the database must be PostgreSQL and the broker Redis: never silently the embedded ones."""
    if IN_CI:
        assert settings.DATABASES["default"]["ENGINE"].endswith("postgresql"), "CI needs DATABASE_URL=postgres://..."
        assert settings.CELERY_BROKER_URL.startswith("redis://"), "CI needs CELERY_BROKER_URL=redis://..."


@pytest.fixture(scope="session", autouse=True)
def fast_password_hashing():
    """Passwords hashed with MD5 in the tests (Django's advice for test settings): production's PBKDF2 costs a
    quarter of a second of CPU per hash, by design, and every user a test makes or signs in pays it. What the
    tests check of passwords (accepted, refused, changed, reset) does not depend on the algorithm."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(scope="session")
def live_server(live_server, django_db_setup):
    """pytest-django's test server, whose live streams (arena.core.live) end before the test database is
    dropped: a stream thread outlives its test (the server's threads are daemons) and would otherwise still
    read a database being dropped, or keep it open ("being accessed by other users")."""
    from arena.core import live

    yield live_server
    assert live.stop_streams(timeout=30), "live streams still running after 30 s"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    """A test of the session's live server leaves it as it found it: no stream of its own still running,
    ended before its fixtures' teardown (a transactional test's flush) rather than in a later test."""
    if "live_server" in getattr(item, "fixturenames", ()):
        assert end_streams_left_open(), "live streams of this test still running 30 s after they were told to end"
    return (yield)


@pytest.fixture(scope="session")
def sandbox_backend():
    """The real Docker sandbox, as in production (the engine answering, with the bot image built)."""
    import sandbox

    require(sandbox.docker_ready(), "Docker with the sandbox image (python -m sandbox.image build)")
    return "docker"


# What a failed test adds to its report (pytest_runtest_makereport): titled texts, read once it has failed.
FAILURE_NOTES = pytest.StashKey[list]()


def add_failure_note(item: pytest.Item, title: str, read) -> None:
    """On `item`'s failure, its report shows `read()` under `title`: what the live parts saw, which a CI run's
    output otherwise never shows (the worker's log is a file of the machine that ran it)."""
    item.stash.setdefault(FAILURE_NOTES, []).append((title, read))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed and call.when == "call":
        for title, read in item.stash.get(FAILURE_NOTES, []):
            try:
                text = read()
            except Exception as error:  # noqa: BLE001 - a note that cannot be read must not hide the failure
                text = f"(could not be read: {error!r})"
            report.sections.append((title, text))
    return report


def tail(text: str, lines: int = 40, width: int = 240) -> str:
    return "\n".join(line[:width] for line in text.splitlines()[-lines:]) or "(nothing)"


@pytest.fixture
def live_worker(live_worker_process, request):
    """The session's real Celery worker, playing what this test sends (see QUEUE)."""
    log_path, worker = live_worker_process.log_path, live_worker_process
    start = log_path.stat().st_size

    def log_since_start():
        with open(log_path, errors="replace") as log:
            log.seek(start)
            alive = "running" if worker.poll() is None else f"exited with {worker.returncode}"
            return f"(the worker is {alive}; its log during the test:)\n{tail(log.read())}"

    add_failure_note(request.node, "live Celery worker", log_since_start)
    celery_app.conf.task_default_queue = QUEUE
    yield live_worker_process
    celery_app.conf.task_default_queue = UNATTENDED_QUEUE


@pytest.fixture(scope="session")
def live_worker_process(django_db_setup, django_db_blocker, sandbox_backend, tmp_path_factory):
    """A real `celery -A arena worker` process on this xdist worker's queue, using the test database."""
    require(connection.vendor == "postgresql", "PostgreSQL (the worker process shares the test database)")
    log_path = tmp_path_factory.mktemp("celery") / "worker.log"
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "ARENA_QUEUE": QUEUE,
        "ARENA_VAR_DIR": str(settings.VAR_DIR),
        "ARENA_SANDBOX": sandbox_backend,
        "SECRET_KEY": settings.SECRET_KEY,
    }
    celery_app.control.purge()  # messages a previous, interrupted run left on this queue
    with open(log_path, "w") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "arena", "worker", "-Q", QUEUE, "-n", f"{QUEUE}@%h",
             "--concurrency", "2", "--loglevel", "INFO", "--without-gossip", "--without-mingle"],
            env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        wait_for(lambda: "ready." in log_path.read_text() or worker.poll() is not None, 60, "the Celery worker")
        assert worker.poll() is None, f"the Celery worker exited:\n{log_path.read_text()[-3000:]}"
        worker.log_path = log_path
        yield worker
    finally:
        stop_process(worker)
        print(f"Celery worker log: {log_path}")


@pytest.fixture(autouse=True)
def fresh_rate_limits(settings):
    """Each test counts requests against the (real) rate limits from zero: a cache key prefix of its own, in
    the same cache the platform uses (Redis under CI), so parallel tests never share a count."""
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}


@pytest.fixture
def make_user(django_user_model):
    def make(username: str, **extra):
        return django_user_model.objects.create_user(username=username, password=f"{username}-pass-1234", **extra)

    return make


@pytest.fixture
def signed_in(client, make_user):
    """The student ada, signed in on the test `client` (the site's pages)."""
    user = make_user("ada")
    client.force_login(user)
    return user


@pytest.fixture
def ada(make_user, api_client):
    """The student ada, signed in on `api_client`."""
    user = make_user("ada")
    api_client.force_authenticate(user)
    return user


@pytest.fixture
def in_process_sandbox(settings):
    """Run file bots as plain child processes: for tests of our own trusted example bots without a worker."""
    settings.ARENA_SANDBOX = "none"


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def chromium(request):
    """Debian's chromium driven by Playwright (never a downloaded browser). A failed test's report shows what
    its pages met: where they were, their script errors, and requests that failed or were answered with an
    error."""
    require(shutil.which(CHROMIUM) is not None, "chromium at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    troubles: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        new_context = browser.new_context

        def watched_context(*args, **kwargs):
            context = new_context(*args, **kwargs)
            context.on("page", lambda page: watch(page, troubles))
            return context

        browser.new_context = watched_context
        add_failure_note(request.node, "browser", lambda: tail("\n".join(
            [*(f"a page at {page.url}" for context in browser.contexts for page in context.pages), *troubles])))
        yield browser
        browser.close()


def watch(page, troubles: list[str]) -> None:
    page.on("console", lambda message: message.type == "error" and troubles.append(f"console: {message.text}"))
    page.on("pageerror", lambda error: troubles.append(f"script error: {error}"))
    page.on("requestfailed", lambda req: troubles.append(f"failed: {req.method} {req.url} ({req.failure})"))
    page.on("response", lambda response: response.status >= 400 and troubles.append(
        f"answered {response.status}: {response.request.method} {response.url}"))


@pytest.fixture
def browser_page(chromium):
    """A page of that browser. The site's Content-Security-Policy is bypassed for the tests' own probes
    (Playwright's wait_for_function evaluates a string, which a policy without 'unsafe-eval' forbids); the
    site's scripts under the policy are tested in test_replay_browser.py."""
    page = chromium.new_context(bypass_csp=True).new_page()
    page.set_default_timeout(BROWSER_TIMEOUT_MS)
    return page


@pytest.fixture
def smtp_server(settings):
    """A real SMTP server on this machine (aiosmtpd), and the site sending through it as production does
    (EMAIL_URL): yields its Mailbox of received mail. The site's links point at the test server's address
    (`live_server` tests set ARENA_SITE_URL to theirs)."""
    from arena.settings import email_from_url
    from mail_helpers import start_smtp_server

    controller, mailbox = start_smtp_server()
    for name, value in email_from_url(f"smtp://{controller.hostname}:{controller.port}").items():
        setattr(settings, name, value)
    try:
        yield mailbox
    finally:
        controller.stop()
