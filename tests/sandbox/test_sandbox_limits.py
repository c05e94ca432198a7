"""The limits bite, seen from inside the sandbox: fork fails at the pids limit, CPU is held to its share,
and the time bank carries a slow bot over several decisions until it runs out on the decision it must.

A limit read back from the container's settings proves only that it was asked for; these bots observe it.
"""

from __future__ import annotations

import dataclasses
import re
import time

import pytest
from opponents import SlowOpponent
from sandbox_testkit import BOTS, LIMITS, bot_file, play, report

from games import get_game
from games.bots import builtin_player
from games.core import BotFailure, Verdict
from games.referee import play_match, setup_info
import sandbox
from sandbox.local_backend import LocalPlayer

# Forking some thirty processes and burning CPU for WALL seconds take longer than LIMITS.setup on a loaded
# host; these tests are about pids and CPU, not setup time.
SETUP = 30.0


@pytest.mark.parametrize("pids", [16, 32])
def test_fork_fails_with_eagain_at_the_pids_limit(backend, tmp_path, pids):
    limits = dataclasses.replace(LIMITS, pids=pids, setup=SETUP)
    outcome = play(backend, bot_file("fork_probe", tmp_path), limits=limits)
    assert outcome.status == "ok", outcome.detail + "\n" + outcome.log
    probe = report(outcome.log)
    assert probe["error"] == "EAGAIN"
    # The sandbox's own processes and threads take a few of the pids; the bot's children take the rest.
    assert pids - 6 <= probe["forks"] < pids


def test_the_pids_limit_alone_decides_how_many_forks_succeed(backend, tmp_path):
    """Sixteen more pids, exactly sixteen more children: no other limit (memory, RLIMIT_NPROC) stops the
    fork bomb first, since everything else in the sandbox is the same in both runs."""
    forks = {}
    for pids in (16, 32):
        limits = dataclasses.replace(LIMITS, pids=pids, setup=SETUP)
        forks[pids] = report(play(backend, bot_file("fork_probe", tmp_path), limits=limits).log)["forks"]
    assert forks[32] - forks[16] == 16, forks


CPU_SHARE = 0.1
WALL = 3.0


def test_cpu_bound_bot_is_throttled_to_its_share(backend, tmp_path):
    """Two busy processes for 3 s of wall clock get up to 6 s of CPU on two free cores (1.1 s measured with
    a quota of 2 CPUs on this loaded 2-core host); with a 0.1 CPU quota they get 0.3 s, plus at most about
    one scheduler period (0.1 s) of overshoot."""
    limits = dataclasses.replace(LIMITS, cpus=CPU_SHARE, setup=SETUP)
    outcome = play(backend, bot_file("cpu_probe", tmp_path, CHILDREN=2, WALL=WALL), limits=limits)
    assert outcome.status == "ok", outcome.detail + "\n" + outcome.log
    probe = report(outcome.log)
    assert probe["wall"] >= WALL
    assert probe["cpu"] <= CPU_SHARE * probe["wall"] + 0.1, probe


# --- the time bank ---------------------------------------------------------------------------------------
# Each decision may take DECISION seconds; the bot takes OVERDRAW more every time, from a bank of BANK:
#   after decision 1 the bank holds 1.0 - 0.4 = 0.6 s, after decision 2 it holds 0.6 - 0.4 = 0.2 s;
#   decision 3 may take 0.2 + 0.2 = 0.4 s, less than the bot's 0.6 s: it times out on decision 3, with
#   about 0.2 s left. A sandbox round trip costs the bot a little more than its sleep (it is charged wall
#   time from send to reply); this schedule holds for up to 0.1 s of it per decision.
DECISION, OVERDRAW, BANK = 0.2, 0.4, 1.0
FAILING_DECISION = 3


@pytest.fixture(params=["docker", "bwrap", "none"])
def any_backend(request) -> str:
    if request.param != "none":
        request.getfixturevalue("docker_image" if request.param == "docker" else "bwrap_ready")
    return request.param


