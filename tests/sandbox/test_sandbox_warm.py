"""The warm Docker path's own promises: a container serves one bot version of one owner, nothing of one
match reaches the next in the same container, misbehaving containers are discarded, the pool is bounded.

The attacks here are those only a reused container invites; each fails if the supervisor's reset
(sandbox/supervisor.py: kill every process, empty /tmp and /dev/mqueue, remove System V IPC) is removed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_testkit import BOTS, LIMITS, bot_file, leftovers, play, report

import sandbox
from sandbox.base import one_sweep_at_a_time
from games import get_game
from games.bots import builtin_player
from games.referee import play_match, seated
from sandbox.docker_backend import client
from sandbox.pool import WarmPool


def stored(log: str) -> dict:
    """What the remembering bot last said it had stored, and where."""
    lines = [line for line in log.splitlines() if line.startswith("STORED ")]
    assert lines, f"the bot stored nothing; its log:\n{log}"
    return json.loads(lines[-1][len("STORED "):])


def two_matches(bot, opponents=("greedy", "greedy")):
    """Two matches of `bot` in a row on the warm path; the second must run in the first's container."""
    game = get_game("endgame")
    first = play("docker-warm", bot, opponent=builtin_player(game, opponents[0]))
    second = play("docker-warm", bot, opponent=builtin_player(game, opponents[1]))
    assert (second.reused, second.sandbox_id) == (True, first.sandbox_id), "the container was not reused"
    return first, second


# channel: where the bot stored what it learned in its first match (each must have worked, or the
# test proves nothing) and where it must have been refused.
CHANNELS = {
    "daemon": ({"daemon"}, set()),
    "files": ({"tmp"}, {"home"}),  # the home folder (/nonexistent) is on the read-only root
    "shm": ({"sysv", "mqueue"}, {"dev/shm"}),  # no /dev/shm (ipc_mode none); System V and mqueues exist
}


@pytest.mark.parametrize("channel", sorted(CHANNELS))
def test_nothing_a_bot_leaves_behind_reaches_its_next_match(docker_image, tmp_path, channel):
    worked, refused = CHANNELS[channel]
    places = {"files": ["tmp", "home"]}.get(channel, [channel])
    first, second = two_matches(bot_file("remember", tmp_path, CHANNELS=places))

    assert first.status == "ok", first.detail
    assert {name for name, result in stored(first.log).items() if result == "done"} == worked
    assert all(stored(first.log)[name].startswith("refused") for name in refused)
    assert report(second.log)["recalled"] == {}
    assert leftovers("docker-warm", second.sandbox_id) == []


def test_a_bot_does_not_learn_its_opponent_from_its_previous_match(docker_image, tmp_path):
    bot = bot_file("remember", tmp_path, CHANNELS=["daemon", "tmp", "home", "shm"])
    first, second = two_matches(bot, opponents=("greedy", "parity"))

    assert first.status == second.status == "ok"
    assert sum(result == "done" for result in stored(first.log).values()) == 4
    assert report(first.log)["recalled"] == {}
    assert report(second.log)["recalled"] == {}, "the bot remembered its previous opponent"


def test_a_bot_draws_new_random_numbers_in_each_match_of_its_container(docker_image):
    """Each match's harness is a fork of the container's zygote, not a new interpreter: the bot's
    `random` must still start from a new seed each time, or it would play the same match again."""
    first, second = two_matches(BOTS / "introspect.py")

    assert report(first.log)["random"] != report(second.log)["random"]


def test_a_bot_cannot_reach_the_supervisor(docker_image):
    first, second = two_matches(BOTS / "attack_supervisor.py")
    attempts = report(first.log)

    assert first.status == second.status == "ok", first.detail
    assert all(result.startswith("refused") for result in attempts.values()), attempts


def play_in(pool: WarmPool, bot, key: str, limits=LIMITS):
    player = pool.player(str(bot), key=key, limits=limits)
    result = play_match(get_game("endgame"), [player, builtin_player(get_game("endgame"), "greedy")], seed=3)
    return result.players[0], player


def containers_of(pool_ids) -> list[str]:
    """Which of these containers still exist (the low-level list: other tests' containers come and go)."""
    return [c["Id"] for c in client().api.containers(all=True, filters={"label": "arena.sandbox"}) if c["Id"] in pool_ids]


