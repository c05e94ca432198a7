"""A bot at a person's table keeps its memory between its decisions, as in a match (arena.tables): the host's seat
holder keeps its process, and a bot it does not hold is started afresh and told the game so far from the
database, so a worker restarted mid-game loses nothing."""

import os
import signal
from datetime import timedelta

import pytest
from django.conf import settings
from games import get_game
from games.bots import make_player
from games.referee import InProcessPlayer, play_match
from games.table import Table as GameTable

from arena.bots.models import Bot
from arena.tables import services
from arena.tables.models import Table
from arena.tables.services import SeatChoice
from celery_lab import CeleryProcess
from platform_helpers import active_bot, database_url, wait_for
from required import require

ENDGAME = get_game("endgame")
BOARD = [-1, 3, 9, 4, 7, 2]
# A bot that keeps state: it remembers every board it was shown (and refuses to go on if its memory does not
# fit the board it is shown now), and plays left, right, left... by the count of its own decisions. Started
# afresh with nothing told, it would play left every time.
MEMORY_CHECK = (
    b"seen = []\n\n"
    b"def act(observation):\n"
    b"    board = observation['board']\n"
    b"    if seen and len(seen[-1]) != len(board) + 2:\n"
    b"        raise RuntimeError(f'my memory {seen} does not lead to {board}')\n"
    b"    seen.append(board)\n"
)
REMEMBERING_BOT = MEMORY_CHECK + b"    return 'left' if len(seen) % 2 else 'right'\n"
# What it plays first against a person who always takes the left end of BOARD, in a match as at a table.
REMEMBERED_GAME = [{"seat": 0, "action": "left"}, {"seat": 1, "action": "left"}, {"seat": 0, "action": "right"},
                   {"seat": 1, "action": "left"}, {"seat": 0, "action": "left"}, {"seat": 1, "action": "left"}]


class TakesTheLeftEnd:
    def act(self, observation):
        return "left"


def reread(table):
    return Table.objects.get(pk=table.pk)


def in_a_match(bot_file, seed, board=BOARD):
    """The events of a match of `bot_file` (seat 0) against a player who always takes the left end."""
    players = [make_player(ENDGAME, str(bot_file), sandbox="none"), InProcessPlayer("left", TakesTheLeftEnd())]
    return play_match(ENDGAME, players, config={"board": board}, seed=seed).replay["events"]


def play_against(table, person, *, forget=False):
    """Play the person's seat (always the left end) and the bots' turns here, as the worker would, to the end;
    with `forget`, the seat holder lets go of the bots after each of their turns (their next decision starts
    them afresh)."""
    while reread(table).status == Table.Status.PLAYING:
        services.play_bot_turns(table.pk)
        if forget:
            services.release_bots(table.pk)
        table = reread(table)
        if table.status == Table.Status.PLAYING:
            services.move(table, person, len(table.facts["events"]), "left")
    return reread(table)


@pytest.mark.django_db
def test_a_bot_that_keeps_state_plays_at_a_table_as_in_a_match(make_user, in_process_sandbox, tmp_path):
    ada = make_user("ada")
    table = services.open_table(ada, "endgame", [SeatChoice(bot=active_bot(ada, code=REMEMBERING_BOT)),
                                                 SeatChoice(user=ada)], config={"board": BOARD}, seed=11)
    table = play_against(table, ada)
    (tmp_path / "bot.py").write_bytes(REMEMBERING_BOT)
    assert table.facts["events"] == in_a_match(tmp_path / "bot.py", 11) == REMEMBERED_GAME
    assert services.finished_replay(table)["result"]["statuses"] == ["ok", "ok"]


@pytest.mark.django_db
def test_a_seeded_builtin_at_a_table_draws_as_in_a_match_with_the_tables_seed(make_user):
    ada = make_user("ada")
    board = list(range(16))
    randomly = services.open_table(ada, "endgame", [SeatChoice(bot=Bot.objects.builtin("endgame", "random")), SeatChoice(user=ada)],
                                   config={"board": board}, seed=2024)
    randomly = play_against(randomly, ada)
    players = [make_player(ENDGAME, "builtin:random", sandbox="none", seed=2024, seat=0),
               InProcessPlayer("left", TakesTheLeftEnd())]
    assert randomly.facts["events"] == play_match(ENDGAME, players, config={"board": board}, seed=2024).replay["events"]


@pytest.mark.django_db
@pytest.mark.parametrize("misbehaviour, verdict", [("raise RuntimeError('deliberate')", "crash"),
                                                    ("os.kill(os.getpid(), 9)", "crash")])
