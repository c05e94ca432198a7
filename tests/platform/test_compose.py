"""docker-compose.yml end to end: web, worker, scheduler, redis and postgres in containers, bots in Docker.

One compose project with a unique name and a free port: register over HTTP, create an End Game bot,
upload a version, and wait until the compose worker has validated it in a sandbox container started
through the Docker socket. `down -v` always runs and must leave no container, volume or network.

Images: the stand-ins of sandbox/compose_images.py when this engine has them or no registry answers
(scripts/test builds them before pytest, so that here they are only found in the cache), else the
official images. The platform image is built every time, from cached layers after the first run.
Under CI a missing engine, compose tool or sandbox image fails instead of skipping.
"""

import os
import re
import shutil
import socket
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import requests

from platform_helpers import EXAMPLE_BOT, wait_for
from required import require

ROOT = Path(__file__).resolve().parents[2]
PLATFORM_IMAGE = "arena-platform:compose-test"


def compose_tool() -> list[str] | None:
    """Compose v1 (`docker-compose`, Debian's package) or the v2 plugin (`docker compose`)."""
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def docker_client():
    try:
        import docker

        client = docker.from_env()
        client.ping()
        return client
    except Exception:  # noqa: BLE001 - no engine: the test is skipped (or fails in CI)
        return None


def image_settings(client) -> dict[str, str]:
    """The stand-ins where they exist or no registry answers; the official images otherwise."""
    from sandbox import compose_images, image

    stand_ins = compose_images.settings()
    have_stand_ins = all(image.image_exists(client, stand_ins[name]) for name in compose_images.VARIABLES.values())
    if have_stand_ins or not image._registry_reachable(client):
        return compose_images.build(client)
    return {}