def test_a_container_serves_only_its_own_key_bot_file_and_limits(docker_image, tmp_path):
    bot = bot_file("first_legal", tmp_path)
    pool = WarmPool(max_containers=8)
    try:
        seen = []
        for key, limits in [("version:a:alice", LIMITS), ("version:a:alice", LIMITS), ("version:a:bob", LIMITS),
                            ("version:a:alice", sandbox.Limits(**{**LIMITS.__dict__, "memory_mb": 96}))]:
            seat, player = play_in(pool, bot, key, limits)
            assert seat.status == "ok", seat.detail
            seen.append((player.sandbox_id, player.reused))
        bot.write_text(bot.read_text() + "\n# version b, same key by mistake\n")
        seat, player = play_in(pool, bot, "version:a:alice")
        seen.append((player.sandbox_id, player.reused))

        ids = [container_id for container_id, _ in seen]
        assert [reused for _, reused in seen] == [False, True, False, False, False]
        assert ids[0] == ids[1] and len(set(ids)) == 4
        assert sorted(pool.idle_containers()) == sorted(set(ids))
    finally:
        pool.close()
    assert containers_of(set(ids)) == []


# A bot whose child the OOM killer took plays on ("ok"), but memory ran out in its container all the same.
@pytest.mark.parametrize("bot, verdict", [("infinite_loop", "timeout"), ("memory_bomb", "memory"),
                                          ("protocol_garbage", "protocol"), ("oom_child", "ok")])
def test_a_misbehaving_container_is_discarded(docker_image, bot, verdict):
    pool = WarmPool()
    try:
        seat, player = play_in(pool, BOTS / f"{bot}.py", "version:hostile:mallory")

        assert seat.status == verdict, seat.detail
        assert pool.idle_containers() == []
        assert containers_of({player.sandbox_id}) == []
    finally:
        pool.close()


class BrokenGame(Exception):
    """A bug of the game."""


def test_a_container_whose_match_ended_by_an_exception_is_discarded(docker_image, monkeypatch):
    from games.endgame import EndGameState

    def apply_with_a_bug(state, action):  # once the bot has started and decided: its container is in use
        raise BrokenGame

    monkeypatch.setattr(EndGameState, "_apply", apply_with_a_bug)
    pool = WarmPool()
    game = get_game("endgame")
    try:
        with pytest.raises(BrokenGame):
            with seated([lambda: pool.player(str(BOTS / "first_legal.py"), key="version:x:ada", limits=LIMITS),
                         lambda: builtin_player(game, "greedy")]) as players:
                play_match(game, players, seed=3)

        assert players[0].decisions == 1 and pool.idle_containers() == []
        assert containers_of({players[0].sandbox_id}) == []
    finally:
        pool.close()


def test_a_crashed_bots_container_is_reset_and_reused(docker_image):
    pool = WarmPool()
    try:
        first, player = play_in(pool, BOTS / "kill_everything.py", "version:k:mallory")
        again, second = play_in(pool, BOTS / "kill_everything.py", "version:k:mallory")

        assert first.status == again.status == "crash"
        assert "still here" in again.log  # its kill(-1) did not take the supervisor with it
        assert (second.reused, second.sandbox_id) == (True, player.sandbox_id)
    finally:
        pool.close()


def test_a_container_whose_reset_left_something_never_serves_again(docker_image, tmp_path, monkeypatch):
    bot = bot_file("first_legal", tmp_path)
    pool = WarmPool()
    try:
        seat, first = play_in(pool, bot, "version:r:mallory")
        assert seat.status == "ok"
        # The supervisor's report, read when the container is next wanted, says a process survived.
        [container] = [c for c in pool._idle if c.id == first.sandbox_id]
        real_wait = container.wait_event
        monkeypatch.setattr(container, "wait_event",
                            lambda name, timeout: {**real_wait(name, timeout), "clean": False, "left": ["process 42"]})
        seat, second = play_in(pool, bot, "version:r:mallory")

        assert seat.status == "ok" and not second.reused and second.sandbox_id != first.sandbox_id
        assert containers_of({first.sandbox_id}) == []
    finally:
        pool.close()


