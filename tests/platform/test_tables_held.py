"""A table's bots kept running between their decisions by the host's seat holder (sandbox/holder.py): started
once per table, not replayed at each move; the game is the same as when they replay; a lost holder costs one
replay; released at the table's end and after their idle time; their faults are their verdicts as before."""

import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest
from games import get_game
from games.bots import make_player
from games.referee import InProcessPlayer, play_match
from platform_helpers import active_bot, wait_for

from arena.tables import services
from arena.tables.models import Table
from arena.tables.services import SeatChoice
from test_tables_memory import MEMORY_CHECK
from sandbox.holder import HolderUnavailable

pytestmark = pytest.mark.django_db

ENDGAME = get_game("endgame")
BOARD = [-1, 3, 9, 4, 7, 2, 8, -5, 6, 1, 0, 5, 4, 11]
# A bot that keeps state (test_tables_memory's), playing by the count of its own decisions: left, right, right,
# left... It refuses to go on if its memory does not lead to the board it is shown now: a bot told another table's
# or seat's game, or told its past wrongly, crashes.
REMEMBERING_BOT = MEMORY_CHECK + (
    b"    return 'left' if len(seen) % 3 == 1 else 'right'\n"
)


class TakesTheLeftEnd:
    def act(self, observation):
        return "left"


def reread(table):
    return Table.objects.get(pk=table.pk)


@pytest.fixture
def holder(monkeypatch, settings):
    """This test's own seat holder (its folder, hence its process): status and kill at will; stopped after."""
    folder = Path(tempfile.mkdtemp(prefix="arena-held-test-"))  # short: a socket's path has at most 107 bytes
    monkeypatch.setenv("ARENA_TABLE_HOLDER_DIR", str(folder / "holder"))
    yield services.holder
    try:
        client = services.holder()
        pid = client.status()["pid"]
        client.release("")
        os.kill(pid, signal.SIGKILL)
    except (HolderUnavailable, ProcessLookupError):
        pass
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def sent(monkeypatch):
    """The tasks the tables' services publish (name, args), run by nobody unless the test does."""
    published = []
    monkeypatch.setattr(services, "publish_on_commit", lambda name, *args, **options: published.append((name, args)))
    return published


def held(holder, table) -> dict:
    """What the holder keeps for `table`'s bot at seat 0 (None if nothing), with its starts."""
    try:
        status = holder().status()
    except HolderUnavailable:
        return {"held": None, "starts": 0, "pid": None}
    key = services.held_key(table.pk, 0)
    return {"held": status["held"].get(key), "starts": status["starts"].get(key, 0), "pid": status["pid"]}


