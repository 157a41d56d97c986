"""Joins a GGUF split over raw-chunk files into one file: streamed, size and sha256 checked, renamed into place
only when whole. A bad hash, a missing part or an interrupted write leaves no file behind (old or partial). A kept
file gets a `.verified` stamp, so it is trusted again without re-hashing only while it is unchanged."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Literal, Protocol

CHUNK = 8 << 20  # 8 MiB reads: fast, and small next to the 2 GB a loaded 1.5B model takes anyway


class Readable(Protocol):
    """A file-like part: a Path or an importlib.resources Traversable."""

    def open(self, mode: Literal["rb"]) -> IO[bytes]: ...


class AssemblyError(Exception):
    """The parts do not make the expected file; the message says which and what to do."""


Progress = Callable[[int, int], None]  # (bytes written so far, bytes expected)


def assemble(
    parts: Sequence[Readable],
    dest: Path,
    *,
    sha256: str,
    size: int,
    on_progress: Progress | None = None,
) -> Path:
    """Streams `parts` in order into `dest` (via `dest.part`) and returns `dest`.

    The joined bytes must be `size` long with digest `sha256`; otherwise AssemblyError, and nothing is left at
    `dest` or `dest.part`. Any other exception (KeyboardInterrupt, a full disk) also removes the partial file.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    digest = hashlib.sha256()
    written = 0
    try:
        with open(tmp, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while block := src.read(CHUNK):
                        written += len(block)
                        if written > size:
                            raise AssemblyError(f"the parts hold more than the expected {size} bytes")
                        digest.update(block)
                        out.write(block)
                        if on_progress is not None:
                            on_progress(written, size)
            out.flush()
            os.fsync(out.fileno())
        if written != size:
            raise AssemblyError(f"the parts hold {written} bytes, expected {size}")
        if digest.hexdigest() != sha256:
            raise AssemblyError(f"sha256 of the joined parts is {digest.hexdigest()}, expected {sha256}")
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(dest.parent)
    return dest


def _fsync_dir(folder: Path) -> None:
    # The rename is durable only once the folder is synced; some filesystems refuse to open a folder: fine.
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _stamp_path(dest: Path) -> Path:
    return dest.with_name(dest.name + ".verified")


def _stamp(dest: Path, sha256: str) -> str:
    st = dest.stat()
    return json.dumps({"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns})


def verified(dest: Path, sha256: str) -> bool:
    """Whether `dest` was checked against `sha256` by this code since it last changed (no re-hashing)."""
    try:
        return _stamp_path(dest).read_text() == _stamp(dest, sha256)
    except OSError:
        return False


def write_stamp(dest: Path, sha256: str) -> None:
    from grove.atomic_files import atomic_write_text

    atomic_write_text(_stamp_path(dest), _stamp(dest, sha256))


def adopt(dest: Path, *, sha256: str, size: int) -> bool:
    """Whether `dest` is already the expected file (stamped, or put there by hand and hashed now)."""
    if verified(dest, sha256):
        return True
    if dest.is_file() and dest.stat().st_size == size and file_sha256(dest) == sha256:
        write_stamp(dest, sha256)  # a file put there by hand, or a lost stamp: the hash decides
        return True
    return False


@contextlib.contextmanager
def exclusive(dest: Path) -> Iterator[None]:
    """Held while one process makes `dest`: two first runs at once (a gateway and a cron job) take turns, and the
    second finds the file made. The lock file stays (empty); the lock goes with the process."""
    import fcntl

    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(dest.with_name(dest.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
