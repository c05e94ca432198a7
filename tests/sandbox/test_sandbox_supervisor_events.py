"""The warm containers' supervisor speaks to the worker in JSON events (sandbox/supervisor.py). The bot
cannot reach it, but a bug of ours or a compromised container must still end as a platform error saying
what it sent (SupervisorFault), never a hang, a RecursionError or a verdict against a bot."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from left_behind import left_behind
from sandbox_testkit import BOTS, LIMITS

from games import get_game
from games.bots import builtin_player
from games.referee import play_match, seated
from hostile import DEEPEST, hostile_json_texts, json_values
from sandbox import pool
from sandbox.base import one_sweep_at_a_time
from sandbox.pool import EVENT_FIELDS, EVENT_LINE_BYTES, DockerPlayer, SupervisorFault, WarmContainer
from quick_tier import examples

# Nested far past json.loads's recursion, within the bound of a line's size; and 200,000 deep, past it too.
DEEP_LINE = b"[" * 30_000 + b"]" * 30_000 + b"\n"
DEEPEST_LINE = b"[" * DEEPEST + b"]" * DEEPEST + b"\n"
# A bound on how long any frame takes to be judged: never a wait for more of a line that is too long.

# A reader that blocks on a frame fails by this limit instead of hanging the run.
pytestmark = pytest.mark.timeout(300)


def events_of(frames: bytes, wanted: str = "exited") -> dict | None:
    """What a worker's container makes of `frames` sent by its supervisor: the event `wanted`, None if it
    does not come (within a moment), or SupervisorFault."""
    worker_end, supervisor_end = socket.socketpair()
    worker_end.setblocking(False)
    container = WarmContainer(("key", "digest", LIMITS), Path("/nonexistent"), "c0ffee" * 10, None, pooled=False)
    container.control, container.connected = worker_end, True
    # (a thread: a frame larger than the socket's buffer is read while it is written)
    writer = threading.Thread(target=lambda: _send_and_close(supervisor_end, frames), daemon=True)
    writer.start()
    try:
        return container.wait_event(wanted, 0.5)
    finally:
        worker_end.close()
        writer.join(5)


def _send_and_close(end: socket.socket, frames: bytes) -> None:
    try:
        end.sendall(frames)
    except OSError:  # the worker stopped reading (a fault): nothing more to send
        pass
    finally:
        end.close()


@pytest.mark.parametrize("frame, reason", [
    (DEEP_LINE, "a line that is no event (JSON nested more than 2 levels deep)"),
    (DEEPEST_LINE, "without ending a line, longer than any event"),
    (b'{"event": "exited", "status": NaN}\n', "NaN is not a JSON number"),
    (b'{"event": "exited", "status": true}\n', "an event with a field of the wrong type"),
    (b'{"event": "reset", "clean": 1, "left": []}\n', "an event with a field of the wrong type"),
    (b'{"event": {"event": "exited"}}\n', "no event it sends"),
    (b'{"event": "exited", "status": 0, "extra": 1}\n', "no event it sends"),
    (b'["exited", 0]\n', "no event it sends"),
    (b'{"event": "\xff"}\n', "can't decode byte 0xff"),
    (b"x" * (EVENT_LINE_BYTES + 10), "without ending a line, longer than any event"),
    (b"x" * (EVENT_LINE_BYTES + 10) + b"\n", "longer than any event"),
], ids=lambda value: repr(value[:30]) if isinstance(value, bytes) else None)
def test_a_frame_that_is_no_event_is_a_supervisor_fault_saying_what_it_was(frame, reason):
    with pytest.raises(SupervisorFault) as fault:
        events_of(frame)
    assert reason in str(fault.value) and "the supervisor of container c0ffeec0ffee sent" in str(fault.value)
    assert len(str(fault.value)) < 600  # the line is quoted, not copied


def test_the_events_the_supervisor_sends_are_taken():
    frames = b'{"event": "ready"}\n{"event": "reset", "clean": true, "left": ["/tmp/x"]}\n' \
             b'{"event": "exited", "status": -9}\n'
    assert events_of(frames) == {"event": "exited", "status": -9}


frames = st.one_of(
    hostile_json_texts.map(lambda text: text.encode("utf-8", "surrogatepass") + b"\n"),
    st.builds(lambda name, value: f'{{"event": "{name}", "status": {value}}}\n'.encode(),
              st.sampled_from(sorted(EVENT_FIELDS)), json_values.map(repr)),
    st.binary(max_size=64),
)


@settings(max_examples=examples(150), deadline=None)
@given(sent=st.lists(frames, min_size=1, max_size=4))
def test_whatever_the_supervisor_sends_ends_as_an_event_or_a_fault(sent):
    try:
        event = events_of(b"".join(sent))
    except SupervisorFault:
        return
    assert event is None or set(event) == {"event", *EVENT_FIELDS[event["event"]]}


# --- a compromised supervisor in a real container --------------------------------------------------------

def hostile_supervisor(directory: Path, event: str) -> Path:
    """sandbox/supervisor.py sending a line nested 30,000 deep instead of its event `event`."""
    source = pool.SUPERVISOR.read_text()
    marker = "\n\n# The current match's harness"
    assert marker in source
    override = f'''

_event = event


def event(control, name, **fields):
    if name == {event!r}:
        control.sendall({DEEP_LINE!r})
    else:
        _event(control, name, **fields)
'''
    path = directory / "supervisor.py"  # (the name its container runs)
    path.write_text(source.replace(marker, override + marker, 1))
    return path


@pytest.mark.parametrize("event", ["ready", "exited"])
def test_a_supervisor_fault_ends_the_match_as_a_platform_error_with_nothing_left(docker_image, event, tmp_path,
                                                                                  monkeypatch):
    """"ready": the container's start; "exited": mid-match, as the bot dies (it segfaults at its first move)."""
    monkeypatch.setattr(pool, "SUPERVISOR", hostile_supervisor(tmp_path, event))
    game = get_game("endgame")
    openers = [lambda: DockerPlayer(str(BOTS / "segfault.py"), limits=LIMITS, image=docker_image),
               lambda: builtin_player(game, "greedy")]
    with one_sweep_at_a_time():  # (no other test's sweep takes what it leaves before it is looked for)
        # Idle warm containers of earlier tests in this process stay in its pool: only this match counts.
        before = left_behind(os.getpid())
        with pytest.raises(SupervisorFault, match="nested more than 2 levels deep"):
            with seated(openers) as players:
                play_match(game, players, seed=7)
        assert left_behind(os.getpid()) - before == set()
