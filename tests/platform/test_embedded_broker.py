"""The demo's embedded broker (arena.core.broker): messages arrive whole, and a worker told to stop stops waiting.

The stop itself, end to end, is test_demo's: everything gone within 10 s of Ctrl-C.
"""

import os
import socket
import threading
import time

import pytest
from celery.worker import state as worker_state
from kombu import Connection, Exchange, Queue

from arena.core.broker import EmbeddedTransport

LONG_WAIT = 30.0  # far longer than any wait the transport may take on its own


@pytest.fixture
def connection(tmp_path):
    folders = {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path),
               "control_folder": str(tmp_path / "control")}
    with Connection("filesystem://localhost/", transport=EmbeddedTransport, transport_options=folders) as conn:
        yield conn


@pytest.fixture
def queue(connection):
    queue = Queue("arena", Exchange("arena", type="direct"), routing_key="arena")
    queue(connection.default_channel).declare()
    return queue


@pytest.fixture
def worker_told_to_stop(monkeypatch):
    def tell(how: str):
        monkeypatch.setattr(worker_state, {"warm": "should_stop", "cold": "should_terminate"}[how], 0)  # EX_OK
    return tell


def consumed(connection, queue, timeout: float) -> list:
    received = []
    with connection.Consumer(queue, callbacks=[lambda body, message: (received.append(body), message.ack())]):
        try:
            connection.drain_events(timeout=timeout)
        except socket.timeout:
            pass
    return received


def test_a_message_sent_while_a_worker_waits_reaches_it_before_its_wait_ends(connection, queue):
    def send_soon():
        time.sleep(0.3)  # the consumer is waiting by then: the message must be seen by a later poll
        with connection.clone() as sender:
            sender.Producer().publish({"task": "hello"}, exchange=queue.exchange, routing_key="arena",
                                      declare=[queue])

    sender = threading.Thread(target=send_soon)
    sender.start()
    started = time.monotonic()
    assert consumed(connection, queue, LONG_WAIT) == [{"task": "hello"}]
    sender.join()
    assert time.monotonic() - started < LONG_WAIT


# Another process (the web server) sends while the worker looks at the folder as fast as it can: kombu's own
# writer made each file visible empty before writing it, and every message of this run was lost that way.
SENDER = """
import sys
from kombu import Connection, Exchange, Queue
from arena.core.broker import EmbeddedTransport
folder, count = sys.argv[1], int(sys.argv[2])
options = {"data_folder_in": folder, "data_folder_out": folder, "control_folder": folder + "/control"}
queue = Queue("arena", Exchange("arena", type="direct"), routing_key="arena")
with Connection("filesystem://localhost/", transport=EmbeddedTransport, transport_options=options) as sender:
    producer = sender.Producer()
    for index in range(count):
        producer.publish({"index": index, "padding": "x" * 100_000}, exchange=queue.exchange, routing_key="arena",
                         declare=[queue])
"""


def test_every_message_another_process_sends_arrives_whole_while_a_worker_reads(connection, queue, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    count = 100
    sender = subprocess.Popen([sys.executable, "-c", SENDER, str(tmp_path), str(count)],
                              cwd=Path(__file__).parents[2] / "platform")
    received = []
    try:
        with connection.Consumer(queue, callbacks=[lambda body, message: (received.append(body["index"]),
                                                                           message.ack())]):
            while len(received) < count:
                try:
                    connection.drain_events(timeout=LONG_WAIT)
                except socket.timeout:
                    break
    finally:
        sender.wait(timeout=LONG_WAIT)
    assert sender.returncode == 0
    assert sorted(received) == list(range(count))


@pytest.mark.parametrize("how", ["warm", "cold"])
def test_a_worker_told_to_stop_stops_waiting_for_messages(connection, queue, worker_told_to_stop, how):
    worker_told_to_stop(how)
    started = time.monotonic()
    assert consumed(connection, queue, LONG_WAIT) == []
    assert time.monotonic() - started < LONG_WAIT / 2


def test_a_wait_with_nothing_to_read_lasts_its_timeout_when_no_stop_was_asked(connection, queue):
    """A reply waited for (a control command's, a result's) is not cut short by the transport's short polls."""
    started = time.monotonic()
    assert consumed(connection, queue, 0.5) == []
    assert time.monotonic() - started >= 0.5


def test_what_a_sender_killed_mid_write_left_is_removed_by_the_next_process_to_open_the_broker(tmp_path):
    folder = tmp_path / "broker"
    folder.mkdir()
    stale, fresh = folder / "1_a.arena.msg.partial", folder / "2_b.arena.msg.partial"
    for partial in (stale, fresh):
        partial.write_bytes(b'{"half": ')
    an_hour_ago = time.time() - 3600
    os.utime(stale, (an_hour_ago, an_hour_ago))
    folders = {"data_folder_in": str(folder), "data_folder_out": str(folder), "control_folder": str(tmp_path / "c")}
    with Connection("filesystem://localhost/", transport=EmbeddedTransport, transport_options=folders) as opened:
        opened.default_channel
    assert not stale.exists()
    assert fresh.exists()  # a message being written now is left to its sender
