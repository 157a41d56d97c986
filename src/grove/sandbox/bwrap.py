"""The bubblewrap command line: read-only system dirs, private /proc /dev /tmp, one writable workspace, no net."""

from __future__ import annotations

import os
from pathlib import Path

from grove.sandbox.gitenv import MOUNT_POINT as GITCONFIG_MOUNT
from grove.sandbox.types import Limits

# System trees a program needs to run; read-only. Everything else (/root, /home, /var, /opt, /srv...) is absent.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# /etc is an allow-list: no shadow, no sudoers, no ssh keys, no machine secrets.
# Each bind costs about a millisecond, so the list is short: what dynamic linking, users, TLS and Python need.
ETC_FILES = (
    "ld.so.cache",
    "alternatives",
    "localtime",
    "passwd",
    "group",
    "nsswitch.conf",
    "hosts",
    "ssl",
    "ca-certificates",
    "python3",
    "python3.11",
    "mime.types",
    "gitconfig",
)
NETWORK_ETC = ("resolv.conf", "gai.conf", "host.conf")


def bwrap_argv(
    bwrap: str,
    argv: list[str],
    *,
    workspace: Path,
    source: Path,
    limits: Limits,
    network: bool,
    env: dict[str, str],
    seccomp_fd: int | None = None,
    gitconfig_fd: int | None = None,
    hide: tuple[str, ...] = (),
    read_only: tuple[str, ...] = (),
) -> list[str]:
    """`hide` and `read_only`: workspace-relative paths shown as an empty read-only tmpfs (grove's home) or
    bound read-only over themselves (what persists beyond the workspace, see grove.security.files.protected)."""
    a = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session"]
    a += ["--cap-drop", "ALL", "--clearenv"]
    if network:
        a.append("--share-net")
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            a += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            a += ["--ro-bind", d, d]
    for name in ETC_FILES + (NETWORK_ETC if network else ()):
        path = f"/etc/{name}"
        if os.path.exists(path):
            a += ["--ro-bind", path, path]
    if gitconfig_fd is not None:  # copied onto the sandbox's root, which is made read-only below
        a += ["--file", str(gitconfig_fd), GITCONFIG_MOUNT]
    tmp_size = str(limits.tmp_size_mb * 1024 * 1024)
    # --dev is a writable tmpfs as large as half the RAM: read-only, with a capped /dev/shm of its own
    a += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--remount-ro",
        "/dev",
        "--size",
        tmp_size,
        "--tmpfs",
        "/dev/shm",
    ]
    a += ["--size", tmp_size, "--tmpfs", "/tmp"]
    # `source` differs from `workspace` when it was staged (see mountns): inside, it keeps its real path.
    a += ["--bind", str(source), str(workspace), "--chdir", str(workspace)]
    for rel in read_only:
        a += ["--ro-bind", str(source / rel), str(workspace / rel)]
    for rel in hide:
        a += [
            "--perms",
            "0500",
            "--size",
            "4096",
            "--tmpfs",
            str(workspace / rel),
            "--remount-ro",
            str(workspace / rel),
        ]
    a += ["--remount-ro", "/"]  # the sandbox's own root (where /etc's mount points live) is not writable
    for key, value in env.items():
        a += ["--setenv", key, value]
    if seccomp_fd is not None:
        a += ["--seccomp", str(seccomp_fd)]
    return [*a, "--", *argv]
