"""Landlock for the fallback backend: a file allow-list (read-only system trees, one writable workspace) and no
TCP bind/connect, applied in the child before exec. Paths are opened first, while the child may still reach them."""

from __future__ import annotations

import ctypes
import os
import struct

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # same on x86_64 and aarch64
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_WRITE_TREE = sum(1 << i for i in range(4, 13))  # remove dir/file, make char/dir/reg/sock/fifo/block/sym
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1 << 0, 1 << 1

READ_ONLY = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/proc")
READ_ONLY_FILES = ("/etc/ld.so.cache", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts",
                   "/etc/localtime", "/etc/ssl", "/etc/ca-certificates", "/etc/alternatives", "/etc/python3",
                   "/etc/python3.11", "/etc/mime.types", "/etc/gitconfig", "/etc/gitattributes", "/dev/urandom",
                   "/dev/random")  # fmt: skip
READ_WRITE_FILES = ("/dev/null", "/dev/zero", "/dev/tty")

_libc = ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The kernel's Landlock ABI version, 0 when absent."""
    if os.uname().machine not in ("x86_64", "aarch64"):
        return 0
    abi = _libc.syscall(_SYS_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    return max(abi, 0)


def _fs_access(abi: int) -> int:
    access = EXECUTE | WRITE_FILE | READ_FILE | READ_DIR | _WRITE_TREE
    if abi >= 2:
        access |= REFER
    if abi >= 3:
        access |= TRUNCATE
    if abi >= 5:
        access |= IOCTL_DEV
    return access


def open_paths(workspace: str, read_only: tuple[str, ...] = ()) -> list[tuple[int, bool]]:
    """(fd, writable) for every path the sandbox may use; call before dropping privileges."""
    out: list[tuple[int, bool]] = []
    for path, writable in [(p, False) for p in READ_ONLY + READ_ONLY_FILES + read_only] + [
        (p, True) for p in (*READ_WRITE_FILES, workspace)
    ]:
        try:
            out.append((os.open(path, os.O_PATH | os.O_CLOEXEC), writable))
        except OSError:
            continue  # absent on this system
    return out


def restrict(fds: list[tuple[int, bool]], network: bool) -> None:
    """Apply the ruleset to this process (and what it execs). Raises OSError when the kernel refuses."""
    abi = abi_version()
    if abi <= 0:
        raise OSError("Landlock is not available")
    fs = _fs_access(abi)
    net = 0 if network or abi < 4 else NET_BIND_TCP | NET_CONNECT_TCP
    scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("=QQQ", fs, net, scoped) if abi >= 6 else struct.pack("=QQ", fs, net)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _libc.syscall(_SYS_CREATE_RULESET, buf, ctypes.c_size_t(len(attr)), 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for fd, writable in fds:
            is_dir = _is_dir(fd)
            allowed = (
                (fs if writable else EXECUTE | READ_FILE | READ_DIR)
                if is_dir
                else (
                    EXECUTE | READ_FILE | WRITE_FILE | (TRUNCATE if abi >= 3 else 0)
                    if writable
                    else READ_FILE | EXECUTE
                )
            )
            if writable and not is_dir and abi >= 5:
                allowed |= IOCTL_DEV
            rule = ctypes.create_string_buffer(struct.pack("=Qi", allowed & fs, fd), 12)
            if _libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, rule, 0) != 0:
                raise OSError(ctypes.get_errno(), "landlock_add_rule failed")
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
        if _libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
        for fd, _ in fds:
            os.close(fd)


def _is_dir(fd: int) -> bool:
    import stat

    return stat.S_ISDIR(os.fstat(fd).st_mode)
