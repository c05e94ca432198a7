"""The embedded broker's transport: kombu's filesystem transport that writes a message whole before a worker
can take it, and hears a worker's stop within a poll.

kombu's writer creates the message's file under its final name, then writes it, while a reader moves away
and reads any file of that name it finds: a worker looking at the folder in between took an empty file,
lost the message (the file is removed before it is decoded) and failed on it. Here the message is written
under a name no reader takes and renamed into place, which a reader sees whole or not at all.

A Celery worker on a polling transport runs a blocking loop that asks the transport for messages for up to
2 s at a time (celery.worker.loops.synloop) and looks at its stop flag only between those calls, then once
more after it (its `finally`). kombu's filesystem transport also sleeps a whole second between two looks at
the folder. So a demo stopped with Ctrl-C spent 3 of its 6 s waiting on nothing, and a message waited up to
a second before a worker saw it. Here the folder is looked at every tenth of a second and the wait ends as
soon as the worker is told to stop; callers that wait for a reply (a control command's) keep their timeout.
"""

import os
import socket
import time
import uuid

from celery.worker import state as worker_state
from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.json import dumps

POLL_SECONDS = 0.1
PARTIAL_SUFFIX = ".partial"  # a reader takes only names that end in "<queue>.msg"
# A message is written in milliseconds: a partial file this old is a sender's killed mid-write, never renamed.
STALE_PARTIAL_SECONDS = 300.0


def worker_told_to_stop() -> bool:
    """True once this process is a Celery worker told to stop (warm or cold), as celery's maybe_shutdown reads it."""
    return any(flag is not None and flag is not False
               for flag in (worker_state.should_stop, worker_state.should_terminate))


class EmbeddedChannel(filesystem.Channel):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._remove_stale_partials()

    def _remove_stale_partials(self) -> None:
        """What senders killed mid-write left (nobody else ever removes it), as each process opens the broker."""
        too_old = time.time() - STALE_PARTIAL_SECONDS
        try:
            with os.scandir(self.data_folder_out) as entries:
                for entry in entries:
                    if entry.name.endswith(PARTIAL_SUFFIX) and entry.stat().st_mtime < too_old:
                        try:
                            os.remove(entry.path)
                        except FileNotFoundError:  # another process's sweep took it first
                            pass
        except OSError:  # no folder yet: kombu makes it at the first message
            pass

    def _put(self, queue, payload, **kwargs):
        """Put `payload` on `queue`, visible only once whole. Named as kombu names it: the time in ms first,
        so that readers take the messages in the order they were sent."""
        name = f"{int(round(time.monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        path = os.path.join(self.data_folder_out, name)
        try:
            with open(path + PARTIAL_SUFFIX, "wb") as partial:
                partial.write(dumps(payload).encode())
            os.rename(path + PARTIAL_SUFFIX, path)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {path!r} to directory") from exc


class EmbeddedTransport(filesystem.Transport):
    Channel = EmbeddedChannel
    polling_interval = POLL_SECONDS

    def drain_events(self, connection, timeout=None):
        if timeout is None:
            return super().drain_events(connection)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or worker_told_to_stop():
                raise socket.timeout()
            try:
                return super().drain_events(connection, timeout=min(remaining, POLL_SECONDS))
            except socket.timeout:
                continue
