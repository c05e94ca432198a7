"""The bot image: built once, then found by its content-hash tag."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from sandbox import image

ROOT = Path(__file__).parents[2]


def run(*arguments: str) -> str:
    return subprocess.run([sys.executable, "-m", "sandbox.image", *arguments], capture_output=True, text=True,
                          check=True, cwd=ROOT, timeout=600).stdout.strip()


def test_a_second_build_rebuilds_nothing_and_names_the_same_image(docker_image):
    from sandbox.docker_backend import client

    # Whether a build happened, not how long it took (a loaded host can take seconds just to start Python):
    # a build or import tags the image anew, an event the engine reports even when its cache makes the
    # image identical.
    before = client().images.get(docker_image).id
    began = time.time()
    tag = run("build")
    events = client().events(since=int(began) - 1, until=int(time.time()) + 1, filters={"type": "image"},
                             decode=True)
    touched = [event["Action"] for event in events
               if docker_image in (event.get("id"), event.get("Actor", {}).get("Attributes", {}).get("name"))]

    assert touched == []
    assert client().images.get(docker_image).id == before
    assert tag == docker_image == run("name") == image.image_tag()
    assert tag.startswith(f"{image.REPOSITORY}:")


def test_image_has_python_and_nothing_to_spare(docker_image):
    from sandbox.docker_backend import client

    output = client().containers.run(docker_image, ["python3", "-c", "import sys, json; print(sys.version_info[0])"],
                                     remove=True, network_mode="none")
    attrs = client().images.get(docker_image).attrs

    assert output.strip() == b"3"
    assert attrs["Config"]["User"] == "65534:65534"
    assert attrs["Size"] < 200 << 20
