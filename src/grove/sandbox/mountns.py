"""Handing bubblewrap a workspace its unprivileged uid cannot reach (e.g. under /root), without touching the host.

Runs in the child, as root, before the uid drop: a private mount namespace where a tmpfs on /tmp holds a bind
of the workspace (taken through an fd opened before the tmpfs hides /tmp, so the workspace may live there).
"""

from __future__ import annotations

import ctypes
import os

STAGE = "/tmp"
STAGED_WORKSPACE = "/tmp/workspace"
_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x1000, 0x4000, 1 << 18

_libc = ctypes.CDLL(None, use_errno=True)


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def stage_workspace(workspace: str) -> None:
    """Call in the forked child only: its mounts vanish with it and never reach the host."""
    _check(_libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _check(_libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "make / private")
    # Opened inside the new namespace: a bind from a mount of another namespace is refused (EINVAL).
    workspace_fd = os.open(workspace, os.O_PATH | os.O_DIRECTORY)
    _check(
        _libc.mount(b"tmpfs", STAGE.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, b"mode=0755,size=64k"),
        "tmpfs",
    )
    os.mkdir(STAGED_WORKSPACE, 0o755)
    source = f"/proc/self/fd/{workspace_fd}".encode()
    _check(_libc.mount(source, STAGED_WORKSPACE.encode(), None, _MS_BIND | _MS_REC, None), "bind workspace")
    os.close(workspace_fd)


def expose_workspace(workspace: str, blocked: str) -> None:
    """Call in the forked child only, as root, before the uid drop (Landlock and rlimit backends): the unprivileged
    uid cannot search `blocked` (an ancestor of the workspace, e.g. /root), so tools that resolve the working
    directory's path (git) fail. In a private mount namespace a tmpfs over `blocked` holds only the path down to
    the workspace, with the workspace bound at its real path; the rest of `blocked` is hidden as well."""
    _check(_libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _check(_libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "make / private")
    workspace_fd = os.open(workspace, os.O_PATH | os.O_DIRECTORY)
    _check(
        _libc.mount(b"tmpfs", blocked.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, b"mode=0755,size=64k"),
        "tmpfs",
    )
    os.makedirs(workspace, 0o755, exist_ok=True)
    source = f"/proc/self/fd/{workspace_fd}".encode()
    _check(_libc.mount(source, workspace.encode(), None, _MS_BIND | _MS_REC, None), "bind workspace")
    os.close(workspace_fd)
    os.chdir(workspace)
