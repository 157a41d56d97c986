"""The in-sandbox wall where bubblewrap is absent: grove's home hidden and protected workspace paths read-only.

Runs in the forked child before exec, in a private mount namespace (as root, or as a normal user inside a fresh
user namespace mapping only its own uid), so the mounts vanish with the run and never reach the host."""

from __future__ import annotations

import ctypes
import functools
import os

_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x20, 0x1000, 0x4000, 1 << 18
_MS_NOATIME, _MS_NODIRATIME, _MS_RELATIME = 0x400, 0x800, 1 << 21
# statvfs f_flag bits a user namespace may not drop on a remount (they are locked): keep them as they were
_ST_KEEP = {0x2: _MS_NOSUID, 0x4: _MS_NODEV, 0x8: _MS_NOEXEC, 0x400: _MS_NOATIME, 0x800: _MS_NODIRATIME,
            0x1000: _MS_RELATIME}  # fmt: skip

_libc = ctypes.CDLL(None, use_errno=True)


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


@functools.cache
def userns_available() -> bool:
    """Can this (non-root) process make a user + mount namespace? Probed once in a throwaway child."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child only reports
        os._exit(0 if _libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS) == 0 else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _enter_namespace() -> None:
    if os.geteuid() == 0:
        _check(_libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    else:  # map only our own uid/gid: nothing gained on the host, but the right to mount in our namespace
        uid, gid = os.geteuid(), os.getegid()
        _check(_libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS), "unshare(CLONE_NEWUSER|CLONE_NEWNS)")
        for name, text in (
            ("setgroups", "deny"),
            ("uid_map", f"{uid} {uid} 1"),
            ("gid_map", f"{gid} {gid} 1"),
        ):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
    _check(_libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "make / private")


def build(hide: list[str], read_only: list[str]) -> None:
    """Empty read-only tmpfs over each path of `hide`; each path of `read_only` bound read-only over itself."""
    _enter_namespace()
    for path in hide:
        flags = _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
        _check(_libc.mount(b"tmpfs", path.encode(), b"tmpfs", flags, b"mode=0500,size=4k"), f"hide {path}")
    for path in read_only:
        p = path.encode()
        _check(_libc.mount(p, p, None, _MS_BIND | _MS_REC, None), f"bind {path}")
        keep = sum(ms for st, ms in _ST_KEEP.items() if os.statvfs(path).f_flag & st)
        _check(
            _libc.mount(None, p, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | keep, None), f"read-only {path}"
        )
