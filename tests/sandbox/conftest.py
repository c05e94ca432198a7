"""Fixtures for the sandbox tests: they run the real Docker and bwrap sandboxes, never mocks.

Without a Docker engine (or working bwrap) the tests fail when CI=true and are skipped elsewhere.
"""

from __future__ import annotations

import pytest
from required import require

import sandbox


@pytest.fixture(scope="session")
def docker_image() -> str:
    from sandbox import docker_backend, image

    try:
        docker_backend.client()
    except sandbox.SandboxUnavailable as error:
        require(False, f"the Docker engine ({error})")
    return image.ensure_image()


@pytest.fixture(scope="session")
def bwrap_ready() -> None:
    from sandbox.bwrap_backend import bwrap_works

    require(bwrap_works(), "bubblewrap able to create its namespaces on this host")


@pytest.fixture(params=["docker", "docker-warm", "bwrap"])
def backend(request) -> str:
    request.getfixturevalue("bwrap_ready" if request.param == "bwrap" else "docker_image")
    return request.param


