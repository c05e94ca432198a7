"""The bot harness: runs inside the sandbox, loads one student bot and speaks the bot protocol for it.

Standalone on purpose (standard library only): it is copied next to the bot file into the container or
the bwrap root and run as `python3 -I -S harness.py BOT_FILE [--await-pipes]` (see `await_pipes`). The
protocol is described in docs/bot-protocol.md: one JSON object per line on stdin/stdout, each with "v"
(the protocol version) and "seq" (the number of the referee's message it answers).
"""

import importlib.util
import json
import os
import sys
import traceback

PROTOCOL_VERSION = 1


class Channel:
    """The protocol's stdin/stdout, moved to private descriptors before the bot is imported."""

    def __init__(self):
        self._reader = os.fdopen(os.dup(0), "rb")
        self._writer_fd = os.dup(1)
        # The bot reads an empty stdin and prints to stderr: nothing it does with fds 0/1 touches the protocol.
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        sys.stdout.reconfigure(line_buffering=True)

    def send(self, message):
        message = dict(message, v=PROTOCOL_VERSION)
        data = (json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n").encode()
        while data:
            data = data[os.write(self._writer_fd, data):]

    def receive(self):
        line = self._reader.readline()
        if not line:  # the referee is done with us
            _exit(0)
        return json.loads(line)


def _exit(status):
    # Skip interpreter shutdown: it would wait for the bot's own non-daemon threads.
    sys.stderr.flush()
    os._exit(status)


def load_bot(path):
    """The bot's (setup or None, act): module-level functions, or the methods of a `Bot` instance."""
    spec = importlib.util.spec_from_file_location("bot", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bot"] = module
    spec.loader.exec_module(module)
    target = module.Bot() if isinstance(getattr(module, "Bot", None), type) else module
    act = getattr(target, "act", None)
    if not callable(act):
        raise TypeError("the bot defines neither act(observation) nor a class Bot with an act method")
    setup = getattr(target, "setup", None)
    return (setup if callable(setup) else None), act


def failure_kind(error):
    if isinstance(error, MemoryError):
        return "memory"
    return "crash"


def await_pipes():
    """Take the protocol's pipes as stdin, stdout and stderr from the socket that is stdin now: a warm
    container's supervisor starts the harness ahead of its match and passes them when the match comes
    (sandbox/supervisor.py). The socket is closed before any bot code runs."""
    import socket

    with socket.socket(fileno=os.dup(0)) as link:
        _, fds, _, _ = socket.recv_fds(link, 1, 3)
    if len(fds) != 3:  # the supervisor let it go without a match: the container is being removed
        _exit(0)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)


def main():
    bot_path = sys.argv[1]
    sys.dont_write_bytecode = True
    os.environ.clear()
    if sys.argv[2:] == ["--await-pipes"]:
        await_pipes()
    channel = Channel()
    seq = 0
    try:
        message = channel.receive()
        seq = message["seq"]
        if message.get("type") != "setup":
            raise ValueError(f"expected a setup message, got {message.get('type')!r}")
        setup, act = load_bot(bot_path)
        if setup is not None:
            setup(message.get("info", {}))
        channel.send({"seq": seq, "type": "ready"})
        while True:
            message = channel.receive()
            seq = message["seq"]
            action = act(message["observation"])
            try:
                channel.send({"seq": seq, "type": "action", "action": action})
            except (TypeError, ValueError) as error:
                channel.send({"seq": seq, "type": "error", "kind": "illegal",
                              "error": f"the action {repr(action)[:200]} is not a JSON value: {error}"})
                _exit(1)
    except BaseException as error:  # noqa: BLE001 - sys.exit and KeyboardInterrupt are bot failures too
        channel.send({"seq": seq, "type": "error", "kind": failure_kind(error), "error": traceback.format_exc()})
        _exit(1)


if __name__ == "__main__":
    main()
