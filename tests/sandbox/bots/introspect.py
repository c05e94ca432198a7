"""Reports what it can see of its sandbox (stderr REPORT line), then plays normally."""
import json
import os
import random
import resource
import sys


def status_field(name):
    for line in open("/proc/self/status"):
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    return None


def mounts():
    found = {}
    for line in open("/proc/self/mounts"):
        _, target, fs_type, options = line.split()[:4]
        found[target] = {"type": fs_type, "options": options.split(",")}
    return found


def open_descriptors():
    """What each open descriptor is (a pipe, a socket, a file), by number."""
    found = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            found[name] = os.readlink(f"/proc/self/fd/{name}").split(":")[0]
        except OSError:
            pass  # the listing's own, closed by now
    return found


def setup(info):
    report = {
        "uid": os.getuid(),
        "gid": os.getgid(),
        "environ": dict(os.environ),
        "cap_eff": status_field("CapEff"),
        "no_new_privs": status_field("NoNewPrivs"),
        "seccomp": status_field("Seccomp"),
        "sandbox_files": sorted(os.listdir("/sandbox")),
        "mounts": mounts(),
        "docker_socket": os.path.exists("/var/run/docker.sock") or os.path.exists("/run/docker.sock"),
        "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "interfaces": sorted(os.listdir("/sys/class/net")) if os.path.isdir("/sys/class/net") else [],
        "nofile": resource.getrlimit(resource.RLIMIT_NOFILE),
        "core": resource.getrlimit(resource.RLIMIT_CORE),
        "descriptors": open_descriptors(),
        "caught_signals": status_field("SigCgt"),
        "ignored_signals": status_field("SigIgn"),
        "random": random.getrandbits(64),
    }
    print("REPORT " + json.dumps(report), file=sys.stderr)


def act(observation):
    return observation["legal_actions"][0]
