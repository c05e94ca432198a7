"""The platform is one package, `arena`: nothing imports the apps by their old top-level names, nothing edits
Python's path to find them, and a database made before the move upgrades with `migrate` alone."""

import ast
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
from io import BytesIO
from pathlib import Path

import pytest

from games.sprouts import book as sprouts_book
from required import require

ROOT = Path(__file__).resolve().parents[1]
# The apps were top-level modules (platform/ on sys.path) before they became arena.*; the layer apps are gone.
OLD_TOP_LEVEL = {"accounts", "bots", "matches", "ratings", "variants", "similarity", "tournaments", "grading",
                 "notifications", "api", "web"}
# arena was also a library of shared modules, now in arena.core.
OLD_ARENA_MODULES = {"arena.errors", "arena.cache", "arena.queue", "arena.logfilters"}
PYTHON_ROOTS = ["platform", "games", "sandbox", "tests", "bench", "scripts"]
# The last commit before the package move: its migrations made the databases that must upgrade.
BEFORE_THE_MOVE = "ca2934b"


def python_files() -> list[Path]:
    files = [ROOT / "manage.py", ROOT / "gunicorn.conf.py"]
    for folder in PYTHON_ROOTS:
        files += sorted((ROOT / folder).rglob("*.py"))
    return files


def imported_modules(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module
            for alias in node.names:  # `from arena import errors`
                yield node.lineno, f"{node.module}.{alias.name}"


def test_no_module_imports_the_apps_by_their_old_names():
    found = []
    for path in python_files():
        for line, module in imported_modules(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if module.split(".")[0] in OLD_TOP_LEVEL or any(
                    module == old or module.startswith(old + ".") for old in OLD_ARENA_MODULES):
                found.append(f"{path.relative_to(ROOT)}:{line}: {module}")
    assert not found, "old module names (use arena.<app> and arena.core):\n" + "\n".join(found)


def test_nothing_edits_the_python_path():
    """The package is found through its install (pip install ., or -e in a checkout): no code reaches for
    sys.path, and neither gunicorn, the image, the demo nor pytest (beyond its own helpers in tests/) adds one."""
    found = []
    for path in python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if (isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name)
                    and node.value.id == "sys"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: sys.path")
    for name in ["gunicorn.conf.py", "Dockerfile", "docker-compose.yml", "scripts/demo", "scripts/test",
                 "scripts/setup"]:
        text = (ROOT / name).read_text(encoding="utf-8")
        found += [f"{name}: {word}" for word in ("PYTHONPATH", "pythonpath") if word in text]
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found += [f"pyproject.toml: {line}" for line in pyproject.splitlines()
              if line.startswith("pythonpath") and line != 'pythonpath = ["tests"]']
    assert not found, "\n".join(found)


def test_the_soak_starts_as_documented_without_the_tests_on_the_path(tmp_path):
    """`python bench/soak.py` (docs/benchmarks.md) loads the tests' Celery lab itself, from anywhere."""
    tests = {str(ROOT / "tests"), str(ROOT / "tests" / "platform")}
    path = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry and entry not in tests]
    answer = subprocess.run([sys.executable, str(ROOT / "bench" / "soak.py"), "--help"], cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(path)}, capture_output=True, text=True,
                            timeout=120)
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.startswith("usage: soak.py") and "--kills" in answer.stdout


def database_tables(path: Path) -> dict:
    with sqlite3.connect(path) as db:
        return {
            "migrations": set(db.execute("SELECT app, name FROM django_migrations")),
            "content types": set(db.execute("SELECT id, app_label, model FROM django_content_type")),
            "permissions": set(db.execute("SELECT content_type_id, codename FROM auth_permission")),
        }


