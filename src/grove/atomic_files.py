"""Atomic file writes: temp file in the same folder, fsync, rename. A crash leaves the old file or the new one.

Permissions are plain rwx bits only: setuid, setgid and sticky bits are never carried over or set (a setuid file
rewritten by root would otherwise stay setuid root), and only regular files are ever replaced."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

PERMISSION_BITS = 0o777  # never 0o7000: no setuid, setgid or sticky bit on anything written here
DEFAULT_MODE = 0o600  # a new file is private unless the caller says otherwise (as mkstemp made it)


class NotRegularFileError(OSError):
    """The target exists and is a FIFO, device, socket or directory: it is never replaced by a write."""


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = None) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        atomic_write_at(dir_fd, path.name, data, mode)
    finally:
        os.close(dir_fd)


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def atomic_write_at(dir_fd: int, name: str, data: bytes, mode: int | None = None) -> None:
    """Replace `name` in the folder open as `dir_fd` (no path is looked up again, so the folder cannot be swapped
    under the write). The new file gets `mode`, else the old one's rwx bits, else 0o600; never special bits.
    A symlink named `name` is replaced itself, never followed."""
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"not a file name: {name!r}")
    try:
        old = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode) and not stat.S_ISLNK(old.st_mode):
        raise NotRegularFileError(
            f"{name} is not a regular file (a folder, FIFO, device or socket); not replaced"
        )
    if mode is None:
        mode = old.st_mode if old is not None and stat.S_ISREG(old.st_mode) else DEFAULT_MODE
    tmp = f".{name[:200]}.{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode & PERMISSION_BITS)
            os.fsync(f.fileno())
        os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    with contextlib.suppress(
        OSError
    ):  # a folder held as O_PATH cannot be synced; the rename is atomic anyway
        os.fsync(dir_fd)