def alive(pid) -> bool:
    """Whether process `pid` runs (a zombie is dead: only its parent has not read its status yet)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def open_against(person, code=REMEMBERING_BOT, board=BOARD, seed=11, name="mine"):
    return services.open_table(person, "endgame", [SeatChoice(bot=active_bot(person, code=code, name=name)),
                                                   SeatChoice(user=person)],
                               config={"board": board}, seed=seed, move_seconds=None)


def one_round(table, person):
    """The bots' turns, then the person's (always the left end) if the game goes on; the table reread."""
    services.play_bot_turns(table.pk)
    table = reread(table)
    if table.status == Table.Status.PLAYING:
        services.move(table, person, len(table.facts["events"]), "left")
    return reread(table)


def in_a_match(tmp_path, code=REMEMBERING_BOT, board=BOARD, seed=11):
    """The events of a match of `code` (seat 0) against a player who always takes the left end."""
    (tmp_path / "bot.py").write_bytes(code)
    players = [make_player(ENDGAME, str(tmp_path / "bot.py"), sandbox="none"),
               InProcessPlayer("left", TakesTheLeftEnd())]
    return play_match(ENDGAME, players, config={"board": board}, seed=seed).replay["events"]


def test_a_seats_bot_is_started_once_and_kept_for_the_whole_table_then_released(
        make_user, in_process_sandbox, holder, sent, tmp_path):
    ada = make_user("ada")
    table = open_against(ada)
    seen = []
    while table.status == Table.Status.PLAYING:
        table = one_round(table, ada)
        if table.status == Table.Status.PLAYING:
            seen.append(held(holder, table))
    assert len(seen) == len(BOARD) // 2 - 1
    assert [entry["starts"] for entry in seen] == [1] * len(seen)  # never started again, never replayed
    assert [entry["held"]["told"] for entry in seen] == list(range(1, len(seen) + 1))
    sandboxes = {entry["held"]["sandbox"] for entry in seen}
    assert len(sandboxes) == 1  # one process for the whole table
    assert table.facts["events"] == in_a_match(tmp_path)
    assert table.facts["details"] == ["", ""]
    # The person's last move ended the table: the task it sends to a worker releases the bot, its process gone.
    assert sent[-1] == ("tables.tasks.release_bots", (table.pk,))
    assert services.release_bots(table.pk) == 1
    assert held(holder, table)["held"] is None and not alive(int(sandboxes.pop()))


def test_the_game_is_the_same_whether_the_bot_is_kept_or_replayed(make_user, in_process_sandbox, holder, settings):
    ada = make_user("ada")
    kept = open_against(ada, seed=5)
    while kept.status == Table.Status.PLAYING:
        kept = one_round(kept, ada)
    settings.ARENA_TABLE_HOLD = False
    replayed = open_against(ada, seed=5, name="again")
    while replayed.status == Table.Status.PLAYING:
        replayed = one_round(replayed, ada)
    assert held(holder, replayed)["starts"] == 0  # the replay path never asked the holder
    assert kept.facts["events"] == replayed.facts["events"] and kept.winners == replayed.winners
    assert kept.facts["details"] == replayed.facts["details"] == ["", ""]


def test_two_tables_of_one_bot_and_seed_each_keep_their_own_process(make_user, in_process_sandbox, holder, tmp_path):
    ada, ben = make_user("ada"), make_user("ben")
    other_board = [5, 1, 7, 2, 9, 3, 4, 8]
    first, second = open_against(ada, seed=3), open_against(ben, board=other_board, seed=3)
    while first.status == Table.Status.PLAYING or second.status == Table.Status.PLAYING:
        first, second = one_round(first, ada), one_round(second, ben)
        both = [held(holder, table)["held"] for table in (first, second)]
        if all(both):
            assert both[0]["sandbox"] != both[1]["sandbox"]
    assert first.facts["events"] == in_a_match(tmp_path, seed=3)
    assert second.facts["events"] == in_a_match(tmp_path, board=other_board, seed=3)


def test_a_lost_holder_costs_one_replay_then_the_bot_is_kept_again(make_user, in_process_sandbox, holder, tmp_path):
    from sandbox.local_backend import cleanup_leftovers

    ada = make_user("ada")
    table = one_round(one_round(open_against(ada), ada), ada)
    before = held(holder, table)
    assert before["starts"] == 1 and before["held"]["told"] == 2
    os.kill(before["pid"], signal.SIGKILL)  # the holder dies with the bot it kept
    wait_for(lambda: not alive(before["pid"]), 30, "the killed holder to be gone")
    table = one_round(table, ada)
    after = held(holder, table)
    assert after["pid"] != before["pid"] and after["starts"] == 1 and after["held"]["told"] == 3  # caught up once
    table = one_round(table, ada)
    assert held(holder, table)["starts"] == 1 and held(holder, table)["held"]["sandbox"] == after["held"]["sandbox"]
    while table.status == Table.Status.PLAYING:
        table = one_round(table, ada)
    assert table.facts["events"] == in_a_match(tmp_path) and table.facts["details"] == ["", ""]
    # The dead holder's bot is the sweep's, as a dead worker's is.
    orphan = int(before["held"]["sandbox"])
    cleanup_leftovers()
    wait_for(lambda: not alive(orphan), 30, "the dead holder's bot to be swept")


def test_a_bot_idle_past_its_deadline_is_released_and_replayed_once_at_its_next_decision(
        make_user, in_process_sandbox, holder, settings, tmp_path):
    settings.ARENA_TABLE_HOLD_SECONDS = 0.5
    ada = make_user("ada")
    table = one_round(one_round(open_against(ada), ada), ada)
    first = held(holder, table)
    pid = int(first["held"]["sandbox"])
    wait_for(lambda: not alive(pid), 30, "the idle bot's process to be gone")
    # With nothing held, the holder itself goes after its idle time.
    wait_for(lambda: not alive(first["pid"]), 30, "the idle holder to be gone")
    while table.status == Table.Status.PLAYING:
        table = one_round(table, ada)
    assert table.facts["events"] == in_a_match(tmp_path) and table.facts["details"] == ["", ""]


@pytest.mark.parametrize("misbehaviour, verdict", [
    ("raise RuntimeError('deliberate')", "crash"),
    ("os.kill(os.getpid(), 9)", "crash"),
    ("time.sleep(60)", "timeout"),
    ("return 'middle'", "illegal"),
])
def test_a_held_bots_fault_is_its_verdict_and_its_process_goes(make_user, in_process_sandbox, holder,
                                                                misbehaviour, verdict):
    ada = make_user("ada")
    code = ("import os, time\ncalls = 0\n\ndef act(observation):\n    global calls\n    calls += 1\n"
            f"    if calls == 3:\n        {misbehaviour}\n    return 'left'\n")
    table = one_round(one_round(open_against(ada, code=code.encode()), ada), ada)
    pid = int(held(holder, table)["held"]["sandbox"])
    table = one_round(table, ada)
    assert table.facts["events"][-1] == {"seat": 0, "verdict": verdict} and len(table.facts["events"]) == 5
    assert table.status == Table.Status.FINISHED and table.winners == [1]
    assert "when told again" not in table.facts["details"][0]  # it failed deciding, not catching up
    assert held(holder, table)["held"] is None
    wait_for(lambda: not alive(pid), 30, "the failed bot's process to be gone")


def test_a_held_bot_in_a_warm_container_keeps_its_container_and_gives_it_back_at_the_end(
        make_user, sandbox_backend, holder, sent, settings, tmp_path):
    import docker

    from sandbox.base import waiting_in_shared_pool

    settings.ARENA_SANDBOX, settings.ARENA_WARM_SANDBOX = sandbox_backend, True
    ada = make_user("ada")
    table = open_against(ada)
    containers = set()
    while table.status == Table.Status.PLAYING:
        table = one_round(table, ada)
        if table.status == Table.Status.PLAYING:
            entry = held(holder, table)
            assert entry["starts"] == 1
            containers.add(entry["held"]["sandbox"])
    assert len(containers) == 1
    assert table.facts["events"] == in_a_match(tmp_path) and table.facts["details"] == ["", ""]
    container = containers.pop()
    assert services.release_bots(table.pk) == 1 and held(holder, table)["held"] is None

    def given_back():
        try:
            docker.from_env().containers.get(container)
        except docker.errors.NotFound:
            return True
        return waiting_in_shared_pool(container)

    wait_for(given_back, 30, "the container back in the warm pool, idle, or removed")


def test_two_seats_of_one_bot_at_one_table_are_two_processes_each_told_its_own_seat_only(
        make_user, in_process_sandbox, holder, tmp_path):
    ada = make_user("ada")
    mine = active_bot(ada, code=REMEMBERING_BOT)
    table = services.open_table(ada, "endgame", [SeatChoice(bot=mine), SeatChoice(bot=mine)],
                                config={"board": BOARD}, seed=4)
    assert services.play_bot_turns(table.pk) == len(BOARD)  # the whole game, no person to wait for
    table = reread(table)
    (tmp_path / "bot.py").write_bytes(REMEMBERING_BOT)
    players = [make_player(ENDGAME, str(tmp_path / "bot.py"), sandbox="none") for _ in range(2)]
    assert table.facts["events"] == play_match(ENDGAME, players, config={"board": BOARD}, seed=4).replay["events"]
    assert table.facts["details"] == ["", ""] and holder().status()["held"] == {}  # released at the end
