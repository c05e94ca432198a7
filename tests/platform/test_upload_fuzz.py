"""Fuzzing the upload check: any bytes under any name are a bot's source or UploadRejected, nothing else."""

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from arena.bots.validation import UploadRejected, check_source
from platform_helpers import EXAMPLE_BOT
from quick_tier import examples

FUZZ = settings(max_examples=examples(300), derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
PYTHONISH = st.sampled_from([b"def act(o):\n    return 1\n", b"class Bot:\n    def act(self, o): pass\n", b"(", b")",
                             b"[", b"\xff", b"\x00", b"\n", b"    ", b"act = 1\n", b"from x import act\n",
                             b"lambda: ", b"if 1:\n", b"'''", b"\\", b"+a" * 50, "é".encode(), b"\r"])


def check(data: bytes, filename: str) -> None:
    try:
        source = check_source(data, filename)
    except UploadRejected as exc:
        assert str(exc)
    else:
        assert source == data.decode("utf-8")


@FUZZ
@given(st.binary(max_size=2000), st.text(max_size=150))
def test_any_bytes_under_any_name(data, filename):
    check(data, filename)


@FUZZ
@given(st.lists(PYTHONISH, max_size=40).map(b"".join), st.sampled_from(["bot.py", "b" * 200 + ".py"]))
def test_python_like_fragments(data, filename):
    check(data, filename)


@pytest.mark.parametrize("data", [
    b"x = " + b"(" * 200 + b")" * 200 + b"\n" + EXAMPLE_BOT,
    b"x = 1" + b" + 1" * 100_000 + b"\n" + EXAMPLE_BOT,
    b"x = " + b"[" * 100_000 + b"\n",
    b"x = " + b"-" * 100_000 + b"1\n" + EXAMPLE_BOT,
])
def test_deeply_nested_code_is_rejected_or_accepted_never_an_error(data, settings):
    settings.ARENA_MAX_UPLOAD_BYTES = len(data) + 1
    check(data, "deep.py")
