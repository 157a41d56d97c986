"""grove's own acts on a backend's workspace tree (checkpoints and undo): every path relative to the root, no link
followed where the backend can help it. `LocalTree` is this machine's folder; SSH hosts give an SFTP one."""

from __future__ import annotations

import os
import stat
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

# (size, mtime_ns, ctime_ns, inode): a file whose key is unchanged since the last scan has unchanged content
StatKey = tuple[int, int, int, int]


@dataclass(frozen=True)
class Stat:
    """One entry as lstat sees it. kind: file | dir | link | other (FIFO, socket, device)."""

    kind: str
    mode: int  # stat.S_IMODE: rwx bits and setuid/setgid/sticky
    size: int
    key: StatKey


class WorkspaceTree(Protocol):
    """A workspace's files for grove itself (not the model: no confinement rules beyond staying under the root)."""

    @property
    def ident(
        self,
    ) -> str: ...  # names the workspace across sessions: its real path here, or the backend spec

    @property
    def local(self) -> Path | None: ...  # the folder on this machine, when it is one (read only, as ident)

    def real_root(self) -> str: ...

    def settled_before(self) -> int | None:
        """None when a stat key is exact (this machine: ns times, ctime, inode); else a time (ns, the tree's own
        clock) before which an unchanged key can be trusted (whole-second mtimes, no ctime or inode)."""
        ...

    def scandir(self, rel: str) -> list[tuple[str, Stat]]:
        """The folder's entries, sorted by name; [] when it is missing, not a folder or unreadable."""
        ...

    def lstat(self, rel: str) -> Stat | None: ...

    def readlink(self, rel: str) -> str: ...

    def realpath(self, rel: str) -> str: ...

    def open_read(self, rel: str) -> AbstractContextManager[IO[bytes]]:
        """A regular file's content, never through a link at its last component."""
        ...

    def create(self, rel: str) -> AbstractContextManager[IO[bytes]]:
        """A new file (mode 0o600, refused if anything is there), written when the block ends."""
        ...

    def chmod(self, rel: str, mode: int) -> None: ...

    def mkdir(self, rel: str) -> None: ...

    def unlink(self, rel: str) -> None: ...

    def rmdir(self, rel: str) -> None: ...

    def symlink(self, target: str, rel: str) -> None: ...

    def replace(self, src: str, dst: str) -> None:
        """Rename `src` over `dst` atomically."""
        ...


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "link"
    return "file" if stat.S_ISREG(mode) else "other"


def _stat(st: os.stat_result) -> Stat:
    key = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    return Stat(kind_of(st.st_mode), stat.S_IMODE(st.st_mode), st.st_size, key)


class LocalTree:
    """A folder on this machine, through os calls (what checkpoints did before backends existed)."""

    def __init__(self, root: Path) -> None:
        self.local = Path(root).resolve()
        self.ident = str(self.local)

    def _p(self, rel: str) -> Path:
        return self.local / rel if rel else self.local

    def real_root(self) -> str:
        return self.ident

    def settled_before(self) -> int | None:
        return None

    def scandir(self, rel: str) -> list[tuple[str, Stat]]:
        try:
            with os.scandir(self._p(rel)) as items:
                found = [(i.name, _stat(i.stat(follow_symlinks=False))) for i in items]
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            return []
        return sorted(found)

    def lstat(self, rel: str) -> Stat | None:
        try:
            return _stat(os.lstat(self._p(rel)))
        except FileNotFoundError:
            return None

    def readlink(self, rel: str) -> str:
        return os.readlink(self._p(rel))

    def realpath(self, rel: str) -> str:
        return os.path.realpath(self._p(rel))

    def open_read(self, rel: str) -> AbstractContextManager[IO[bytes]]:
        # O_NOFOLLOW: a file swapped for a link between the walk and the read is not followed out
        return os.fdopen(os.open(self._p(rel), os.O_RDONLY | os.O_NOFOLLOW), "rb")

    def create(self, rel: str) -> AbstractContextManager[IO[bytes]]:
        fd = os.open(self._p(rel), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        return os.fdopen(fd, "wb")

    def chmod(self, rel: str, mode: int) -> None:
        os.chmod(self._p(rel), mode)

    def mkdir(self, rel: str) -> None:
        os.mkdir(self._p(rel))

    def unlink(self, rel: str) -> None:
        os.unlink(self._p(rel))

    def rmdir(self, rel: str) -> None:
        os.rmdir(self._p(rel))

    def symlink(self, target: str, rel: str) -> None:
        os.symlink(target, self._p(rel))

    def replace(self, src: str, dst: str) -> None:
        os.replace(self._p(src), self._p(dst))


def parent_of(rel: str) -> str:
    return rel.rpartition("/")[0]


def make_writable(tree: WorkspaceTree, directory: str) -> None:
    st = tree.lstat(directory)
    if st is not None and st.kind == "dir" and not st.mode & stat.S_IWUSR:
        tree.chmod(directory, st.mode | stat.S_IWUSR | stat.S_IXUSR)


def remove(tree: WorkspaceTree, rel: str) -> None:
    """Remove a file, link or whole folder (made writable first; links inside are removed, never followed)."""
    st = tree.lstat(rel)
    if st is None:
        return
    make_writable(tree, parent_of(rel))
    if st.kind != "dir":
        tree.unlink(rel)
        return
    if st.mode & 0o700 != 0o700:
        tree.chmod(rel, st.mode | 0o700)
    for name, sub in tree.scandir(rel):
        child = f"{rel}/{name}"
        if sub.kind == "dir":
            remove(tree, child)
        else:
            tree.unlink(child)
    tree.rmdir(rel)