class Compose:
    def __init__(self, tool: list[str], project: str, env: dict[str, str]):
        self.command = [*tool, "--project-name", project, "--project-directory", str(ROOT),
                        "--file", str(ROOT / "docker-compose.yml")]
        self.project = project
        self.env = env

    def __call__(self, *args: str, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess:
        result = subprocess.run([*self.command, *args], env=self.env, cwd=ROOT, capture_output=True, text=True,
                                timeout=timeout)
        if check:
            assert result.returncode == 0, f"{' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        return result

    def logs(self) -> str:
        return self("logs", "--no-color", "--tail", "60", check=False).stdout[-8000:]


@pytest.fixture
def compose_project():
    client = docker_client()
    require(client is not None, "the Docker engine")
    tool = compose_tool()
    require(tool is not None, "docker-compose (apt-get install docker-compose) or the compose plugin")
    import sandbox
    from sandbox import image
    from sandbox.docker_backend import LABEL, OWNER_LABEL

    # The worker starts bots in the sandbox image of this host's engine (built by scripts/test).
    require(sandbox.docker_ready(), f"the sandbox image {image.image_tag()} (python -m sandbox.image build)")
    port = free_port()
    project = f"arena-test-{uuid.uuid4().hex[:10]}"
    env = {
        **os.environ,
        **image_settings(client),
        "ARENA_IMAGE": PLATFORM_IMAGE,
        "ARENA_PORT": str(port),
        "SECRET_KEY": f"compose-test-{uuid.uuid4().hex}",
        "POSTGRES_PASSWORD": f"compose-db-{uuid.uuid4().hex}",
        "ALLOWED_HOSTS": "localhost,127.0.0.1",
        "CSRF_TRUSTED_ORIGINS": f"http://127.0.0.1:{port}",
        "ARENA_DEMO_DATA": "0",
    }
    compose = Compose(tool, project, env)
    try:
        previous = client.images.get(PLATFORM_IMAGE).id
    except Exception:  # noqa: BLE001 - not built yet
        previous = None
    try:
        # One build for the four services that share the image (all cached layers after the first run).
        compose("build", "--force-rm", "migrate", timeout=450)
        if previous and client.images.get(PLATFORM_IMAGE).id != previous:
            try:  # the last run's image, untagged by this build (the code changed): not kept around
                client.images.remove(previous)
            except Exception:  # noqa: BLE001 - still in use by another run: its own next build removes it
                pass
        compose("up", "-d", timeout=300)
        yield compose, f"http://127.0.0.1:{port}"
    finally:
        label = f"com.docker.compose.project={project}"
        # The stack's containers name their hosts by their short ids (the owners of the bots' sandboxes).
        hosts = {c.id[:12] for c in client.containers.list(all=True, filters={"label": label})}
        compose("down", "--volumes", "--remove-orphans", "--timeout", "10", timeout=300, check=False)
        # What a worker killed at the end of the grace time left, the host's next sweep removes.
        sandbox.cleanup_leftovers()
        sandboxes = [row["Names"] for row in client.api.containers(all=True, filters={"label": LABEL})
                     if (row.get("Labels") or {}).get(OWNER_LABEL, "").partition("/")[0] in hosts]
        assert not sandboxes, f"the stack's bot sandboxes outlived it: {sandboxes}"
        leftovers = {
            "containers": [c.name for c in client.containers.list(all=True, filters={"label": label})],
            "volumes": [v.name for v in client.volumes.list(filters={"label": label})],
            "networks": [n.name for n in client.networks.list(filters={"label": label})],
        }
        assert not any(leftovers.values()), f"docker-compose down left {leftovers}"


def answer(base: str, path: str):
    """The web container's answer to GET path, or None while it does not answer."""
    try:
        return requests.get(base + path, timeout=5)
    except requests.RequestException:
        return None


def test_compose_runs_the_platform_and_the_worker_validates_in_docker(compose_project):
    compose, base = compose_project
    started = time.monotonic()

    last_check = [0.0]

    def web_ready():
        response = answer(base, "/api/games/")
        if response is not None and response.status_code < 500:  # 403 without a token: it answers
            return True
        if time.monotonic() - last_check[0] > 5:  # a failed service will not come back: stop early
            last_check[0] = time.monotonic()
            states = compose("ps", check=False).stdout
            assert not re.search(r"Exit(ed \(| )[1-9]", states), f"a service failed:\n{states}\n{compose.logs()}"
        return False

    try:
        wait_for(web_ready, 180, "the web container to answer")
    except BaseException:
        print(compose.logs())
        raise

    registered = requests.post(f"{base}/api/auth/register/", timeout=30,
                               data={"username": "compose-ada", "email": "ada@compose.example", "password": "a-long-compose-password-1"})
    assert registered.status_code == 201, registered.text
    session = requests.Session()
    session.headers["Authorization"] = f"Token {registered.json()['token']}"

    bot = session.post(f"{base}/api/bots/", json={"name": "compose-greedy", "game": "endgame"}, timeout=30)
    assert bot.status_code == 201, bot.text
    bot_id = bot.json()["id"]
    upload = session.post(f"{base}/api/bots/{bot_id}/versions/", files={"file": ("greedy.py", EXAMPLE_BOT)},
                          timeout=30)
    assert upload.status_code == 201, upload.text
    assert upload.json()["status"] == "validating"

    def validated():
        response = session.get(f"{base}/api/bots/{bot_id}/versions/", timeout=30)
        assert response.status_code == 200, response.text
        body = response.json()
        versions = body["results"] if isinstance(body, dict) else body
        return versions[0]["status"] != "validating" and versions[0]

    try:
        version = wait_for(validated, 150, "the compose worker to validate the upload in a Docker sandbox")
    except BaseException:
        print(compose.logs())
        raise
    assert version["status"] == "accepted", f"{version['verdict']}\n{version['validation_log']}\n{compose.logs()}"
    assert session.get(f"{base}/api/bots/{bot_id}/", timeout=30).json()["active_version"]["number"] == 1
    print(f"compose: web answered and the upload was validated in {time.monotonic() - started:.0f}s")
