"""Reading a folder someone else wrote without following links: every part below the folder is opened with
O_NOFOLLOW from a held descriptor and only regular files are read, each once, from the descriptor it was checked
on. A link or a swap between listing and reading cannot point a read outside the folder."""

from __future__ import annotations

import errno
import os
import stat

# O_NONBLOCK: opening a fifo for reading would otherwise wait for a writer forever (fstat then refuses it)
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
MAX_INNER_DEPTH = (
    32  # folders inside one skill: deeper ones are left out (and the walk holds one fd per level)
)
SAFE_MODE_BITS = 0o755  # rwx only: no setuid, setgid or sticky bit, nobody but the owner may write


class NotRegular(OSError):
    """A path that is never read: a link, a fifo, device or socket, or a hard link to another user's file."""


def open_folder(path: str) -> int:
    """The folder the user named (a link to it is followed: the user named it); everything below is not."""
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def open_below(base_fd: int, rel: str) -> int:
    """A folder inside `base_fd`, each part opened without following a link; raises NotRegular for a link."""
    fd = os.dup(base_fd)
    for part in rel.split(os.sep):
        if part in ("", "."):
            continue
        try:
            if part == "..":
                raise NotRegular(errno.EPERM, f"{rel} climbs out of its folder ('..')")
            nxt = os.open(part, DIR_FLAGS, dir_fd=fd)
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.ENOTDIR):
                raise NotRegular(e.errno, f"{rel}: {part} is a link or not a folder") from e
            raise
        finally:
            os.close(fd)
        fd = nxt
    return fd


def entries(dir_fd: int) -> tuple[list[str], list[str], list[str]]:
    """Sorted (folders, files, others) of an open folder: others are links and special files. The kind comes
    from the directory entry (no stat per file); opening each file checks it again."""
    dirs: list[str] = []
    files: list[str] = []
    others: list[str] = []
    with os.scandir(dir_fd) as it:
        for e in it:
            if e.is_symlink():
                others.append(e.name)
            elif e.is_dir(follow_symlinks=False):
                dirs.append(e.name)
            elif e.is_file(follow_symlinks=False):
                files.append(e.name)
            else:
                others.append(e.name)
    return sorted(dirs), sorted(files), sorted(others)


def open_regular(dir_fd: int, name: str, owner: int | None = None) -> tuple[int, os.stat_result]:
    """A regular file in an open folder, and its fstat. Refused (NotRegular): a link (O_NOFOLLOW), anything
    not a regular file, and a file with other hard links owned by someone other than `owner` (the folder's
    owner): a link to a file that user could not read is not theirs to hand over."""
    try:
        fd = os.open(name, FILE_FLAGS, dir_fd=dir_fd)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EMLINK):  # EMLINK: what O_NOFOLLOW gives on a link on some BSDs
            raise NotRegular(e.errno, "a symbolic link") from e
        if e.errno == errno.ENXIO:  # a socket
            raise NotRegular(e.errno, "not a regular file (a socket)") from e
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file (a fifo, device or folder)")
        if owner is not None and st.st_nlink > 1 and st.st_uid != owner:
            raise NotRegular(errno.EPERM, f"a hard link to a file of another user (uid {st.st_uid})")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_at_most(fd: int, limit: int) -> bytes:
    """Up to limit + 1 bytes (one more says the file grew past the limit since its fstat)."""
    chunks: list[bytes] = []
    left = limit + 1
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def safe_mode(mode: int) -> int:
    """The permission bits a copy gets: the source's read and execute bits, never setuid/setgid/sticky or
    write for others, always read and write for its owner (the library's)."""
    return (stat.S_IMODE(mode) & SAFE_MODE_BITS) | 0o600


def write_new(target: str, data: bytes, mode: int, dir_fd: int | None = None) -> None:
    """A new file (never an existing one, never through a link) holding `data`, with safe_mode(mode)."""
    fd = os.open(
        target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dir_fd
    )
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, safe_mode(mode))
    finally:
        os.close(fd)


def copy_tree(source: str, dest: str, skip: frozenset[str] = frozenset(), max_depth: int = 64) -> list[str]:
    """The regular files of `source` copied into the new folder `dest`, read as above (safe_mode bits); returns
    what was left out and why (links, special files, foreign hard links, names in `skip`, folders too deep)."""
    left_out: list[str] = []
    top = open_folder(source)
    try:
        os.mkdir(dest, 0o700)
        _copy_level(top, dest, "", 0, skip, max_depth, left_out)
    finally:
        os.close(top)
    return left_out


def _copy_level(
    dir_fd: int, dest: str, here: str, depth: int, skip: frozenset[str], max_depth: int, left_out: list[str]
) -> None:
    owner = os.fstat(dir_fd).st_uid
    dirs, files, others = entries(dir_fd)
    left_out.extend(f"{os.path.join(here, n)} (a link or special file)" for n in others if n not in skip)
    for name in files:
        if name in skip:
            continue
        rel = os.path.join(here, name)
        try:
            fd, st = open_regular(dir_fd, name, owner)
        except NotRegular as e:
            left_out.append(f"{rel} ({e.strerror})")
            continue
        try:
            out = os.open(
                os.path.join(dest, rel),
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o600,
            )
            try:
                while chunk := os.read(fd, 1 << 20):
                    view = memoryview(chunk)
                    while view:
                        view = view[os.write(out, view) :]
                os.fchmod(out, safe_mode(st.st_mode))
            finally:
                os.close(out)
        finally:
            os.close(fd)
    for name in dirs:
        rel = os.path.join(here, name)
        if name in skip:
            continue
        if depth + 1 >= max_depth:
            left_out.append(f"{rel}/ (more than {max_depth} folders deep)")
            continue
        try:
            sub = open_below(dir_fd, name)
        except NotRegular:
            left_out.append(f"{rel}/ (a link)")
            continue
        try:
            os.mkdir(os.path.join(dest, rel), 0o755)
            _copy_level(sub, dest, rel, depth + 1, skip, max_depth, left_out)
        finally:
            os.close(sub)