def test_an_idle_container_whose_check_fails_is_removed_and_frees_its_place(docker_image, tmp_path, monkeypatch):
    bot = bot_file("first_legal", tmp_path)
    pool = WarmPool(max_containers=1)
    try:
        seat, first = play_in(pool, bot, "version:q:ann")
        [container] = pool._idle

        def broken():
            raise OSError("the attach stream broke")

        monkeypatch.setattr(container, "quiet", broken)
        with pytest.raises(OSError):  # not the bot's doing: the platform retries the match
            play_in(pool, bot, "version:q:ann")
        assert containers_of({first.sandbox_id}) == []
        # Its place in the pool is free again: the next version's container is kept, not removed after use.
        seat, second = play_in(pool, bot, "version:q:ben")
        assert seat.status == "ok" and pool.idle_containers() == [second.sandbox_id]
    finally:
        pool.close()


def test_the_pool_is_bounded_and_idle_containers_are_reaped(docker_image, tmp_path):
    import time

    bot = bot_file("first_legal", tmp_path)
    pool = WarmPool(max_containers=2, idle_seconds=60)
    made = set()
    try:
        for owner in ("ann", "ben", "cyd"):
            seat, player = play_in(pool, bot, f"version:x:{owner}")
            assert seat.status == "ok"
            made.add(player.sandbox_id)
            assert len(containers_of(made)) <= 2
        assert len(pool.idle_containers()) == 2
        assert pool.reap() == 0
        pool.idle_seconds = 0.2  # (set only now: on a busy host a match alone can take that long)
        time.sleep(0.3)

        assert pool.reap() == 2
        assert pool.idle_containers() == [] and containers_of(made) == []
    finally:
        pool.close()


def test_a_match_past_the_bound_gets_a_container_of_its_own(docker_image, tmp_path):
    game = get_game("endgame")
    pool = WarmPool(max_containers=1)
    try:
        players = [pool.player(str(BOTS / "first_legal.py"), key=f"version:y:{owner}", limits=LIMITS)
                   for owner in ("ann", "ben")]
        result = play_match(game, players, seed=5)

        assert [seat.status for seat in result.players] == ["ok", "ok"]
        # The two containers start at once: whichever took the pool's one place stays, the other is removed.
        ids = {player.sandbox_id for player in players}
        [kept] = pool.idle_containers()
        assert kept in ids and len(ids) == 2
        assert containers_of(ids) == [kept]
    finally:
        pool.close()


def test_a_container_prepared_for_a_bot_the_match_never_started_serves_its_next_match(docker_image):
    # Both seats' containers start side by side; the first bot fails its setup, which decides the match
    # before the second bot starts: its fresh container goes back to the pool unused.
    game = get_game("endgame")
    pool = WarmPool()
    try:
        players = [pool.player(str(BOTS / bot), key=f"version:{bot}:mallory", limits=LIMITS)
                   for bot in ("exit_at_import.py", "first_legal.py")]
        result = play_match(game, players, seed=5)
        assert [seat.status for seat in result.players] == ["crash", "ok"]
        assert players[1].sandbox_id is None  # never started
        # (the crashed bot's container is reset and kept too)
        [waiting] = set(pool.idle_containers()) - {players[0].sandbox_id}

        seat, player = play_in(pool, BOTS / "first_legal.py", "version:first_legal.py:mallory")
        assert seat.status == "ok" and (player.reused, player.sandbox_id) == (True, waiting)
    finally:
        pool.close()
    assert containers_of({waiting}) == []


def test_a_bot_file_that_cannot_be_read_when_its_seat_prepares_is_a_verdict_on_that_seat(docker_image, tmp_path):
    pool = WarmPool()
    try:
        players = [pool.player(str(path), key=f"version:{path.name}:ann", limits=LIMITS)
                   for path in (tmp_path / "gone.py", BOTS / "first_legal.py")]
        result = play_match(get_game("endgame"), players, seed=5)

        assert [seat.status for seat in result.players] == ["crash", "ok"]
        assert "cannot read the bot file" in result.players[0].detail
    finally:
        pool.close()


# A sibling pool process (of the same Celery worker): its pool shares the folder argv[1]; it plays one
# match of the bot argv[2] (or, with argv[3] "hang", starts it and waits in a decision the bot never
# answers, to be killed there), and says which container it had.
SIBLING = """
import json, sys
from pathlib import Path
import sandbox
from games import get_game
from games.bots import builtin_player
from games.referee import play_match
from sandbox.pool import WarmPool

pool = WarmPool(share_dir=Path(sys.argv[1]))
if sys.argv[3] == "hang":
    player = pool.player(sys.argv[2], key="version:s:ann", limits=sandbox.Limits(decision=600, bank=0))
    player.start({})
    print(json.dumps({"id": player.sandbox_id, "reused": player.reused}), flush=True)
    player.act({"legal_actions": ["left"]})
player = pool.player(sys.argv[2], key="version:s:ann", limits=sandbox.Limits(setup=2.0, decision=0.5, bank=0.5,
                     memory_mb=128, pids=32, tmp_mb=8, log_bytes=16 << 10))
result = play_match(get_game("endgame"), [player, builtin_player(get_game("endgame"), "greedy")], seed=3)
print(json.dumps({"status": result.players[0].status, "id": player.sandbox_id, "reused": player.reused}))
pool.close()
"""


