"""The file tools over SFTP, confined to the remote workspace: no `..`, absolute paths only inside it, and every
existing part of a path resolved by the server (realpath follows links there) and checked to stay inside. Writes
go to a temporary file in the same folder, then an atomic posix-rename."""

from __future__ import annotations

import io
import posixpath
import secrets
import stat
from collections.abc import Awaitable, Callable, Generator, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import IO, Any, TypeVar

import asyncssh

from grove.backends.base import TextOpener
from grove.security.files.confine import Refused

MAX_READ_BYTES = 64 * 2**20
MAX_GREP_BYTES = 8 * 2**20  # a remote file bigger than this is listed, not searched
MAX_WALK = 20_000  # entries a search visits
MAX_PATH = 4096
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".ruff_cache", ".tox"}
T = TypeVar("T")
SftpCall = Callable[[Callable[[asyncssh.SFTPClient], Awaitable[T]]], T]


@dataclass
class RemoteSpot:
    exists: bool
    name: str  # '' = the folder itself
    real: str
    missing: list[str] = field(default_factory=list)  # folders to create before it
    is_dir: bool = False
    size: int = 0

    def close(self) -> None:
        pass  # nothing held: each act re-resolves on the server


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


async def still_itself(sftp: asyncssh.SFTPClient, real: str) -> bool:
    """`real` still resolves to itself on the server (no folder or file in it became a link since it was checked).
    Narrows, does not close, the gap SFTP leaves (no open without following links)."""
    try:
        return bool(await sftp.realpath(real) == real)
    except asyncssh.SFTPError:
        return False


def _same_file(a: asyncssh.SFTPAttrs, b: asyncssh.SFTPAttrs) -> bool:
    """What SFTP v3 can tell of two stats being one file: type and mode, owner, size, mtime (no inode)."""
    return (a.permissions, a.uid, a.gid, a.size, a.mtime) == (b.permissions, b.uid, b.gid, b.size, b.mtime)


async def read_unswapped(sftp: asyncssh.SFTPClient, real: str, limit: int | None) -> bytes | None:
    """The regular file at `real`, read through a handle whose own stat matches the path's lstat and whose path
    still resolves to itself afterwards; None when it is not a regular file or either check fails (a link swapped
    in, or the file changed meanwhile). Narrows the gap SFTP leaves (no open without following links) to a
    swap and swap-back between the open and the checks, onto a file with the same owner, mode, size and mtime."""
    seen = await sftp.lstat(real)
    if not stat.S_ISREG(seen.permissions or 0):
        return None
    async with sftp.open(real, "rb") as f:
        held = await f.stat()
        data = bytes(await (f.read() if limit is None else f.read(limit + 1)))  # None: all of it
    after = await sftp.lstat(real)
    if not (_same_file(seen, held) and _same_file(held, after)) or not await still_itself(sftp, real):
        return None
    return data


def _missing(e: Exception) -> bool:
    return isinstance(e, asyncssh.SFTPNoSuchFile | asyncssh.SFTPNoSuchPath)


