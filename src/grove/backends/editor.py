"""The local workspace with its file reads and writes done by the editor that drives the session (ACP's
fs/read_text_file, fs/write_text_file): the model sees unsaved buffers and the editor records the edits. grove's
own confinement decides first; listing and search, which the editor has no method for, stay on the disk."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from typing import Protocol

from grove.backends.base import TextOpener
from grove.backends.local import LocalBackend, LocalFiles
from grove.backends.tree import LocalTree
from grove.sandbox.types import Result
from grove.security.files.acts import MAX_READ_BYTES, open_file
from grove.security.files.confine import Place, Refused


class EditorFs(Protocol):
    """What the editor offers (grove.acp's connection): which acts it declared, and the acts on an absolute path.
    The acts raise OSError with a message for the model when the editor refuses or does not answer."""

    reads: bool
    writes: bool

    def read_text(self, path: str) -> str: ...

    def write_text(self, path: str, text: str) -> None: ...


class EditorBackend:
    """The local backend (made per call, so policy changes apply) whose Files hand the workspace's reads and
    writes to the editor. Named and kinded as the local one: children, code skills and the dashboard see local."""

    kind = "local"
    name = "local"

    def __init__(self, local: Callable[[], LocalBackend], editor: EditorFs) -> None:
        self._local, self.editor = local, editor
        self.root = local().root

    def run(self, command: str, *, timeout: float, network: bool | None = None) -> Result:
        return self._local().run(command, timeout=timeout, network=network)

    @contextmanager
    def files(self) -> Iterator[EditorFiles]:
        with self._local().files() as local:
            yield EditorFiles(local, self.editor)

    def tree(self) -> LocalTree:
        return self._local().tree()  # checkpoints are of the disk, which the editor saves to

    def check(self) -> tuple[bool, str]:
        ok, found = self._local().check()
        return ok, f"{found}; file reads and writes through the editor"

    def close(self) -> None:
        pass


class EditorFiles:
    """LocalFiles whose reads and writes inside the workspace go to the editor, after the same checks."""

    def __init__(self, local: LocalFiles, editor: EditorFs) -> None:
        self.local, self.editor = local, editor

    def locate(self, path: str, *, write: bool) -> Place:
        # grove's walk and checks (outside the workspace asked or refused, protected paths) before the editor
        return self.local.locate(path, write=write)

    def read(self, spot: Place, path: str) -> bytes:
        if not (self.editor.reads and self._editors(spot)):
            return self.local.read(spot, path)
        before = self._identity(spot, path)
        if before is not None:
            disk = self.local.read(spot, path)
            if not _is_text(disk):  # an image, an archive: the editor gives text only, the disk has the bytes
                return disk
        try:
            text = self.editor.read_text(spot.real)
        except OSError as e:
            raise Refused(f"{path}: {e}") from None
        # the editor opens the path itself: walked and checked again, so a file swapped for a link (to outside,
        # to a protected file) while the editor read it is not shown
        again = self.local.locate(spot.real, write=False)
        try:
            if again.real != spot.real or self._identity(again, path) != before:
                raise Refused(f"{path} changed while the editor read it; try again")
        finally:
            again.close()
        data = text.encode("utf-8")
        if len(data) > MAX_READ_BYTES:
            raise Refused(
                f"{path} is {len(data)} bytes; files over {MAX_READ_BYTES // 2**20} MiB are not read"
            )
        return data

    def write(self, spot: Place, path: str, data: bytes) -> None:
        if not (self.editor.writes and self._editors(spot)):
            return self.local.write(spot, path, data)
        if not spot.name:
            raise Refused(f"{path} is a directory")
        st = self._disk(spot, path)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return self.local.write(spot, path, data)  # the editor takes text only
        if st is not None and (st.st_nlink > 1 or not stat.S_ISREG(st.st_mode)):
            # an editor saves in place, through every name of the file (one may be outside) or into a FIFO: grove's
            # own write replaces only this name, and refuses what is not a plain file, as without an editor
            return self.local.write(spot, path, data)
        try:
            self.editor.write_text(spot.real, text)
        except OSError as e:
            raise Refused(f"{path}: {e}") from None

    def walk(self, spot: Place) -> Generator[tuple[str, TextOpener | None], None, None]:
        return self.local.walk(spot)  # ACP has no listing or search: the disk's files

    def shown(self, real: str) -> str:
        return self.local.shown(real)

    def _editors(self, spot: Place) -> bool:
        """Whether the editor acts at the place: inside the workspace (its project), not in other roots."""
        ws = self.local.conf.ws_real
        return spot.real == ws or spot.real.startswith(ws.rstrip("/") + "/")

    def _identity(self, spot: Place, path: str) -> tuple[int, int] | None:
        """(device, inode) of the disk's file at the place, when it is one grove may read (asked about when it
        has other names, refused when it is one of grove's own); None when there is none (a new buffer)."""
        st = self._disk(spot, path)
        if st is None:
            return None
        self.local.conf.check_opened(spot, st)
        return st.st_dev, st.st_ino

    def _disk(self, spot: Place, path: str) -> os.stat_result | None:
        """What is on the disk at the place, opened without following a link; None when nothing; a folder refused."""
        if not spot.exists:
            return None
        with self.local.conf.acting(spot):
            fd = open_file(spot, path)
        try:
            st = os.fstat(fd)
        finally:
            os.close(fd)
        if stat.S_ISDIR(st.st_mode):
            raise Refused(f"{path} is a directory; use search_files to list it")
        return st


def _is_text(data: bytes) -> bool:
    """Whether the editor could hold the file as text: UTF-8 without NUL bytes."""
    if b"\0" in data[:8192]:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