def sibling(share, bot, mode="play") -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SIBLING, str(share), str(bot), mode], stdout=subprocess.PIPE,
                            text=True, cwd=Path(__file__).parents[2])


def test_the_pool_processes_of_a_worker_share_a_versions_warm_container(docker_image, tmp_path):
    share = tmp_path / "share"
    share.mkdir(mode=0o700)  # (a shared folder must be private: its entries name pids to signal)
    bot = bot_file("first_legal", tmp_path)
    pool = WarmPool(share_dir=share)
    try:
        seat, first = play_in(pool, bot, "version:s:ann")
        assert seat.status == "ok" and not first.reused

        other = sibling(share, bot)
        assert json.loads(other.communicate(timeout=120)[0]) == {"status": "ok", "id": first.sandbox_id, "reused": True}

        seat, again = play_in(pool, bot, "version:s:ann")  # back from the sibling, reset, to its maker
        assert seat.status == "ok" and (again.reused, again.sandbox_id) == (True, first.sandbox_id)
        pool.idle_seconds = 0
        assert pool.reap() == 1  # its maker reaps it when idle, whoever used it last
    finally:
        pool.close()
    assert containers_of({first.sandbox_id}) == [] and list(share.iterdir()) == []


def test_a_container_warmed_up_ahead_serves_the_versions_first_match_in_any_process_and_goes_when_idle(
        docker_image, tmp_path):
    share = tmp_path / "share"
    share.mkdir(mode=0o700)
    bot = bot_file("first_legal", tmp_path)
    pool = WarmPool(share_dir=share)
    try:
        warmed = pool.warm_up("version:s:ann", bot.read_bytes(), LIMITS, owner="ann")
        assert warmed is not None and containers_of({warmed}) == [warmed]
        assert pool.warm_up("version:s:ann", bot.read_bytes(), LIMITS, owner="ann") is None  # once per version

        other = sibling(share, bot)  # another pool process's first match of the version: it starts nothing
        assert json.loads(other.communicate(timeout=120)[0]) == {"status": "ok", "id": warmed, "reused": True}

        assert pool.reap() == 0
        pool.idle_seconds = 0
        assert pool.reap() == 1  # no match came since: its idle time removes it like any container
    finally:
        pool.close()
    assert containers_of({warmed}) == [] and list(share.iterdir()) == []


def test_a_pool_that_is_not_shared_warms_nothing_up(docker_image, tmp_path):
    # (its container would serve this process's matches only, and a warm-up runs in a process of its own)
    pool = WarmPool()
    assert pool.warm_up("version:s:ann", bot_file("first_legal", tmp_path).read_bytes(), LIMITS, owner="ann") is None
    assert pool.idle_containers() == []


