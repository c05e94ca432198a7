"""The bwrap sandbox's seccomp filter: Docker's default profile, compiled to BPF by libseccomp.

`docker-seccomp-default.json` is Docker's default profile as published (github.com/moby/profiles/seccomp
v0.2.3, Apache-2.0, unchanged, so it can be compared with a newer one). It allows a list of system calls
and answers every other one EPERM; its rules that depend on capabilities, architecture or kernel version are
read as Docker reads them for a container with every capability dropped, which is how bwrap runs the bot.

Two rules of ours are added, both stricter than Docker:
- `REFUSED`: ptrace and reading or writing another process's memory (Docker allows them on kernels from 4.8
  on), name_to_handle_at, and setting extended attributes: a bot needs none of them.
- No file may be given an execute bit (creating it with one, chmod, mknod): bubblewrap cannot mount the
  sandbox's /tmp noexec, the only writable place, so nothing written there can be executed instead.
  A program can still be run from memory (memfd_create, then execveat), as in Docker with a noexec /tmp.

System calls that this libseccomp does not know are left to the default answer, EPERM; other architectures'
system calls (x86's int 0x80 on x86-64) kill the process.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import platform
from pathlib import Path

PROFILE = Path(__file__).with_name("docker-seccomp-default.json")
CAPABILITIES: frozenset[str] = frozenset()  # bwrap --cap-drop ALL
# Setting extended attributes is refused too: a POSIX ACL (system.posix_acl_access) can grant an execute bit.
REFUSED = frozenset({"ptrace", "process_vm_readv", "process_vm_writev", "name_to_handle_at",
                     "setxattr", "lsetxattr", "fsetxattr"})
# Docker's names for the machine architectures (`includes.arches` in the profile).
DOCKER_ARCHES = {"x86_64": "amd64", "aarch64": "arm64", "i686": "x86", "armv7l": "arm", "ppc64le": "ppc64le",
                 "s390x": "s390x", "riscv64": "riscv64"}
EXECUTE_BITS = 0o111
# open(2) and openat(2) only use the mode when they create a file (O_CREAT, or O_TMPFILE without O_DIRECTORY).
CREATING = os.O_CREAT | (os.O_TMPFILE & ~os.O_DIRECTORY)
# Where each file-creating or mode-changing call has its mode (and flags) argument.
MODE_ARGUMENT = {"creat": 1, "chmod": 1, "fchmod": 1, "fchmodat": 2, "mknod": 1, "mknodat": 2,
                 "open": 2, "openat": 3}
FLAGS_ARGUMENT = {"open": 1, "openat": 2}


class FilterUnavailable(RuntimeError):
    """libseccomp (or its Python binding) is missing: the sandbox must not run without its filter."""


def _kernel() -> tuple[int, ...]:
    release = platform.release().split("-")[0]
    return tuple(int(part) for part in release.split(".")[:2] if part.isdigit())


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:2])


def rule_applies(rule: dict, arch: str, caps: frozenset[str] = CAPABILITIES, kernel=None) -> bool:
    """Whether a profile rule is in force for `arch`, `caps` and the kernel, by Docker's reading
    (profiles/seccomp/seccomp_linux.go: excludes first, then includes)."""
    kernel = _kernel() if kernel is None else kernel
    excludes, includes = rule.get("excludes") or {}, rule.get("includes") or {}
    if arch in excludes.get("arches", ()) or caps & set(excludes.get("caps", ())):
        return False
    if "minKernel" in excludes and kernel >= _version(excludes["minKernel"]):
        return False
    if includes.get("arches") and arch not in includes["arches"]:
        return False
    if not set(includes.get("caps", ())) <= caps:
        return False
    return "minKernel" not in includes or kernel >= _version(includes["minKernel"])


def _seccomp():
    try:
        import pyseccomp
    except (ImportError, RuntimeError, OSError) as error:  # RuntimeError: the library itself is missing
        raise FilterUnavailable(f"cannot load libseccomp ({error}); install the libseccomp2 package") from error
    return pyseccomp


def _add(seccomp, syscall_filter, action: int, name: str, *args) -> None:
    if seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) < 0:
        return  # unknown to this libseccomp: the default answer (EPERM) stands
    syscall_filter.add_rule(action, name, *args)


def _add_without_execute_bits(seccomp, syscall_filter, name: str) -> None:
    """Allow `name` only when the mode it sets has no execute bit (or, for open, when it creates nothing)."""
    allow = seccomp.ALLOW
    _add(seccomp, syscall_filter, allow, name, seccomp.Arg(MODE_ARGUMENT[name], seccomp.MASKED_EQ, EXECUTE_BITS, 0))
    if name in FLAGS_ARGUMENT:
        _add(seccomp, syscall_filter, allow, name, seccomp.Arg(FLAGS_ARGUMENT[name], seccomp.MASKED_EQ, CREATING, 0))


def _condition(seccomp, spec: dict):
    operator = getattr(seccomp, spec["op"].removeprefix("SCMP_CMP_"))
    return seccomp.Arg(spec["index"], operator, spec["value"], spec.get("valueTwo", 0))


def build_filter(profile: dict, arch: str):
    """The libseccomp filter of `profile` (Docker's JSON format) with our additions, for `arch`."""
    seccomp = _seccomp()
    default_errno = profile.get("defaultErrnoRet", errno.EPERM)
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO", "the profile must refuse what it does not list"
    syscall_filter = seccomp.SyscallFilter(seccomp.ERRNO(default_errno))
    for rule in profile["syscalls"]:
        if not rule_applies(rule, arch):
            continue
        if rule["action"] == "SCMP_ACT_ALLOW":
            action = seccomp.ALLOW
        elif rule["action"] == "SCMP_ACT_ERRNO":
            action = seccomp.ERRNO(rule.get("errnoRet", default_errno))
        else:
            raise ValueError(f"unsupported seccomp action {rule['action']}")
        conditions = [_condition(seccomp, spec) for spec in rule.get("args") or ()]
        for name in rule["names"]:
            if name in REFUSED:
                continue
            if name in MODE_ARGUMENT and action == seccomp.ALLOW and not conditions:
                _add_without_execute_bits(seccomp, syscall_filter, name)
            else:
                _add(seccomp, syscall_filter, action, name, *conditions)
    return syscall_filter


@functools.cache
def bpf_program() -> bytes:
    """The compiled filter for this machine (classic BPF, as `bwrap --seccomp FD` reads it)."""
    arch = DOCKER_ARCHES.get(platform.machine(), platform.machine())
    syscall_filter = build_filter(json.loads(PROFILE.read_text(encoding="utf-8")), arch)
    with os.fdopen(os.memfd_create("arena-seccomp-build", 0), "w+b") as memory:
        syscall_filter.export_bpf(memory)
        memory.seek(0)
        return memory.read()


def program_fd() -> int:
    """A new file descriptor holding the compiled filter, positioned at its start, for bwrap to read."""
    fd = os.memfd_create("arena-seccomp", 0)
    os.write(fd, bpf_program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
