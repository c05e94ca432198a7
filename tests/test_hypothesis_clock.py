"""A property test is judged by what the code gives, never by the wall clock (tests/conftest.py's profile):
on a loaded machine an example that takes longer than Hypothesis's default deadline still passes."""

import time

from hypothesis import given, settings, strategies as st

# An example longer than Hypothesis's default deadline (200 ms), as a loaded machine makes a quick one
# (test_similarity.py's took 305 ms at load 30). Waiting is the point here: nothing else is awaited.
LONGER_THAN_THE_DEFAULT_DEADLINE = 0.25


@settings(max_examples=1, database=None)
@given(st.integers())
def test_a_slow_example_is_not_failed_for_its_time(number):
    time.sleep(LONGER_THAN_THE_DEFAULT_DEADLINE)
    assert isinstance(number, int)


def test_the_suite_profile_ignores_the_clocks():
    assert settings.default.deadline is None
    assert "too_slow" in {check.name for check in settings.default.suppress_health_check}
