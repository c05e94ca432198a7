"""Local stand-ins for the images docker-compose.yml pulls, for hosts that reach no registry.

`docker compose` on a normal host pulls `postgres`, `redis` and builds the platform image from
`python:3.11-slim-bookworm`. Where no registry answers (CI machines: PyPI and the Debian mirror only),
this builds the three from Debian bookworm's own packages, the way sandbox/image.py builds the bot image:
one debootstrap root file system (python3 with venv, postgresql, redis-server; cached under CACHE_DIR,
keyed by a hash of its definition) imported three times with different configurations. The three
images share their one layer, so they cost the disk space of one.

    python -m sandbox.compose_images build [--env-file PATH]   # build (instant when cached), print the settings
    python -m sandbox.compose_images env                       # the settings, without building

The settings are the variables docker-compose.yml reads (ARENA_BASE_IMAGE, ARENA_POSTGRES_IMAGE,
ARENA_REDIS_IMAGE, ARENA_BUILD_NETWORK), one `NAME=value` a line: pass the file to
`docker compose --env-file` (or export them). ARENA_BUILD_NETWORK=host lets `pip` inside the platform
image's build reach PyPI on a Docker engine started with `--bridge=none`.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from sandbox import image

PACKAGES = ["python3", "python3-venv", "postgresql", "redis-server"]
PG_BIN = "/usr/lib/postgresql/15/bin"
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# The official postgres image's contract, as far as docker-compose.yml uses it: POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB create the cluster in PGDATA (a volume) on the first start.
POSTGRES_ENTRYPOINT = r"""#!/bin/sh
# Stand-in for the official postgres image's entrypoint (sandbox/compose_images.py).
set -eu
: "${PGDATA:=/var/lib/postgresql/data}" "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /run/postgresql
    chown postgres:postgres "$PGDATA" /run/postgresql
    chmod 700 "$PGDATA"
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile=$(mktemp)
    printf '%s\n' "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}" >"$pwfile"
    initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust \
        --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    if [ "$POSTGRES_DB" != postgres ]; then
        # A private socket folder, so that the health check does not see this temporary server.
        init_socket=$(mktemp -d)
        pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories=$init_socket" -w start >/dev/null
        createdb -h "$init_socket" -U "$POSTGRES_USER" -O "$POSTGRES_USER" "$POSTGRES_DB"
        pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
        rmdir "$init_socket"
    fi
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
"""

IMAGES = {
    # The platform Dockerfile's BASE_IMAGE: it makes its own venv, so Debian's python3 does.
    "python": ["ENV LANG=C.UTF-8", 'CMD ["python3"]'],
    "postgres": [f"ENV PATH={PG_BIN}:{DEFAULT_PATH}", "ENV PGDATA=/var/lib/postgresql/data", "ENV LANG=C.UTF-8",
                 'ENTRYPOINT ["/usr/local/bin/arena-postgres-entrypoint"]', "EXPOSE 5432"],
    # protected-mode off: without a password Redis otherwise refuses every client but localhost.
    "redis": ["USER redis", "WORKDIR /var/lib/redis", 'CMD ["redis-server", "--protected-mode", "no"]',
              "EXPOSE 6379"],
}
# The host's CA bundle, added on top of the python image so that pip inside the platform's build trusts
# what the host trusts (a TLS-inspecting proxy's CA, say). Kept out of the cached root file system: it
# may change with the host while the rest does not.
CA_BUNDLE = Path(os.environ.get("SSL_CERT_FILE") or "/etc/ssl/certs/ca-certificates.crt")
CA_LAYER = """FROM {base}
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt PIP_CERT=/etc/ssl/certs/ca-certificates.crt
"""
# docker-compose.yml's variable for each image.
VARIABLES = {"python": "ARENA_BASE_IMAGE", "postgres": "ARENA_POSTGRES_IMAGE", "redis": "ARENA_REDIS_IMAGE"}


def definition_hash() -> str:
    digest = hashlib.sha256(repr((image.DEBIAN_SUITE, PACKAGES, image.TRIMMED, POSTGRES_ENTRYPOINT)).encode())
    return digest.hexdigest()[:16]


def _ca_bundle() -> bytes | None:
    return CA_BUNDLE.read_bytes() if CA_BUNDLE.is_file() else None


def imported_tag(name: str) -> str:
    """The image as `docker import` makes it from the root file system."""
    config = hashlib.sha256(repr(IMAGES[name]).encode()).hexdigest()[:8]
    return f"arena-compose-{name}:{definition_hash()}-{config}"


def image_tag(name: str) -> str:
    """The image compose uses: the imported one, and for python the host's CA bundle on top."""
    tag = imported_tag(name)
    bundle = _ca_bundle()
    if name != "python" or bundle is None:
        return tag
    return f"{tag}-ca{hashlib.sha256(bundle + CA_LAYER.encode()).hexdigest()[:8]}"


def _setup(root: Path) -> None:
    """Add the postgres entrypoint; drop the cluster the postgresql package's installation created."""
    entrypoint = root / "usr/local/bin/arena-postgres-entrypoint"
    entrypoint.write_text(POSTGRES_ENTRYPOINT)
    entrypoint.chmod(0o755)
    for leftover in ("var/lib/postgresql/15", "etc/postgresql/15"):
        path = root / leftover
        if path.is_dir():
            shutil.rmtree(path)


def ensure_tarball() -> Path:
    name = f"compose-rootfs-{definition_hash()}"
    root = image.ensure_rootfs(PACKAGES, image.CACHE_DIR / name, setup=_setup)
    return image.ensure_tarball(root, image.CACHE_DIR / f"{name}.tar")


def settings() -> dict[str, str]:
    values = {VARIABLES[name]: image_tag(name) for name in IMAGES}
    values["ARENA_BUILD_NETWORK"] = "host"
    return values


def build(client=None) -> dict[str, str]:
    """Import each image this Docker engine lacks; return the compose settings that select them."""
    import docker

    client = client or docker.from_env()
    for name, changes in IMAGES.items():
        tag = image_tag(name)
        if image.image_exists(client, tag):
            continue
        base = imported_tag(name)
        if not image.image_exists(client, base):
            repository, version = base.split(":")
            client.api.import_image_from_file(str(ensure_tarball()), repository=repository, tag=version,
                                              changes=changes)
        if tag != base:
            with tempfile.TemporaryDirectory() as context:
                (Path(context) / "ca-certificates.crt").write_bytes(_ca_bundle())
                (Path(context) / "Dockerfile").write_text(CA_LAYER.format(base=base))
                client.images.build(path=context, tag=tag, rm=True)  # COPY and ENV only: no network needed
        if not image.image_exists(client, tag):
            raise RuntimeError(f"building {tag} did not produce the image")
    return settings()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sandbox.compose_images", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build_command = commands.add_parser("build", help="import the images (instant when cached), print the settings")
    build_command.add_argument("--env-file", type=Path, help="also write the settings to this file")
    commands.add_parser("env", help="print the settings without building")
    args = parser.parse_args(argv)
    values = build() if args.command == "build" else settings()
    text = "".join(f"{key}={value}\n" for key, value in values.items())
    if getattr(args, "env_file", None):
        args.env_file.parent.mkdir(parents=True, exist_ok=True)
        args.env_file.write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