class SftpFiles:
    """`Files` for one remote workspace; `call` runs an SFTP coroutine on the backend's connection."""

    def __init__(self, call: SftpCall[Any], root: str, where: str) -> None:
        self.call, self.root, self.where = call, root, where

    # --- where a path leads

    def _parts(self, path: str) -> list[str]:
        if not isinstance(path, str) or not path.strip():
            raise Refused("give a file path (relative to the workspace)")
        if "\0" in path or len(path.encode("utf-8", "surrogateescape")) > MAX_PATH:
            raise Refused("the path contains a NUL byte or is too long")
        if path.startswith("~"):
            raise Refused(f"{path}: paths on {self.where} are relative to its workspace {self.root}; no ~")
        if path.startswith("/"):
            if not _under(posixpath.normpath(path), self.root) or ".." in path.split("/"):
                raise Refused(
                    f"{path} is outside the remote workspace {self.root} on {self.where}; file tools there act "
                    "only inside it (give a path relative to it)"
                )
            path = posixpath.relpath(posixpath.normpath(path), self.root)
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if ".." in parts:
            raise Refused(
                f"{path}: '..' is not allowed on {self.where}; give the path from the workspace root {self.root}"
            )
        return parts

    def locate(self, path: str, *, write: bool) -> RemoteSpot:
        parts = self._parts(path)
        return self.call(lambda sftp: self._resolve(sftp, path, parts))

    async def _resolve(self, sftp: asyncssh.SFTPClient, path: str, parts: list[str]) -> RemoteSpot:
        cur = self.root
        attrs = await sftp.stat(cur)
        for i, name in enumerate(parts):
            if not stat.S_ISDIR(attrs.permissions or 0):
                raise Refused(f"{posixpath.relpath(cur, self.root)} is not a folder")
            nxt = posixpath.join(cur, name)
            try:
                attrs = await sftp.lstat(nxt)
            except asyncssh.SFTPError as e:
                if not _missing(e):
                    raise Refused(f"{path}: {e.reason}") from None
                rest = parts[i:]
                return RemoteSpot(False, rest[-1], posixpath.join(cur, *rest), rest[:-1])
            if stat.S_ISLNK(attrs.permissions or 0):
                try:  # the server resolves every link in it, as the remote kernel will
                    real = await sftp.realpath(nxt)
                    attrs = await sftp.stat(real)
                except asyncssh.SFTPError:
                    raise Refused(f"{path}: a symbolic link in it leads nowhere on {self.where}") from None
                if not _under(real, self.root):
                    raise Refused(
                        f"{path} is a symbolic link leading out of the remote workspace ({real}); file tools on "
                        f"{self.where} act only inside {self.root}"
                    )
                nxt = real
            cur = nxt
        is_dir = stat.S_ISDIR(attrs.permissions or 0)
        name = "" if not parts or is_dir else posixpath.basename(cur)
        return RemoteSpot(True, name, cur, is_dir=is_dir, size=attrs.size or 0)

    # --- acts

    def read(self, spot: RemoteSpot, path: str, limit: int = MAX_READ_BYTES) -> bytes:
        if not spot.exists:
            raise Refused(f"{path} does not exist")
        if spot.is_dir:
            raise Refused(f"{path} is a directory; use search_files to list it")
        return self.call(lambda sftp: self._read(sftp, spot.real, path, limit))

    async def _read(self, sftp: asyncssh.SFTPClient, real: str, path: str, limit: int) -> bytes:
        attrs = await sftp.lstat(real)
        if not stat.S_ISREG(attrs.permissions or 0):
            raise Refused(f"{path} is not a regular file (a folder, link, FIFO, device or socket)")
        if (attrs.nlink or 1) > 1:
            raise Refused(
                f"{path} has {attrs.nlink} names (hard links), one may be outside the workspace; not read"
            )
        if (attrs.size or 0) > limit:
            raise Refused(f"{path} is {attrs.size} bytes; files over {limit // 2**20} MiB are not read")
        data = await read_unswapped(sftp, real, limit)  # SFTP opens follow links: a swap meanwhile is caught
        if data is None:
            raise Refused(f"{path} changed while it was being used; try again")
        if len(data) > limit:
            raise Refused(f"{path} grew past {limit // 2**20} MiB while being read")
        return data

    async def _unmoved(self, sftp: asyncssh.SFTPClient, real: str, path: str) -> None:
        """`real` still resolves to itself on the server, else Refused (see still_itself)."""
        if not await still_itself(sftp, real):
            raise Refused(f"{path} changed while it was being used; try again")

    def write(self, spot: RemoteSpot, path: str, data: bytes) -> None:
        if spot.is_dir or not spot.name:
            raise Refused(f"{path} is a directory")
        self.call(lambda sftp: self._write(sftp, spot, data))

    async def _write(self, sftp: asyncssh.SFTPClient, spot: RemoteSpot, data: bytes) -> None:
        folder = posixpath.dirname(spot.real)
        base = posixpath.join(folder, *[".."] * len(spot.missing)) if spot.missing else folder
        cur = posixpath.normpath(base)
        for name in spot.missing:
            cur = posixpath.join(cur, name)
            try:
                await sftp.mkdir(cur)
            except asyncssh.SFTPError as e:
                attrs = await sftp.lstat(cur)  # made meanwhile: fine only as a real folder
                if not stat.S_ISDIR(attrs.permissions or 0):
                    raise Refused(f"{cur} is not a folder ({e.reason})") from None
        mode = 0o644
        if spot.exists:
            attrs = await sftp.lstat(spot.real)
            if not stat.S_ISREG(attrs.permissions or 0):
                raise Refused(f"{spot.real} is not a regular file; not replaced")
            mode = (attrs.permissions or 0o644) & 0o777  # keep its rwx bits, lose setuid/setgid/sticky
        tmp = posixpath.join(folder, f".{spot.name}.grove-{secrets.token_hex(4)}")
        await self._unmoved(sftp, folder, spot.real)  # nothing, not even the temporary file, lands outside
        try:
            async with sftp.open(tmp, "xb", asyncssh.SFTPAttrs(permissions=0o600)) as f:
                await f.write(data)
                await f.chmod(mode)  # on the handle: never a path a link was swapped into meanwhile
            await self._unmoved(
                sftp, folder, spot.real
            )  # the folder is still the checked one, not a link out
            await sftp.posix_rename(tmp, spot.real)
        except BaseException:
            with suppress(asyncssh.SFTPError):
                await sftp.remove(tmp)
            raise

    def walk(self, spot: RemoteSpot) -> Generator[tuple[str, TextOpener | None], None, None]:
        if not spot.exists:
            return
        if not spot.is_dir:
            yield spot.real, self._opener(spot.real)
            return
        entries: list[tuple[str, bool]] = self.call(lambda sftp: self._list(sftp, spot.real))
        for real, searchable in entries:
            yield real, self._opener(real) if searchable else None

    async def _list(self, sftp: asyncssh.SFTPClient, top: str) -> list[tuple[str, bool]]:
        """(real path, searchable) of every file under `top`, sorted, folders below links never entered."""
        out: list[tuple[str, bool]] = []
        pending = [top]
        while pending and len(out) < MAX_WALK:
            folder = pending.pop()
            names = sorted(await sftp.readdir(folder), key=lambda n: str(n.filename))
            subdirs = []
            for entry in names:
                name = str(entry.filename)
                if name in (".", ".."):
                    continue
                mode, real = entry.attrs.permissions or 0, posixpath.join(folder, name)
                if stat.S_ISDIR(mode):
                    if name not in SKIP_DIRS:
                        subdirs.append(real)
                    continue
                plain = stat.S_ISREG(mode) and (entry.attrs.nlink or 1) == 1
                out.append((real, plain and (entry.attrs.size or 0) <= MAX_GREP_BYTES))
            pending += reversed(subdirs)  # depth first, in name order, as the local walk
        return sorted(out)

    def _opener(self, real: str) -> TextOpener:
        @contextmanager
        def opened() -> Iterator[IO[str]]:
            try:
                data = self.call(lambda sftp: self._read(sftp, real, real, MAX_GREP_BYTES))
            except Refused as e:  # changed since the listing: skipped like any unreadable file
                raise OSError(str(e)) from None
            yield io.StringIO(data.decode("utf-8"), newline=None)

        return opened

    def shown(self, real: str) -> str:
        return posixpath.relpath(real, self.root) if _under(real, self.root) else real
