"""Closes the harness's protocol input (every pipe it holds open for reading) after its first answer: the
next message finds nobody reading."""
import fcntl
import os

answered = False


def act(observation):
    global answered
    if answered:
        raise AssertionError("the second message cannot reach a bot whose input is closed")
    answered = True
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            is_pipe = os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:")
            reading = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
        except OSError:
            continue
        if is_pipe and reading:
            os.close(fd)
    return observation["legal_actions"][0]
