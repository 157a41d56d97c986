"""Whose rights the file tools use: when grove runs as root they act as an unprivileged uid, as sandboxed commands
do, by switching this thread's filesystem uid/gid and groups (Linux keeps these per thread) around each act."""

from __future__ import annotations

import ctypes
import errno
import os
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from grove.sandbox.users import SANDBOX_GID, SANDBOX_UID

# raw setgroups: glibc's wrapper changes every thread of the process, the system call only the calling one
_SETGROUPS = {"x86_64": 116, "aarch64": 159, "i686": 81, "armv7l": 81}
_NO_CHANGE = 0xFFFFFFFF  # setfsuid(-1) changes nothing and returns the current value


@dataclass(frozen=True)
class FsIdentity:
    uid: int
    gid: int

    @property
    def shared_group(self) -> bool:
        """Acting as the sandbox group: new files are group-writable so sandboxed commands can change them."""
        return self.gid == SANDBOX_GID


def identity_for(workspace: Path) -> FsIdentity | None:
    """None when grove is not root (its own rights are already a user's); else the workspace's owner when that is
    a normal user (files stay theirs), else the sandbox uid and group."""
    if os.geteuid() != 0:
        return None
    st = workspace.stat()
    if st.st_uid != 0:
        return FsIdentity(st.st_uid, st.st_gid)
    return FsIdentity(SANDBOX_UID, SANDBOX_GID)


def root_owned(workspace: Path) -> bool:
    """grove is root and the workspace is root's, not shared with the sandbox group (README's chgrp): only root's
    rights can write it (see Roots.root_inside); a shared one keeps the sandbox uid, so commands can edit files."""
    if os.geteuid() != 0:
        return False
    st = workspace.stat()
    return st.st_uid == 0 and st.st_gid != SANDBOX_GID


_OPENAT2 = {"x86_64": 437, "aarch64": 437, "i686": 437, "armv7l": 437}
_RESOLVE_NO_MAGICLINKS, _RESOLVE_NO_SYMLINKS, _RESOLVE_BENEATH = 0x02, 0x04, 0x08


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


def beneath(root_fd: int, rel: str) -> int | None:
    """An O_PATH fd for folder `rel` opened by the kernel beneath `root_fd`, refusing any symlink, magic link or
    `..` out (openat2); None where the kernel has no openat2 (the caller's held-fd walk is the check then)."""
    number = _OPENAT2.get(platform.machine())
    if number is None:
        return None
    how = _OpenHow(
        os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC,
        0,
        _RESOLVE_BENEATH | _RESOLVE_NO_MAGICLINKS | _RESOLVE_NO_SYMLINKS,
    )
    fd = _libc().syscall(
        ctypes.c_long(number), ctypes.c_int(root_fd), os.fsencode(rel), ctypes.byref(how), ctypes.sizeof(how)
    )
    if fd < 0:
        err = ctypes.get_errno()
        if err in (errno.ENOSYS, errno.EPERM):  # no openat2, or a seccomp filter refusing it
            return None
        raise OSError(err, os.strerror(err), rel)
    return int(fd)


class IdentityError(RuntimeError):
    """The thread's filesystem identity could not be switched or restored; nothing is done as root instead."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


@contextmanager
def acting_as(who: FsIdentity | None) -> Iterator[None]:
    """Run the block with `who`'s filesystem rights on this thread only (no-op for None)."""
    if who is None:
        yield
        return
    libc = _libc()
    saved_groups = os.getgroups()
    _set_thread_groups(libc, [who.gid])
    libc.setfsgid(ctypes.c_uint(who.gid))
    libc.setfsuid(ctypes.c_uint(who.uid))
    try:
        if (
            libc.setfsuid(ctypes.c_uint(_NO_CHANGE)) != who.uid
            or libc.setfsgid(ctypes.c_uint(_NO_CHANGE)) != who.gid
        ):
            raise IdentityError(f"could not act as uid {who.uid}, gid {who.gid}; refusing to act as root")
        yield
    finally:
        libc.setfsuid(ctypes.c_uint(os.geteuid()))
        libc.setfsgid(ctypes.c_uint(os.getegid()))
        _set_thread_groups(libc, saved_groups)
        if libc.setfsuid(ctypes.c_uint(_NO_CHANGE)) != os.geteuid():
            raise IdentityError("could not restore grove's filesystem uid")


def _set_thread_groups(libc: ctypes.CDLL, groups: list[int]) -> None:
    number = _SETGROUPS.get(platform.machine())
    if number is None:
        return  # unknown architecture: the group list stays root's (fsuid/fsgid still switch)
    array = (ctypes.c_uint * max(len(groups), 1))(*groups)
    if libc.syscall(ctypes.c_long(number), ctypes.c_int(len(groups)), array) != 0:
        raise IdentityError(f"setgroups failed (errno {ctypes.get_errno()})")