def test_time_bank_carries_overdrawn_decisions_until_it_runs_out(any_backend, tmp_path):
    limits = dataclasses.replace(LIMITS, setup=SETUP, decision=DECISION, bank=BANK)
    bot = bot_file("overdraw", tmp_path, SECONDS=DECISION + OVERDRAW)
    game = get_game("endgame")
    player = sandbox.open_player(any_backend, str(bot), limits=limits)
    result = play_match(game, [player, builtin_player(game, "greedy")], config={"length": 20}, seed=7)
    seat = result.players[0]
    assert seat.status == "timeout", seat.detail
    assert seat.decisions == FAILING_DECISION - 1  # the decisions it completed, each on borrowed time
    assert result.winners == [1]
    left = re.fullmatch(r"did not answer within 0\.2s and the (\d\.\d\d)s left in its bank", seat.detail)
    assert left, seat.detail
    assert 0 < float(left.group(1)) <= round(BANK - 2 * OVERDRAW, 2)
    # Charged at least the sleeps of the decisions it completed, and its whole allowance on the last.
    assert seat.think_time >= (FAILING_DECISION - 1) * (DECISION + OVERDRAW)


def test_time_left_over_from_a_quick_decision_is_not_banked(any_backend):
    player = sandbox.open_player(any_backend, str(BOTS / "first_legal.py"), limits=dataclasses.replace(LIMITS, bank=BANK))
    game = get_game("endgame")
    seat = play_match(game, [player, builtin_player(game, "greedy")], seed=7).players[0]
    assert (seat.status, seat.decisions) == ("ok", 10)
    assert player.bank == BANK


def test_setup_draws_nothing_from_the_bank(any_backend, tmp_path):
    """Setup has its own limit and no bank: half a second over it is a timeout, the bank untouched."""
    limits = dataclasses.replace(LIMITS, setup=1.0, bank=BANK)
    bot = bot_file("slow_setup", tmp_path, SECONDS=limits.setup + 0.5)
    player = sandbox.open_player(any_backend, str(bot), limits=limits)
    game = get_game("endgame")
    seat = play_match(game, [player, builtin_player(game, "greedy")], seed=7).players[0]
    assert (seat.status, seat.detail, seat.decisions) == ("timeout", "did not answer within 1s", 0)
    assert player.bank == BANK


def test_cpu_used_between_turns_is_charged_by_the_amount(any_backend, tmp_path):
    """After each of its 4 answers the bot burns 0.2 s of CPU while the opponent thinks 2 s (a tenth of a
    core is enough): the 3 burns before its next decisions are charged, 0.6 s, plus each decision's own
    round trip (milliseconds; at most 0.15 s each on a loaded host). The last burn comes after its last
    decision and is never charged."""
    limits = dataclasses.replace(LIMITS, setup=SETUP, decision=0.5, bank=BANK)
    player = sandbox.open_player(any_backend, str(bot_file("idle_burner", tmp_path, BURN=0.2)), limits=limits)
    game = get_game("endgame")
    seat = play_match(game, [player, SlowOpponent(2.0)], config={"length": 8}, seed=7).players[0]
    assert (seat.status, seat.decisions) == ("ok", 4), seat.detail
    assert 3 * 0.2 * 0.95 <= seat.think_time <= 3 * 0.2 + 4 * 0.15


class WaitsForTheBurn(SlowOpponent):
    """The greedy built-in, moving only once `player` has burned `cpu` seconds of CPU since its last answer
    (what the next decision will be charged as CPU between turns), however slowly a loaded host lets it."""

    def __init__(self, player, cpu: float):
        super().__init__(0.0)
        self.player, self.cpu = player, cpu

    def act(self, observation):
        deadline = time.monotonic() + 120
        while self.player._cpu_seconds() - self.player._cpu_mark < self.cpu and time.monotonic() < deadline:
            time.sleep(0.05)
        return super().act(observation)


def test_cpu_used_between_turns_beyond_the_decision_and_the_bank_is_a_timeout_before_asking(any_backend, tmp_path):
    """The bot answers at once, then burns 0.8 s of CPU while the opponent waits for it: more than its
    0.3 s decision and 0.2 s bank, so its next decision is over before it is asked, and the verdict says why
    (not a deadline missed, which a slow host could also cause)."""
    limits = dataclasses.replace(LIMITS, setup=SETUP, decision=0.3, bank=0.2)
    player = sandbox.open_player(any_backend, str(bot_file("idle_burner", tmp_path, BURN=0.8)), limits=limits)
    game = get_game("endgame")
    seat = play_match(game, [player, WaitsForTheBurn(player, 0.75)], config={"length": 8}, seed=7).players[0]
    assert (seat.status, seat.decisions) == ("timeout", 1), seat.detail
    burned = re.fullmatch(r"used (\d\.\d\d)s of CPU between turns, more than the 0\.3s per decision and the "
                          r"(\d\.\d\d)s left in its bank", seat.detail)
    assert burned and 0.75 <= float(burned.group(1)) < 1.0 and float(burned.group(2)) <= 0.2, seat.detail


