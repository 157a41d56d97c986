"""Which uid a sandboxed process runs as: never root, because root keeps its powers inside bubblewrap."""

from __future__ import annotations

import os
import signal
from pathlib import Path

# A dedicated uid with no passwd entry and no files of its own; anything running as it belongs to a sandbox.
SANDBOX_UID = 64_055


def is_root() -> bool:
    return os.geteuid() == 0


def choose_uid(workspace: Path, backend: str, requested: int | None) -> int | None:
    """The uid to drop to before exec, or None when grove already runs unprivileged (nothing to drop)."""
    if not is_root():
        return None
    if requested is not None:
        if requested == 0:
            raise ValueError("the sandbox never runs as uid 0; pick an unprivileged uid or leave it unset")
        return requested
    if backend == "bwrap":
        # bubblewrap shows the process nothing but the workspace, so the workspace's owner is a safe identity
        # and keeps file ownership right; the dedicated uid is for everything else.
        owner = workspace.stat().st_uid
        if owner != 0:
            return owner
    return SANDBOX_UID


def can_write(path: Path, uid: int | None) -> bool:
    if uid is None:
        return os.access(path, os.W_OK)
    st = path.stat()
    return st.st_uid == uid or bool(st.st_mode & 0o002)


def kill_uid(uid: int) -> int:
    """SIGKILL every process of `uid` (the fallback's way to reach children that left the process group)."""
    killed = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != uid:
                continue
            os.kill(int(entry.name), signal.SIGKILL)
            killed += 1
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return killed


def count_processes(uid: int) -> int:
    n = 0
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                n += 1
        except FileNotFoundError:
            continue
    return n
