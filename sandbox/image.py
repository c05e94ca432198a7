"""The image bots run in: a minimal Debian with python3, nothing else.

Two ways to build the same image: `sandbox/Dockerfile` on hosts that reach a registry, or offline
(debootstrap of a minimal Debian from a mirror, then `docker import`) where none is reachable, as on the
CI machines. The tag carries a content hash of the image definition, so a build is skipped when the
image is already there. The debootstrap root file system stays cached under CACHE_DIR: it makes rebuilds
fast and is also the root the bwrap backend runs bots in.

    python -m sandbox.image build [--method auto|dockerfile|debootstrap]
    python -m sandbox.image name        # the tag
    python -m sandbox.image rootfs      # the cached root file system (built if missing)
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCKERFILE = HERE / "Dockerfile"
REPOSITORY = "arena-sandbox"
CACHE_DIR = Path(os.environ.get("ARENA_SANDBOX_CACHE", "/var/cache/arena-sandbox"))
DEBIAN_MIRROR = os.environ.get("ARENA_DEBIAN_MIRROR", "http://deb.debian.org/debian")
DEBIAN_SUITE = "bookworm"
BASE_IMAGE = "debian:bookworm-slim"
PACKAGES = ["python3"]
# What a bot never needs; dropping it halves the image.
TRIMMED = ["var/cache/apt", "var/lib/apt/lists", "usr/share/doc", "usr/share/man", "usr/share/locale",
           "usr/share/info"]
# The same image configuration as the Dockerfile's USER/WORKDIR/CMD.
IMPORT_CHANGES = ["USER 65534:65534", "WORKDIR /tmp", 'CMD ["python3"]']


def definition_hash() -> str:
    """A hash of everything that defines the image (not of the mirror it is fetched from)."""
    digest = hashlib.sha256(DOCKERFILE.read_bytes())
    digest.update(repr((DEBIAN_SUITE, PACKAGES, TRIMMED, IMPORT_CHANGES)).encode())
    return digest.hexdigest()[:16]


def image_tag() -> str:
    return f"{REPOSITORY}:{definition_hash()}"


def rootfs_dir() -> Path:
    return CACHE_DIR / f"rootfs-{definition_hash()}"


def rootfs_tarball() -> Path:
    return CACHE_DIR / f"rootfs-{definition_hash()}.tar"


@contextlib.contextmanager
def _build_lock():
    """One build at a time on this host (parallel test workers all ask for the image)."""
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    with open(CACHE_DIR / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def ensure_rootfs(packages: list[str] | None = None, target: Path | None = None, setup=None) -> Path:
    """The trimmed Debian root file system with python3, debootstrapped once and cached.

    Other images reuse this (sandbox/compose_images.py): `packages` to install instead of PACKAGES,
    `target` the cache folder (its name must carry a hash of everything that defines the content), and
    `setup(root)` to add files before the folder appears under its final name.
    """
    packages = PACKAGES if packages is None else packages
    target = rootfs_dir() if target is None else target
    if target.is_dir():
        return target
    with _build_lock():
        if target.is_dir():
            return target
        debs = CACHE_DIR / "debs"
        debs.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="rootfs-", dir=CACHE_DIR))
        try:
            subprocess.run(
                ["debootstrap", "--variant=minbase", f"--include={','.join(packages)}", f"--cache-dir={debs}",
                 DEBIAN_SUITE, str(work / "root"), DEBIAN_MIRROR],
                check=True, stdout=subprocess.DEVNULL,
            )
            for relative in TRIMMED:
                shutil.rmtree(work / "root" / relative, ignore_errors=True)
            if setup is not None:
                setup(work / "root")
            (work / "root").chmod(0o755)
            (work / "root").rename(target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target


def ensure_tarball(root: Path | None = None, tarball: Path | None = None) -> Path:
    """A tar of the root file system (ensure_rootfs() and rootfs_tarball() by default) for `docker import`."""
    tarball = rootfs_tarball() if tarball is None else tarball
    if tarball.exists():
        return tarball
    root = ensure_rootfs() if root is None else root
    partial = tarball.with_name(f"{tarball.name}.{os.getpid()}.partial")  # parallel builders: one file each
    with tarfile.open(partial, "w") as archive:
        archive.add(root, arcname=".")
    partial.rename(tarball)
    return tarball


def _registry_reachable(client) -> bool:
    try:
        client.images.get(BASE_IMAGE)
        return True
    except Exception:  # noqa: BLE001 - any failure to find the base image means "use the offline path"
        pass
    try:
        client.images.pull(BASE_IMAGE)
        return True
    except Exception:  # noqa: BLE001 - no registry (DNS, network, auth): the offline path
        return False


def image_exists(client, tag: str | None = None) -> bool:
    import docker.errors

    try:
        client.images.get(tag or image_tag())
        return True
    except docker.errors.ImageNotFound:
        return False


def build(method: str = "auto", client=None) -> str:
    """Build and tag the image unless it exists; return the tag."""
    import docker

    client = client or docker.from_env()
    tag = image_tag()
    if image_exists(client, tag):
        return tag
    if method == "auto":
        method = "dockerfile" if _registry_reachable(client) else "debootstrap"
    if method == "dockerfile":
        client.images.build(path=str(HERE), dockerfile=DOCKERFILE.name, tag=tag, rm=True)
    elif method == "debootstrap":
        tarball = ensure_tarball()
        repository, version = tag.split(":")
        client.api.import_image_from_file(str(tarball), repository=repository, tag=version,
                                          changes=IMPORT_CHANGES)
    else:
        raise ValueError(f"unknown build method {method!r}; use auto, dockerfile or debootstrap")
    if not image_exists(client, tag):
        raise RuntimeError(f"building {tag} by {method} did not produce the image")
    return tag


def ensure_image() -> str:
    """The image tag, building the image first if this Docker engine does not have it."""
    return build()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sandbox.image", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build_command = commands.add_parser("build", help="build and tag the image (instant when cached)")
    build_command.add_argument("--method", choices=["auto", "dockerfile", "debootstrap"], default="auto")
    commands.add_parser("name", help="print the image tag")
    commands.add_parser("rootfs", help="print the cached root file system, building it if missing")
    args = parser.parse_args(argv)
    if args.command == "build":
        print(build(args.method))
    elif args.command == "name":
        print(image_tag())
    else:
        print(ensure_rootfs())
    return 0


if __name__ == "__main__":
    sys.exit(main())
