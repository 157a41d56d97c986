"""Which uid a sandboxed process runs as: the workspace owner under bubblewrap and Landlock (root too, without
capabilities), else never root.

Each run gets its own uid from a dedicated range, all in one shared group: concurrent runs cannot signal one
another, RLIMIT_NPROC counts each run alone, and killing "every process of this uid" ends exactly one run."""

from __future__ import annotations

import os
import random
import signal
from dataclasses import dataclass
from pathlib import Path

# Owner of scratch dirs; no passwd entry. Runs use uids from RUN_UID_BASE on, all with group SANDBOX_GID.
SANDBOX_UID = SANDBOX_GID = 64_055
RUN_UID_BASE, RUN_UID_COUNT = 64_100, 4096


@dataclass(frozen=True)
class Identity:
    uid: int
    gid: int
    per_run: bool  # a uid of our range: every process it owns belongs to this run


def is_root() -> bool:
    return os.geteuid() == 0


def sandbox_folder(folder: Path, mode: int = 0o2775) -> Path:
    """`folder`, made if missing; as root, where file tools and sandboxed commands act as the sandbox group,
    handed to that group (setgid, so what they make there stays writable by later runs)."""
    folder.mkdir(parents=True, exist_ok=True)
    if is_root():
        os.chown(folder, -1, SANDBOX_GID)
        folder.chmod(mode)
    return folder


def choose_identity(workspace: Path, backend: str, requested: int | None) -> Identity | None:
    """Who to become before exec, or None when grove already runs unprivileged (nothing to drop)."""
    if not is_root():
        return None
    if requested is not None:
        if requested == 0:
            raise ValueError("the sandbox never runs as uid 0; pick an unprivileged uid or leave it unset")
        return Identity(requested, requested, per_run=False)
    st = workspace.stat()
    if backend == "bwrap":
        # bubblewrap shows the process nothing but the workspace, so the workspace's owner is a safe identity
        # and keeps file ownership right; a fresh uid is for everything else. Root included (a root-owned
        # project in a container): bwrap drops every capability and bounding bit in a user namespace of its
        # own, so uid 0 there has only an owner's rights over what is bound writable, and a pid namespace.
        return Identity(st.st_uid, st.st_gid, per_run=False)
    if backend == "landlock" and st.st_uid == 0 and landlock_scopes_signals():
        # Landlock binds root as it binds anyone (reads and writes outside its allow-list refused), the child
        # drops every capability (sandbox.caps), and the domain may not signal or ptrace what is outside it
        return Identity(0, 0, per_run=False)
    return Identity(_fresh_uid(), SANDBOX_GID, per_run=True)


def landlock_scopes_signals() -> bool:
    """ABI 6 scopes signals and abstract sockets to the domain: below it, uid 0 could signal root's processes."""
    from grove.sandbox import landlock

    return landlock.abi_version() >= 6


def _fresh_uid() -> int:
    for _ in range(8):
        uid = RUN_UID_BASE + random.randrange(RUN_UID_COUNT)
        if count_processes(uid) == 0:
            return uid
    return uid  # a crowded range: sharing a uid still isolates from the host, only not from that other run


def can_write(path: Path, who: Identity | None) -> bool:
    if who is None:
        return os.access(path, os.W_OK)
    st = path.stat()
    return (
        st.st_uid == who.uid
        or (st.st_gid == who.gid and bool(st.st_mode & 0o020))
        or bool(st.st_mode & 0o002)
    )


def can_traverse(path: Path, who: Identity) -> bool:
    """Can `who` reach `path` through every ancestor (the search bit for it as owner, group or other)?"""
    for parent in [path, *path.parents]:
        st = parent.stat()
        if st.st_uid == who.uid:
            ok = st.st_mode & 0o100
        elif st.st_gid == who.gid:
            ok = st.st_mode & 0o010
        else:
            ok = st.st_mode & 0o001
        if not ok:
            return False
    return True


def blocked_ancestor(path: Path, who: Identity) -> Path | None:
    """The topmost strict ancestor of `path` that `who` cannot search, or None when the whole way is open."""
    for parent in reversed(path.parents):
        if not can_traverse(parent, who):
            return parent
    return None


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
