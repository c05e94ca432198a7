"""The channel between the worker and a bot's sandbox: what a bot that goes after it can reach.

A warm container's harness speaks to the worker straight down its pipes, which the worker hands to the
container's supervisor over a Unix socket in the bot's staging folder (sandbox/pool.py, supervisor.py).
The bot holds its own protocol descriptors (it runs in the harness's process), so it can always write
anything on them: the protocol treats every byte as untrusted. Beyond that it must reach nothing: not the
socket, not the supervisor's connection, not another match's pipes, in any backend.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox_testkit import BOTS, assert_contained, leftovers, play, report


def test_a_bot_finds_no_way_into_the_channel(backend):
    outcome = play(backend, BOTS / "attack_channel.py")
    found = report(outcome.log)

    assert outcome.status == "ok", outcome.detail + "\n" + outcome.log[-2000:]
    assert found["sockets"] == []
    assert {name: result for name, result in found["attempts"].items() if not result.startswith("refused")} == {}
    assert "pass a descriptor on fd 0" in found["attempts"]  # (it did look at its descriptors)
    assert leftovers(backend, outcome.sandbox_id) == []


def test_what_a_bot_leaves_writing_after_its_verdict_reaches_nothing(backend):
    bot = BOTS / "writes_after_verdict.py"
    crashed = play(backend, bot, config={"length": 6})
    assert_contained(crashed, backend, "crash")

    after = play(backend, bot)

    assert after.status == "ok", after.detail + "\n" + after.log[-2000:]
    if backend == "docker-warm":  # the crashed bot's container, reset: the next match's pipes are new
        assert (after.reused, after.sandbox_id) == (True, crashed.sandbox_id)
    assert "FORGED" not in after.log
    assert leftovers(backend, after.sandbox_id) == []


@pytest.mark.parametrize("bot", ["attack_channel.py", "writes_after_verdict.py"])
def test_a_bot_that_went_after_the_channel_leaves_its_next_match_alone(docker_image, bot):
    first = play("docker-warm", BOTS / bot)
    second = play("docker-warm", BOTS / bot)

    assert first.status == second.status == "ok", first.detail + second.detail
    assert (second.reused, second.sandbox_id) == (True, first.sandbox_id)


def test_a_harness_started_ahead_of_its_match_brings_the_bot_no_more_of_the_channel(docker_image, tmp_path):
    """A shared pool parks its idle containers, and the supervisor starts the next match's harness as a
    process calls it back (a spare, sandbox/supervisor.py): its pipes come over a socket pair of its own,
    which must be gone before the bot loads."""
    from sandbox.pool import WarmPool
    from sandbox_testkit import LIMITS, process_kind, processes_in
    from test_sandbox_warm import play_in

    share = tmp_path / "share"
    share.mkdir(mode=0o700)  # (a shared folder must be private: its entries name pids to signal)
    bot = BOTS / "attack_channel.py"
    pool = WarmPool(share_dir=share)
    try:
        _, first = play_in(pool, bot, "version:c:ann")
        player = pool.player(str(bot), key="version:c:ann", limits=LIMITS)
        player.start({"game": "endgame"})
        harnesses = [pid for pid in processes_in(player.sandbox_id) if process_kind(pid) == "harness"]
        player.act({"legal_actions": ["left"]})
        log = player.close()
    finally:
        pool.close()
    found = report(log)

    assert (player.reused, player.sandbox_id) == (True, first.sandbox_id)
    assert len(harnesses) == 1
    assert found["sockets"] == []
    assert {name: result for name, result in found["attempts"].items() if not result.startswith("refused")} == {}
    assert "pass a descriptor on fd 0" in found["attempts"]


def test_a_parked_container_runs_its_supervisor_alone_until_a_match_calls_it_back(docker_image, tmp_path):
    """The next match's harness starts when a process calls the parked container back, not as it parks:
    started then, it ran while the worker was recording the match that had just ended and slowed it (End
    Game challenges lost about a tenth of their rate, issue 27). The match that calls it back still plays
    in it."""
    from sandbox.pool import WarmPool
    from sandbox_testkit import parked_supervisor, process_kind, processes_in
    from test_sandbox_warm import play_in

    share = tmp_path / "share"
    share.mkdir(mode=0o700)
    bot = BOTS / "attack_channel.py"
    pool = WarmPool(share_dir=share)
    try:
        _, first = play_in(pool, bot, "version:p:ann")
        supervisor = parked_supervisor(first.sandbox_id)
        parked = {pid: process_kind(pid) for pid in processes_in(first.sandbox_id)}
        seat, second = play_in(pool, bot, "version:p:ann")
    finally:
        pool.close()

    assert sorted(parked.values()) == ["supervisor", "zygote"]
    assert parked[supervisor] == "supervisor"
    assert (second.reused, second.sandbox_id, seat.status) == (True, first.sandbox_id, "ok"), seat.detail
