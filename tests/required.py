"""The one rule for a test whose real service or tool is missing: a failure in CI, a skip elsewhere."""

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"


def require(condition: bool, what: str) -> None:
    """Go on if `condition`; otherwise skip (on a developer's machine) or fail (CI=true) naming `what`."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{what} is required in CI: the tests must run on the real thing, not skip")
    pytest.skip(f"{what} is not available")