def test_a_bot_that_misbehaves_only_while_catching_up_gets_its_verdict_not_a_platform_error(
        make_user, in_process_sandbox, tmp_path, misbehaviour, verdict):
    ada = make_user("ada")
    # Sandbox 'none' lets the bot leave a mark on this host: it knows when it is started again. (A bot that
    # sleeps then is stopped by its time limits as in a match: tests/games/test_table.py.)
    code = (f"import os, time\nMARK = {str(tmp_path / 'started')!r}\nagain = os.path.exists(MARK)\n"
            "open(MARK, 'a').close()\ncalls = 0\n\ndef act(observation):\n    global calls\n    calls += 1\n"
            f"    if again and calls == 1:\n        {misbehaviour}\n    return 'left'\n")
    table = services.open_table(ada, "endgame", [SeatChoice(bot=active_bot(ada, code=code.encode())),
                                                 SeatChoice(user=ada)], config={"board": BOARD})
    table = play_against(table, ada, forget=True)
    assert table.facts["events"] == [{"seat": 0, "action": "left"}, {"seat": 1, "action": "left"},
                                     {"seat": 0, "verdict": verdict}]
    assert table.winners == [1] and "when told again its decision 1 of 1" in table.facts["details"][0]


@pytest.mark.django_db
def test_the_sweep_waits_as_long_as_a_late_decision_may_last_before_sending_it_again(make_user, monkeypatch):
    """Late in a long game a bot's decision, told all its earlier ones, may last longer than the sweep's minute:
    the sweep does not send it again while it may still be running (it would be played twice at once)."""
    ada = make_user("ada")
    table = services.open_table(ada, "endgame", [SeatChoice(bot=Bot.objects.builtin("endgame", "greedy")),
                                                 SeatChoice(user=ada)], config={"length": 200})
    game_table = GameTable.from_json(table.facts)
    greedy = make_player(ENDGAME, "builtin:greedy", sandbox="none")
    for _ in range(60):  # 60 decisions of the bot: the next one may last 5 + 61 x 1 + 10 = 76 s
        game_table.bot_move(greedy)
        game_table.human_move(1, game_table.turn, "left")
    Table.objects.filter(pk=table.pk).update(facts=game_table.to_json())
    sent = []
    monkeypatch.setattr(services, "_send_bot_turn", lambda table: sent.append(table.pk))
    now = reread(table).updated_at
    services.resume_tables(now=now + timedelta(seconds=70))
    assert sent == []
    services.resume_tables(now=now + timedelta(seconds=80))
    assert sent == [table.pk]


# --- the real thing: a worker in the Docker sandbox, restarted mid-game ----------------------------------------
QUEUE = f"arena-tables-memory-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"


@pytest.fixture
def table_worker(django_db_setup, sandbox_backend, tmp_path, monkeypatch):
    """Starters of `celery -A arena worker` processes on a queue of this test's own (the tables' tasks are sent
    there), in the real sandbox, on the test database; all stopped after the test."""
    from django.db import connection, transaction

    from arena.celery import app

    require(connection.vendor == "postgresql", "PostgreSQL (the worker processes share the test database)")
    monkeypatch.setattr(services, "publish_on_commit", lambda name, *args, **options: transaction.on_commit(
        lambda: app.send_task(name, args=args, queue=QUEUE)))
    env = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
           "ARENA_QUEUE": QUEUE, "ARENA_VAR_DIR": str(settings.VAR_DIR), "ARENA_SANDBOX": sandbox_backend,
           "SECRET_KEY": settings.SECRET_KEY}
    app.control.purge()
    started = []

    def start(name):
        started.append(CeleryProcess.worker(name, QUEUE, env, tmp_path))
        return started[-1]

    yield start
    for process in started:
        process.stop()


@pytest.mark.django_db(transaction=True)
def test_a_sandboxed_bot_keeps_its_memory_across_a_worker_restart_mid_game(make_user, table_worker):
    ada = make_user("ada")
    first = table_worker("first")
    table = services.open_table(ada, "endgame", [SeatChoice(bot=active_bot(ada, code=REMEMBERING_BOT)),
                                                 SeatChoice(user=ada)], config={"board": BOARD}, move_seconds=None)
    wait_for(lambda: len(reread(table).facts["events"]) == 1, 120, "the bot's first decision, by the first worker")
    first.stop()  # the restart: the host's seat holder still keeps the bot
    # And the holder is lost too: nothing of the game is left in any process, the bot is caught up once.
    os.kill(services.holder().status()["pid"], signal.SIGKILL)
    services.move(reread(table), ada, 1, "left")
    table_worker("second")
    wait_for(lambda: len(reread(table).facts["events"]) == 3, 120, "the bot's second decision, by a new worker")
    services.move(reread(table), ada, 3, "left")
    wait_for(lambda: len(reread(table).facts["events"]) == 5, 120, "the bot's third decision")
    services.move(reread(table), ada, 5, "left")
    table = reread(table)
    assert table.status == Table.Status.FINISHED and table.facts["events"] == REMEMBERED_GAME
    assert table.facts["details"] == ["", ""]