def manage(cwd: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.long  # two processes migrating an SQLite file
def test_a_database_made_before_the_package_move_upgrades_with_migrate_alone(tmp_path):
    has_commit = subprocess.run(["git", "cat-file", "-e", f"{BEFORE_THE_MOVE}^{{commit}}"], cwd=ROOT,
                                capture_output=True).returncode == 0
    require(has_commit, f"the repository's history back to {BEFORE_THE_MOVE} (a clone that is not shallow)")
    old = tmp_path / "before"
    old.mkdir()
    archive = subprocess.run(["git", "archive", "--format=tar", BEFORE_THE_MOVE, "manage.py", "platform", "games",
                              "sandbox"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(old, filter="data")
    database = tmp_path / "arena.sqlite3"
    common = {key: value for key, value in os.environ.items()
              if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "ARENA_CACHE_URL", "DJANGO_SETTINGS_MODULE")}
    common.update({"DATABASE_URL": f"sqlite:///{database}", "ARENA_VAR_DIR": str(tmp_path / "var"),
                   "SECRET_KEY": "package-move-test"})
    # The old manage.py puts its own platform/ and root first on the path: the old apps, not the package.
    made = manage(old, common, "migrate", "--noinput")
    assert made.returncode == 0, made.stderr
    with sqlite3.connect(database) as db:  # a course of that installation, to be read by the new code
        db.execute("INSERT INTO accounts_course (code, name, time_zone, invite_code, asks_student_id) "
                   "VALUES ('algo', 'Algorithms', 'Europe/Paris', 'old-invite', 0)")
    before = database_tables(database)

    upgraded = manage(ROOT, common, "migrate", "--noinput")
    assert upgraded.returncode == 0, upgraded.stderr
    after = database_tables(database)
    # Nothing applied again under another name, no content type or permission lost or renumbered (admins'
    # permissions and generic relations point at them by id); new migrations of later changes may be added.
    for table, rows in before.items():
        assert rows <= after[table], f"{table} lost: {sorted(rows - after[table])}"
    assert not {app for app, _ in after["migrations"] - before["migrations"]} & {"arena", "core"}
    # Nothing left to apply, no model change without its migration (`migrate --check` and `makemigrations
    # --check --dry-run`, which exit 1 otherwise), and the old course read by the new code: in one process, a
    # Django start-up each costing a second or two of CPU.
    read = manage(ROOT, common, "shell", "--no-imports", "-c",
                  "from django.core.management import call_command; "
                  "call_command('migrate', check_unapplied=True); "
                  "call_command('makemigrations', check_changes=True, dry_run=True); "
                  "from arena.accounts.models import Course; course = Course.objects.get(code='algo'); "
                  "print(type(course).__module__, course.name, course.invite_code)")
    assert read.returncode == 0, read.stdout + read.stderr
    assert read.stdout.split()[-3:] == ["arena.accounts.models", "Algorithms", "old-invite"], read.stdout


def test_a_game_package_keeps_its_registry_name_and_shadows_no_builtin():
    """games.sorted_game plays "sorted" (the name stored in matches and replays); importing it binds no
    `sorted` in the games package, where the built-in is used."""
    import games

    assert games.get_game("sorted").name == "sorted"
    assert "sorted" not in vars(games)


@pytest.mark.slow
def test_pip_install_into_a_fresh_virtual_environment_runs_the_platform_from_any_folder(tmp_path):
    """Issue 28's 'done when': `pip install .` into a new virtual environment, then the platform's command from
    another folder with no PYTHONPATH: its checks pass, its migrations (package data) build a database, its
    templates render the sign-in page and its static files are found. Installed from a copy of the checkout's
    files, so the build's own folders never land in the tree other tests read."""
    source = tmp_path / "source"
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    installed = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(source)], capture_output=True,
                               text=True, timeout=900)
    assert installed.returncode == 0, installed.stderr[-3000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE", "VIRTUAL_ENV")}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'site.sqlite3'}", ARENA_VAR_DIR=str(tmp_path / "var"))

    def admin(*args: str) -> str:
        done = subprocess.run([str(venv / "bin" / "arena-admin"), *args], cwd=elsewhere, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"arena-admin {' '.join(args)}:\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
        return done.stdout

    assert "no issues" in admin("check")
    admin("migrate", "--no-input")
    assert str(venv) in admin("findstatic", "core/live.js")  # served from the installed package
    # The Sprouts opening book is package data too: the installed analysis answers the openings from it.
    printed = admin("shell", "-c", "from games.sprouts import book; print(book.BOOK_PATH, len(book.read()))")
    path, openings = printed.splitlines()[-1].split()
    assert path.startswith(str(venv)) and int(openings) == len(sprouts_book.read())
    page = admin("shell", "-c", "from django.test import Client; "
                                "print(Client().get('/accounts/login/', HTTP_HOST='localhost').content.decode())")
    assert 'name="password"' in page
