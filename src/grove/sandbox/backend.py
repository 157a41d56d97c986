"""Which isolation this machine offers (bubblewrap, Landlock + seccomp, or rlimits only), and why."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

from grove.sandbox.users import SANDBOX_UID, is_root

# Looked up on a fixed system PATH: a bwrap planted earlier in the user's PATH must not be trusted.
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
BACKENDS = ("bwrap", "landlock", "rlimit")
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`, Fedora: `dnf install bubblewrap`)"
)


@dataclass(frozen=True)
class BackendInfo:
    name: str  # bwrap | landlock | rlimit
    reason: str
    bwrap: str | None = None

    @property
    def isolated(self) -> bool:
        return self.name != "rlimit"


_PROBE = ("--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64")
_PROBE += ("--", "/usr/bin/true")


def _probe_bwrap(bwrap: str) -> str | None:
    """None when bubblewrap can build a sandbox here as the uid we would run it as, else why not."""
    uid = SANDBOX_UID if is_root() else None
    try:
        proc = subprocess.run(
            [
                bwrap,
                "--unshare-all",
                "--unshare-user",
                "--disable-userns",
                "--ro-bind",
                "/usr",
                "/usr",
                *_PROBE,
            ],
            env={},
            capture_output=True,
            timeout=10,
            user=uid,
            group=uid,
            extra_groups=[] if uid is not None else None,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{bwrap} could not start: {e}"
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip()
        return f"{bwrap} failed to create a sandbox ({err or f'exit {proc.returncode}'})"
    return None


def _landlock_abi() -> int:
    from grove.sandbox import landlock, seccomp

    return landlock.abi_version() if seccomp.supported() else 0


def landlock_info() -> BackendInfo | None:
    """The Landlock + seccomp backend when this kernel and CPU support it (also asked for explicitly in tests)."""
    try:
        abi = _landlock_abi()
    except Exception:
        return None
    return (
        BackendInfo("landlock", f"Landlock ABI {abi} + seccomp, no pid/mount namespace") if abi > 0 else None
    )


@functools.cache
def detect_backend() -> BackendInfo:
    bwrap = shutil.which("bwrap", path=SYSTEM_PATH)
    problem = _probe_bwrap(bwrap) if bwrap else f"bubblewrap is not installed; {INSTALL_HINT}"
    if bwrap and problem is None:
        who = (
            "as a fresh unprivileged uid per run (grove runs as root)" if is_root() else "as the current user"
        )
        return BackendInfo("bwrap", f"bubblewrap at {bwrap}, run {who}", bwrap)
    try:
        abi = _landlock_abi()
    except Exception as e:  # a kernel or platform without the syscalls: fall through to the last resort
        abi, why = 0, str(e)
    else:
        why = "the kernel has no Landlock" if abi <= 0 else ""
    if abi > 0:
        return BackendInfo("landlock", f"{problem}; using Landlock ABI {abi} + seccomp instead")
    return BackendInfo(
        "rlimit", f"{problem}; {why or 'Landlock unavailable'}: NO ISOLATION, only resource limits"
    )


def doctor_check() -> tuple[bool, str]:
    """For `grove doctor`: (ok, one paragraph saying which backend is active, why, and how to do better)."""
    info = detect_backend()
    lines = [f"sandbox backend: {info.name} — {info.reason}"]
    if info.name == "rlimit":
        lines.append(
            f"commands run with limits but can read and write anything their uid can, host unix sockets "
            f"(docker, ssh-agent) included; unattended runs are refused unless security.allow_unisolated is "
            f"set; {INSTALL_HINT}"
        )
    elif info.name == "landlock":
        lines.append(f"good isolation, but no private /proc or pid namespace; for the best, {INSTALL_HINT}")
    from grove.sandbox import cgroups, seccomp

    if info.isolated:
        lines.append(
            "host unix sockets (docker, ssh-agent, dbus): out of reach, no AF_UNIX socket can be opened"
            if seccomp.supported()
            else "host unix sockets: reachable if bound into the sandbox (no seccomp filter on this CPU)"
        )
    why = cgroups.unavailable_reason()
    if why:
        lines.append(
            f"total memory and process caps per command: NOT enforced ({why}); each process still has its own "
            "memory, process and file-size limits. Run grove as root or in a delegated cgroup v2 to get them"
        )
    else:
        lines.append("total memory and process caps per command: enforced with a cgroup per run")
    lines.append(
        "total disk written per command: capped by a watcher on the workspace (may overshoot briefly)"
    )
    if is_root():
        lines.append(
            f"grove runs as root, so sandboxed commands run as unprivileged uids of group {SANDBOX_UID}: they can "
            f"write only where that group may (chgrp -R {SANDBOX_UID} DIR && chmod -R g+rwX DIR), or run grove as "
            "a normal user"
        )
        exe = os.path.realpath(sys.executable)
        if exe.startswith(("/root/", "/home/")):
            lines.append(
                f"grove's own Python ({exe}) is under a private home, so sandboxed code uses the system "
                "python3 (/usr/bin/python3); install packages sandboxed code needs there, or use a virtualenv "
                "in a world-readable place such as /opt"
            )
    return info.name != "rlimit", "\n".join(lines)


def resolve_backend(name: str | None) -> BackendInfo:
    """The backend a run asks for by name (None: the best this machine has); an unavailable one is an error."""
    if name is None:
        return detect_backend()
    if name not in BACKENDS:
        raise ValueError(f"unknown sandbox backend {name!r}; choose one of {', '.join(BACKENDS)}")
    detected = detect_backend()
    if name == detected.name:
        return detected
    if name == "rlimit":
        return BackendInfo("rlimit", "requested explicitly: NO ISOLATION, only resource limits")
    if name == "landlock" and (landlock := landlock_info()) is not None:
        return landlock
    raise ValueError(f"sandbox backend {name!r} is not available here ({detected.reason})")
