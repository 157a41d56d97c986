"""A workspace tree as entries (kind, rwx bits, content hash), read without following any link.

Hashing is skipped for a file whose stat matches the previous scan (size, mtime, ctime, inode), so a turn's
checkpoint costs one walk of the tree plus reading what changed."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

PERMISSION_BITS = 0o777  # setuid, setgid and sticky bits are never recorded, so never restored

# (size, mtime_ns, ctime_ns, inode) -> sha256 of the content, from the previous scan
StatKey = tuple[int, int, int, int]


@dataclass(frozen=True)
class Entry:
    """One path in the tree. kind: 'file', 'dir' or 'link'; digest: the content's sha256 (a link's target for
    a link); None for a file too big to keep."""

    kind: str
    mode: int
    digest: str | None
    size: int = 0

    def as_list(self) -> list[object]:
        return [self.kind, self.mode, self.digest, self.size]

    @classmethod
    def from_list(cls, raw: list[object]) -> Entry:
        kind, mode, digest, size = raw
        return cls(str(kind), int(str(mode)), None if digest is None else str(digest), int(str(size)))


class TooManyFiles(Exception):
    """The workspace has more entries than the checkpoint limit."""


@dataclass
class Scanned:
    entries: dict[str, Entry]
    stats: dict[str, tuple[StatKey, str]]  # path -> (stat key, digest) for the next scan's cache
    too_big: list[str]


def scan(
    root: Path,
    *,
    skip: Callable[[str], bool],
    cache: dict[str, tuple[StatKey, str]],
    store_blob: Callable[[str, int], str],
    has_blob: Callable[[str], bool],
    max_file_bytes: int,
    max_files: int,
) -> Scanned:
    """Walk `root` (links are entries, never followed). `store_blob(path, size)` copies a file's content into
    the object store and returns its digest; it is called only for files the cache does not vouch for."""
    out = Scanned({}, {}, [])
    for rel, st in _walk(root, "", skip):
        if len(out.entries) >= max_files:
            raise TooManyFiles(f"more than {max_files} entries")
        mode = stat.S_IMODE(st.st_mode) & PERMISSION_BITS
        if stat.S_ISDIR(st.st_mode):
            out.entries[rel] = Entry("dir", mode, None)
        elif stat.S_ISLNK(st.st_mode):
            target = os.readlink(root / rel)
            out.entries[rel] = Entry("link", 0o777, target)
        elif stat.S_ISREG(st.st_mode):
            if st.st_size > max_file_bytes:
                out.entries[rel] = Entry("file", mode, None, st.st_size)
                out.too_big.append(rel)
                continue
            key: StatKey = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            known = cache.get(rel)
            vouched = known is not None and known[0] == key and has_blob(known[1])
            digest = known[1] if known is not None and vouched else store_blob(rel, st.st_size)
            out.entries[rel] = Entry("file", mode, digest, st.st_size)
            out.stats[rel] = (key, digest)
        # FIFOs, sockets and devices are not content: left out (an undo never makes or removes them)
    return out


def _walk(root: Path, prefix: str, skip: Callable[[str], bool]) -> Iterator[tuple[str, os.stat_result]]:
    try:
        items = sorted(os.scandir(root / prefix) if prefix else os.scandir(root), key=lambda d: d.name)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return
    for item in items:
        rel = f"{prefix}/{item.name}" if prefix else item.name
        if skip(rel):
            continue
        st = item.stat(follow_symlinks=False)
        yield rel, st
        if stat.S_ISDIR(st.st_mode):
            yield from _walk(root, rel, skip)


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
