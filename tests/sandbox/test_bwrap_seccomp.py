"""The bwrap sandbox's seccomp filter (sandbox/syscall_filter.py): Docker's default profile, checked from
inside the sandbox by bots that try forbidden system calls and try to run a program they wrote to /tmp."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sandbox_testkit import BOTS, bot_file, play, report

from sandbox import syscall_filter

# Forbidden by Docker's default profile to a container without capabilities (clone3 answers ENOSYS there,
# so that libc falls back to clone, whose namespace flags are filtered).
FORBIDDEN = ["mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "keyctl", "add_key", "request_key",
             "bpf", "perf_event_open", "ptrace", "personality", "kexec_load", "init_module", "finit_module",
             "delete_module", "reboot", "swapon", "swapoff", "settimeofday", "clock_settime", "acct",
             "userfaultfd", "open_by_handle_at", "name_to_handle_at", "syslog", "mbind", "move_pages",
             "set_mempolicy"]
# The ones a process may call unfiltered with an answer other than EPERM (null pointers, no-op flags), with
# no lasting effect on the machine: the control run shows that the EPERM comes from the filter.
HARMLESS_UNFILTERED = ["unshare", "setns", "add_key", "perf_event_open", "ptrace", "personality",
                       "set_mempolicy", "name_to_handle_at"]


def numbers(names: list[str]) -> dict[str, int]:
    import pyseccomp

    return {name: pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name) for name in names}


@pytest.fixture
def forbidden_bot(tmp_path):
    return bot_file("forbidden_syscalls", tmp_path, SYSCALLS=numbers(FORBIDDEN + ["clone3"]))


def test_forbidden_system_calls_answer_eperm_inside_bwrap(bwrap_ready, forbidden_bot):
    outcome = play("bwrap", forbidden_bot)
    answers = report(outcome.log)

    assert outcome.status == "ok", outcome.detail
    assert {name: answers[name] for name in FORBIDDEN} == dict.fromkeys(FORBIDDEN, "EPERM")
    assert answers["clone3"] == "ENOSYS"


def test_without_the_filter_the_same_calls_are_answered_by_the_kernel(tmp_path):
    control = bot_file("forbidden_syscalls", tmp_path, SYSCALLS=numbers(HARMLESS_UNFILTERED))
    answers = json.loads(subprocess.run([sys.executable, str(control)], capture_output=True, text=True,
                                        check=True).stdout)
    assert not [name for name, answer in answers.items() if answer == "EPERM"], answers


def test_the_bot_runs_under_a_seccomp_filter(bwrap_ready):
    seen = report(play("bwrap", BOTS / "introspect.py").log)
    assert seen["seccomp"] == "2"


def test_a_program_written_to_tmp_cannot_be_made_executable_or_run(backend):
    outcome = play(backend, BOTS / "exec_from_tmp.py")
    attempts = report(outcome.log)

    assert outcome.status == "ok", outcome.detail
    assert attempts.pop("write a file") == "done"
    assert not [how for how, result in attempts.items() if result.startswith("ran")], attempts
    if backend == "bwrap":  # no execute bit is ever granted (bubblewrap cannot mount /tmp noexec)
        for how in ("create it executable", "chmod +x", "copy an executable"):
            assert attempts[how] == "refused: PermissionError errno 1", (how, attempts)


def test_capability_and_architecture_rules_are_read_as_docker_reads_them():
    profile = json.loads(syscall_filter.PROFILE.read_text())
    rules = {json.dumps(rule, sort_keys=True): rule for rule in profile["syscalls"]}
    clone_amd64 = next(rule for rule in rules.values() if rule["names"] == ["clone"] and rule.get("args")
                       and rule["args"][0]["index"] == 0)
    admin_only = next(rule for rule in rules.values() if "mount" in rule["names"])
    ptrace_new_kernels = next(rule for rule in rules.values() if rule.get("includes", {}).get("minKernel"))

    assert syscall_filter.rule_applies(clone_amd64, "amd64")
    assert not syscall_filter.rule_applies(clone_amd64, "s390x")
    assert not syscall_filter.rule_applies(clone_amd64, "amd64", caps=frozenset({"CAP_SYS_ADMIN"}))
    assert not syscall_filter.rule_applies(admin_only, "amd64")
    assert syscall_filter.rule_applies(admin_only, "amd64", caps=frozenset({"CAP_SYS_ADMIN"}))
    assert syscall_filter.rule_applies(ptrace_new_kernels, "amd64", kernel=(5, 10))
    assert not syscall_filter.rule_applies(ptrace_new_kernels, "amd64", kernel=(4, 4))