class TwoCoreBot(LocalPlayer):
    """A process-backend bot whose every answer takes EXTRA_CPU more CPU than wall clock, as a bot busy on
    several threads does on a host with cores to spare (this shared 2-core host cannot promise one):
    its CPU counter reads that much more after each reply."""

    EXTRA_CPU = 0.5
    extra = 0.0

    def _read_reply(self, *args):
        reply = super()._read_reply(*args)
        self.extra += self.EXTRA_CPU
        return reply

    def _cpu_seconds(self):
        used = super()._cpu_seconds()
        return None if used is None else used + self.extra


def test_a_decision_is_charged_its_cpu_when_that_exceeds_its_wall_time(tmp_path):
    """Each decision is charged 0.5 s of CPU and a little (its wall time is milliseconds) against 0.2 s: 0.3 s
    and a little from the 1.1 s bank each time, under 0.2 s left after 3 decisions; the 4th overdraws it and
    is a timeout, though its answer came in time (the deadline counts wall time only)."""
    limits = dataclasses.replace(LIMITS, setup=SETUP, decision=0.2, bank=1.1)
    player = TwoCoreBot(str(BOTS / "first_legal.py"), limits=limits)
    game = get_game("endgame")
    seat = play_match(game, [player, builtin_player(game, "greedy")], seed=7).players[0]
    assert (seat.status, seat.decisions) == ("timeout", 3), seat.detail
    charged = re.fullmatch(r"was charged \d\.\d\ds \((\d\.\d\d)s wall, (\d\.\d\d)s CPU, \d\.\d\ds CPU between "
                           r"turns\) against 0\.2s and a bank of (\d\.\d\d)s", seat.detail)
    assert charged, seat.detail
    wall, cpu, bank = map(float, charged.groups())
    assert cpu >= TwoCoreBot.EXTRA_CPU > wall and bank <= 0.2


@pytest.mark.parametrize("pipe_backend", ["bwrap", "none"])
def test_a_bot_that_closes_its_input_loses_with_a_crash(pipe_backend, tmp_path, request):
    if pipe_backend == "bwrap":
        request.getfixturevalue("bwrap_ready")
    player = sandbox.open_player(pipe_backend, str(bot_file("closes_input", tmp_path)), limits=LIMITS)
    game = get_game("endgame")
    result = play_match(game, [player, builtin_player(game, "greedy")], seed=7)
    seat = result.players[0]
    assert (seat.status, seat.decisions, result.winners) == ("crash", 1, [1]), seat.detail
    assert "AssertionError" not in seat.log  # it never got the second message


@pytest.mark.parametrize("pipe_backend", ["bwrap", "none"])
def test_a_bot_that_stops_reading_its_input_times_out(pipe_backend, tmp_path, request):
    """An observation larger than a pipe holds (64 KiB) sent to a frozen bot blocks the write: the player gives
    up at the decision's deadline instead of hanging. (No game option makes one so large any more: End Game
    boards stop at 500 numbers, so the test speaks to the player directly.)"""
    if pipe_backend == "bwrap":
        request.getfixturevalue("bwrap_ready")
    player = sandbox.open_player(pipe_backend, str(bot_file("stops_reading", tmp_path)), limits=LIMITS)
    game = get_game("endgame")
    state = game.new_game(seed=7)
    player.start(setup_info(game, state, 0))
    try:
        assert player.act(state.observation(0)) in ("left", "right")
        time.sleep(0.5)  # the bot freezes itself 0.2 s after answering
        huge = {**state.observation(0), "board": list(range(40_000))}
        with pytest.raises(BotFailure) as failure:
            player.act(huge)
    finally:
        player.close()
    assert (failure.value.verdict, failure.value.message) == (Verdict.TIMEOUT, "did not read its input within its time")