def test_an_owners_uploads_keep_few_containers_warm_and_a_full_pool_makes_room_as_for_a_match(docker_image,
                                                                                                tmp_path):
    from games.referee import setup_info
    from sandbox.pool import AHEAD_PER_OWNER

    share = tmp_path / "share"
    share.mkdir(mode=0o700)
    code = bot_file("first_legal", tmp_path).read_bytes()
    pool = WarmPool(max_containers=AHEAD_PER_OWNER + 1, share_dir=share)
    made = set()
    try:
        bens = pool.warm_up("version:1:ben", code, LIMITS, owner="ben")
        anns = [pool.warm_up(f"version:{number}:ann", code, LIMITS, owner="ann") for number in range(4)]
        made.update({bens, *anns})
        # Each of ann's uploads replaced her oldest: she keeps her last AHEAD_PER_OWNER; ben keeps his.
        assert set(pool.idle_containers()) == {bens, *anns[-AHEAD_PER_OWNER:]}
        assert set(containers_of(made)) == {bens, *anns[-AHEAD_PER_OWNER:]}

        # The pool is full of idle containers: cyd's warm-up makes room as a match would, by removing the
        # least recently used (ben's), and her first match then plays in it.
        cyds = pool.warm_up("version:1:cyd", code, LIMITS, owner="cyd")
        made.add(cyds)
        assert set(pool.idle_containers()) == {cyds, *anns[-AHEAD_PER_OWNER:]}
        assert containers_of({bens}) == []
        seat, player = play_in(pool, bot_file("first_legal", tmp_path), "version:1:cyd")
        assert seat.status == "ok" and player.reused and player.sandbox_id == cyds

        # A pool whose every container is in a match warms nothing up (no container past the bound for it).
        game = get_game("endgame")
        state = game.new_game(2, None, 1)
        playing = [pool.player(str(bot_file("first_legal", tmp_path)), key=f"version:{number}:dan", limits=LIMITS)
                   for number in range(AHEAD_PER_OWNER + 1)]
        try:
            for busy in playing:
                busy.start(setup_info(game, state, 0))
                made.add(busy.sandbox_id)
            assert pool.idle_containers() == []
            assert pool.warm_up("version:1:eve", code, LIMITS, owner="eve") is None
        finally:
            for busy in playing:
                busy.close()
    finally:
        pool.close()
    assert containers_of(made) == [] and list(share.iterdir()) == []


def test_a_shared_folder_others_may_write_to_is_not_used(docker_image, tmp_path):
    share = tmp_path / "share"
    share.mkdir(mode=0o755)  # (an entry there names a pid this process would signal and a folder it would listen in)
    share.chmod(0o755)
    bot = bot_file("first_legal", tmp_path)
    pool = WarmPool(share_dir=share)
    try:
        _, first = play_in(pool, bot, "version:s:ann")
        seat, again = play_in(pool, bot, "version:s:ann")
        assert seat.status == "ok" and (again.reused, again.sandbox_id) == (True, first.sandbox_id)  # its own still
        assert list(share.iterdir()) == []
    finally:
        pool.close()
    assert containers_of({first.sandbox_id}) == []


# The sibling's limits when it hangs (a pool key includes them).
HANGING = sandbox.Limits(decision=600, bank=0)


def test_a_shared_container_whose_match_was_killed_with_its_process_never_serves_again(docker_image, tmp_path):
    share = tmp_path / "share"
    share.mkdir(mode=0o700)  # (a shared folder must be private: its entries name pids to signal)
    bot = BOTS / "sleeper.py"
    pool = WarmPool(share_dir=share)
    try:
        player = pool.player(str(bot), key="version:s:ann", limits=HANGING)
        player.start({})
        player.close()  # (no decision asked: the sleeper's container is idle and clean)
        [made] = pool.idle_containers()

        with one_sweep_at_a_time():
            other = sibling(share, bot, "hang")
            assert json.loads(other.stdout.readline()) == {"id": made, "reused": True}
            other.kill()
            other.wait()
        sandbox.cleanup_leftovers()  # (its maker is alive: the sweep leaves it to the maker)

        player = pool.player(str(bot), key="version:s:ann", limits=HANGING)
        player.start({})
        player.close()
        assert not player.reused and player.sandbox_id != made
        assert containers_of({made}) == [] and [entry.name[-12:] for entry in share.iterdir()] == [player.sandbox_id[:12]]
    finally:
        pool.close()
    assert list(share.iterdir()) == []


# A worker process of a Celery worker of its own (started by a shell of its own: no sibling of the others),
# whose default pool is shared host-wide for the scope argv[1]. It reads commands on stdin and answers each
# with a JSON line: "play" a match of the bot argv[2] (which container), "reap" as an acquire does,
# "idle" reap with an idle time of 0; the end of stdin closes its pool.
WORKER_PROCESS = """
import json, os, sys
import sandbox
from games import get_game
from games.bots import builtin_player
from games.referee import play_match
from sandbox import pool

pool.share_default_pool(sys.argv[1])
print(json.dumps({"pid": os.getpid(), "parent": os.getppid()}), flush=True)
for command in sys.stdin:
    own = pool.default_pool()
    if command == "play\\n":
        player = own.player(sys.argv[2], key="version:h:ann", limits=sandbox.Limits(
            setup=2.0, decision=0.5, bank=0.5, memory_mb=128, pids=32, tmp_mb=8, log_bytes=16 << 10))
        result = play_match(get_game("endgame"), [player, builtin_player(get_game("endgame"), "greedy")], seed=3)
        print(json.dumps({"status": result.players[0].status, "id": player.sandbox_id, "reused": player.reused}),
              flush=True)
    else:
        own.idle_seconds = 0 if command == "idle\\n" else own.idle_seconds
        print(json.dumps({"reaped": own.reap()}), flush=True)
pool.close_default_pool()
"""


