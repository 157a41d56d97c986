"""A remote workspace as a `WorkspaceTree` (grove.backends.tree) over the backend's SFTP session, for checkpoints
and undo: the same acts as on a local folder, each one SFTP request (contents buffered, bounded by the caller)."""

from __future__ import annotations

import io
import posixpath
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Protocol, TypeVar

import asyncssh

from grove.backends.ssh.files import read_unswapped
from grove.backends.tree import Stat, kind_of

T = TypeVar("T")
ACT_SECONDS = 120.0


def _stat(attrs: asyncssh.SFTPAttrs) -> Stat:
    mode = attrs.permissions or 0
    size = attrs.size or 0
    # SFTP v3 (OpenSSH) has whole-second mtimes and no ctime or inode: see settled_before
    return Stat(kind_of(mode), mode & 0o7777, size, (size, int(attrs.mtime or 0) * 10**9, 0, 0))


def _os_error(e: asyncssh.SFTPError, path: str) -> OSError:
    """An SFTP failure as the OSError the same act would raise locally (undo's error handling is written once)."""
    if isinstance(e, asyncssh.SFTPNoSuchFile | asyncssh.SFTPNoSuchPath):
        return FileNotFoundError(2, e.reason, path)
    if isinstance(e, asyncssh.SFTPPermissionDenied):
        return PermissionError(13, e.reason, path)
    if isinstance(e, asyncssh.SFTPFileAlreadyExists):
        return FileExistsError(17, e.reason, path)
    return OSError(5, e.reason, path)


class _Connection(Protocol):
    """What the tree uses of its SshBackend (named here, not imported: the backend module imports this one)."""

    name: str
    root: str
    connects: int

    def _call(self, act: Callable[[], Coroutine[Any, Any, T]], seconds: float) -> T: ...
    def _retrying(self, act: Callable[[asyncssh.SFTPClient], Awaitable[T]]) -> Coroutine[Any, Any, T]: ...
    async def _ensure(self) -> tuple[asyncssh.SSHClientConnection, asyncssh.SFTPClient]: ...
    def clock_ns(self) -> int: ...


class SftpTree:
    def __init__(self, backend: _Connection) -> None:
        self.backend = backend
        self.ident = backend.name
        self.local: Path | None = None

    def _do(self, act: Callable[[asyncssh.SFTPClient], Awaitable[T]], rel: str) -> T:
        async def guarded(sftp: asyncssh.SFTPClient) -> T:
            try:
                return await act(sftp)
            except asyncssh.SFTPError as e:
                raise _os_error(e, rel) from None

        return self.backend._call(lambda: self.backend._retrying(guarded), ACT_SECONDS)

    def _p(self, rel: str) -> str:
        root = self.real_root()
        return posixpath.join(root, rel) if rel else root

    def real_root(self) -> str:
        if not self.backend.root or self.backend.connects == 0:
            self.backend._call(self.backend._ensure, ACT_SECONDS)
        return self.backend.root

    def settled_before(self) -> int | None:
        return self.backend.clock_ns() - 10**9

    def scandir(self, rel: str) -> list[tuple[str, Stat]]:
        path = self._p(rel)

        async def listed(sftp: asyncssh.SFTPClient) -> list[tuple[str, Stat]]:
            try:
                names = await sftp.readdir(path)
            except (asyncssh.SFTPNoSuchFile, asyncssh.SFTPNoSuchPath, asyncssh.SFTPPermissionDenied):
                return []
            except asyncssh.SFTPFailure:  # not a folder
                return []
            # the server's readdir reports each entry as lstat does: a link is a link, not what it leads to
            return sorted((str(n.filename), _stat(n.attrs)) for n in names if n.filename not in (".", ".."))

        return self._do(listed, rel)

    def lstat(self, rel: str) -> Stat | None:
        path = self._p(rel)

        async def looked(sftp: asyncssh.SFTPClient) -> Stat | None:
            try:
                return _stat(await sftp.lstat(path))
            except (asyncssh.SFTPNoSuchFile, asyncssh.SFTPNoSuchPath):
                return None

        return self._do(looked, rel)

    def readlink(self, rel: str) -> str:
        path = self._p(rel)
        return str(self._do(lambda sftp: sftp.readlink(path), rel))

    def realpath(self, rel: str) -> str:
        path = self._p(rel)
        return str(self._do(lambda sftp: sftp.realpath(path), rel))

    def open_read(self, rel: str) -> Any:
        path = self._p(rel)

        async def read(sftp: asyncssh.SFTPClient) -> bytes:
            # SFTP opens follow links: a part of the path swapped for one meanwhile is caught here
            data = await read_unswapped(sftp, path, None)  # its size was checked against max_file_bytes
            if data is None:
                raise OSError(40, "not a regular file, or it changed (into a link?) while it was read", rel)
            return data

        return io.BytesIO(self._do(read, rel))

    @contextmanager
    def create(self, rel: str) -> Iterator[IO[bytes]]:
        path = self._p(rel)
        buffer = io.BytesIO()
        yield buffer

        async def write(sftp: asyncssh.SFTPClient) -> None:
            # exclusive create: never through a link, never over anything already there
            async with sftp.open(path, "xb", asyncssh.SFTPAttrs(permissions=0o600)) as f:
                await f.write(buffer.getvalue())

        self._do(write, rel)

    def chmod(self, rel: str, mode: int) -> None:
        path = self._p(rel)
        self._do(lambda sftp: sftp.chmod(path, mode), rel)

    def mkdir(self, rel: str) -> None:
        path = self._p(rel)
        self._do(lambda sftp: sftp.mkdir(path), rel)

    def unlink(self, rel: str) -> None:
        path = self._p(rel)
        self._do(lambda sftp: sftp.remove(path), rel)

    def rmdir(self, rel: str) -> None:
        path = self._p(rel)
        self._do(lambda sftp: sftp.rmdir(path), rel)

    def symlink(self, target: str, rel: str) -> None:
        path = self._p(rel)
        self._do(lambda sftp: sftp.symlink(target, path), rel)

    def replace(self, src: str, dst: str) -> None:
        a, b = self._p(src), self._p(dst)
        self._do(lambda sftp: sftp.posix_rename(a, b), dst)
