"""A workspace tree (this machine's or a backend's, grove.backends.tree) as entries (kind, rwx bits, content
hash), read without following any link.

Hashing is skipped for a file whose stat matches the previous scan (size, mtime, ctime, inode; over SFTP size and a
whole-second mtime older than the scan), so a turn's checkpoint costs one walk of the tree plus reading what changed."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from grove.backends.tree import Stat, StatKey, WorkspaceTree

PERMISSION_BITS = 0o777  # setuid, setgid and sticky bits are never recorded, so never restored


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
    tree: WorkspaceTree,
    *,
    skip: Callable[[str], bool],
    cache: dict[str, tuple[StatKey, str]],
    store_blob: Callable[[str, int], str],
    has_blob: Callable[[str], bool],
    max_file_bytes: int,
    max_files: int,
) -> Scanned:
    """Walk the tree (links are entries, never followed). `store_blob(path, size)` copies a file's content into
    the object store and returns its digest; it is called only for files the cache does not vouch for."""
    out = Scanned({}, {}, [])
    settled = tree.settled_before()  # a coarse clock: a key is trusted only for files older than the scan
    for rel, st in _walk(tree, "", skip):
        if len(out.entries) >= max_files:
            raise TooManyFiles(f"more than {max_files} entries")
        mode = st.mode & PERMISSION_BITS
        if st.kind == "dir":
            out.entries[rel] = Entry("dir", mode, None)
        elif st.kind == "link":
            out.entries[rel] = Entry("link", 0o777, tree.readlink(rel))
        elif st.kind == "file":
            if st.size > max_file_bytes:
                out.entries[rel] = Entry("file", mode, None, st.size)
                out.too_big.append(rel)
                continue
            known = cache.get(rel)
            vouched = known is not None and known[0] == st.key and has_blob(known[1])
            digest = known[1] if known is not None and vouched else store_blob(rel, st.size)
            out.entries[rel] = Entry("file", mode, digest, st.size)
            if settled is None or st.key[1] < settled:
                out.stats[rel] = (st.key, digest)
        # FIFOs, sockets and devices are not content: left out (an undo never makes or removes them)
    return out


def _walk(tree: WorkspaceTree, prefix: str, skip: Callable[[str], bool]) -> Iterator[tuple[str, Stat]]:
    for name, st in tree.scandir(prefix):
        rel = f"{prefix}/{name}" if prefix else name
        if skip(rel):
            continue
        yield rel, st
        if st.kind == "dir":
            yield from _walk(tree, rel, skip)


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