class WorkerProcess:
    def __init__(self, scope: str, bot: Path):
        self.process = subprocess.Popen(["sh", "-c", '"$0" -c "$1" "$2" "$3"; exit $?', sys.executable,
                                         WORKER_PROCESS, scope, str(bot)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
        self.pid, self.parent = self.answer().values()

    def answer(self) -> dict:
        return json.loads(self.process.stdout.readline())

    def ask(self, command: str) -> dict:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self.answer()

    def stop(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


def test_the_worker_processes_of_a_host_warm_a_version_up_once_and_a_killed_one_leaves_nothing(docker_image,
                                                                                               tmp_path):
    import os
    import shutil
    import signal
    import tempfile

    from sandbox.base import STAGING_PREFIX
    from sandbox.pool import host_share_dir

    scope = f"test-{tmp_path.name}"
    bot = bot_file("first_legal", tmp_path)
    share = host_share_dir(scope)
    workers = [WorkerProcess(scope, bot), WorkerProcess(scope, bot)]
    first, second = workers
    made = set()
    try:
        assert first.parent != second.parent  # two workers, not two pool processes of one
        played = first.ask("play")
        assert played["status"] == "ok" and not played["reused"]
        made.add(played["id"])
        assert second.ask("play") == {"status": "ok", "id": played["id"], "reused": True}

        with one_sweep_at_a_time():  # (no sweep removes what the killed process left: its siblings must)
            os.kill(first.pid, signal.SIGKILL)
            first.process.wait(timeout=60)
            assert second.ask("reap") == {"reaped": 1}  # its idle time is not up: its maker is gone
        assert containers_of(made) == [] and list(share.glob("*")) == []
        assert list(Path(tempfile.gettempdir()).glob(f"{STAGING_PREFIX}{first.pid}.*")) == []

        share.rmdir()  # (as the sweep of an earlier release does to an empty folder it takes for a dead worker's)
        again = second.ask("play")
        assert again["status"] == "ok" and not again["reused"]
        made.add(again["id"])
        third = WorkerProcess(scope, bot)
        workers.append(third)
        assert third.ask("play") == {"status": "ok", "id": again["id"], "reused": True}  # (entered anew)
        assert third.ask("idle") == {"reaped": 1}  # idle past its time: removed whoever made it
        assert containers_of(made) == []

        last = second.ask("play")  # (its maker learns its container is gone and starts another)
        assert last["status"] == "ok" and not last["reused"]
        made.add(last["id"])
        for worker in (second, third):
            worker.stop()
        assert containers_of(made) == [] and list(share.glob("*")) == []
    finally:
        for worker in workers:
            if worker.process.poll() is None:
                worker.process.kill()
                worker.process.wait()
        sandbox.cleanup_leftovers()
        shutil.rmtree(share, ignore_errors=True)


@pytest.mark.parametrize("targets", [[], ["signal"], ["kill"]])
def test_nothing_of_a_match_lingers_in_the_memory_its_next_harness_is_forked_from(docker_image, tmp_path, targets):
    """A warm container's harness is a fork of a process that has read nothing of any match (the zygote,
    sandbox/supervisor.py): the names the reset read from /tmp must not be in the next harness's memory,
    and a bot that stops, signals or kills the zygote leaves its container serving the next match all the same."""
    marker = f"arena-smuggled-{tmp_path.name}".encode()
    bot = bot_file("smuggle", tmp_path, REVERSED_MARKER=marker[::-1], TARGETS=targets)
    first, second = two_matches(bot)
    third = play("docker-warm", bot)

    assert first.status == second.status == third.status == "ok", first.detail + second.detail + third.detail
    assert third.sandbox_id == first.sandbox_id
    assert report(first.log)["found"] == []
    assert report(second.log)["found"] == [], "the harness was forked from memory that held the last match's files"
    assert report(third.log)["found"] == []
    # The container's first zygote is a fork of its supervisor; one that a bot killed, a new one by exec.
    replaced = ["arena-zygote by exec"] if targets == ["kill"] else ["arena-zygote"]
    assert [report(match.log)["others"] for match in (first, second, third)] == [["arena-zygote"]] + [replaced] * 2
