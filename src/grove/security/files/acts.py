"""Reading and writing at a place files.confine has checked: only through the held folder fd, never following a link,
only regular files, new files without special bits, with the acting uid's rights. Errors are Refused."""

from __future__ import annotations

import errno
import os
import stat

from grove.atomic_files import NotRegularFileError, atomic_write_at
from grove.security.files.confine import Confinement, Place, Refused

MAX_READ_BYTES = 64 * 2**20
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def open_file(place: Place, path: str) -> int:
    """An fd for the place (read-only; its folder when the place is a folder), never through a link."""
    if not place.name:
        return os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=place.dir_fd)
    try:
        return os.open(place.name, _FILE_FLAGS, dir_fd=place.dir_fd)
    except OSError as e:
        if e.errno == errno.ELOOP:  # became a symlink after it was checked
            raise Refused(f"{path} changed while it was being read; try again") from None
        raise


def read_place(conf: Confinement, place: Place, path: str, limit: int = MAX_READ_BYTES) -> bytes:
    if not place.exists:
        raise Refused(f"{path} does not exist")
    with conf.acting(place):
        fd = open_file(place, path)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise Refused(f"{path} is a directory; use search_files to list it")
        conf.check_opened(place, st)
        if st.st_size > limit:
            raise Refused(f"{path} is {st.st_size} bytes; files over {limit // 2**20} MiB are not read")
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise Refused(f"{path} grew past {limit // 2**20} MiB while being read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_place(conf: Confinement, place: Place, path: str, data: bytes) -> None:
    """Make the missing folders and replace the file atomically; new files 0644 (0664 as the sandbox group, so
    sandboxed commands can change them), existing ones keep their rwx bits and lose any special bits."""
    if not place.name:
        raise Refused(f"{path} is a directory")
    shared = conf.roots.identity is not None and conf.roots.identity.shared_group and not place.inside
    with conf.acting(place):
        try:  # the same folder opened for reading, so the rename can be synced (a path-only fd cannot)
            dir_fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=place.dir_fd)
        except PermissionError:
            dir_fd = os.dup(place.dir_fd)
        try:
            for name in place.missing:  # each new folder made and entered without following links
                try:
                    os.mkdir(name, 0o755, dir_fd=dir_fd)
                    made = True
                except FileExistsError:
                    made = False
                new = os.open(
                    name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd
                )
                os.close(dir_fd)
                dir_fd = new
                if made and shared:
                    os.fchmod(dir_fd, 0o775)
            mode = None
            try:
                st = os.stat(place.name, dir_fd=dir_fd, follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    raise Refused(f"{path} is a directory")
            except FileNotFoundError:
                mode = 0o664 if shared else 0o644
            try:
                atomic_write_at(dir_fd, place.name, data, mode)
            except NotRegularFileError as e:
                raise Refused(f"{path}: {e}") from None
        finally:
            os.close(dir_fd)
