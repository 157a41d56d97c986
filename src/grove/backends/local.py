"""The local backend: commands in grove's sandbox (grove.sandbox), files through the held-fd confinement
(grove.security.files) — what the terminal and file tools did before backends existed, unchanged."""

from __future__ import annotations

import os
import stat
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from grove.backends.base import TextOpener
from grove.backends.tree import LocalTree
from grove.sandbox.types import Result
from grove.security.approval.policy import SafetyPolicy
from grove.security.files.acts import open_file, read_place, write_place
from grove.security.files.confine import Confinement, Place, Refused, Roots

if TYPE_CHECKING:
    from grove.config import Settings

SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".ruff_cache", ".tox"}


class LocalBackend:
    """This machine. Cheap to make: built per tool call from the session's context, so policy changes apply."""

    kind = "local"
    name = "local"

    def __init__(
        self,
        workspace: Path,
        policy: SafetyPolicy | None = None,
        settings: Settings | None = None,
        session_id: str | None = None,
    ) -> None:
        self.workspace = Path(workspace)
        self.root = str(self.workspace)
        self.policy = policy or SafetyPolicy()
        self.settings = settings
        self.session_id = session_id

    def run(self, command: str, *, timeout: float, network: bool | None = None) -> Result:
        from grove.sandbox import Limits, run
        from grove.security.files.protected import existing_protected

        policy = self.policy
        return run(
            ["/bin/bash", "-c", command],
            self.workspace,
            Limits(timeout=timeout),
            network=policy.network and network is not False,
            merge_stderr=True,
            backend=None if policy.sandbox == "auto" else policy.sandbox,
            unattended=policy.unattended,
            allow_unisolated=policy.allow_unisolated,
            protect_home=self.settings.home if self.settings else None,
            read_only=existing_protected(self.workspace),
        )

    @contextmanager
    def files(self) -> Iterator[LocalFiles]:
        settings = self.settings
        if settings is not None:
            home = settings.home
            security = settings.security
            read_only = tuple(Path(p) for p in getattr(security, "extra_read_roots", []) or [])
            read_write = tuple(Path(p) for p in getattr(security, "extra_write_roots", []) or [])
        else:
            from grove.config import grove_home

            home, read_only, read_write = grove_home(), (), ()
        roots = Roots.make(self.workspace, home, read_only, read_write)
        try:
            with Confinement(roots, self.policy, self.session_id) as conf:
                yield LocalFiles(conf)
        except PermissionError as e:
            raise Refused(_denied(roots, e)) from None
        except Refused:
            raise
        except OSError as e:
            raise Refused(f"{e.strerror or e}: {e.filename or ''}".rstrip(": ")) from None

    def tree(self) -> LocalTree:
        return LocalTree(self.workspace)

    def check(self) -> tuple[bool, str]:
        from grove.sandbox import detect_backend

        info = detect_backend()
        return True, f"local: commands in the {info.name} sandbox, workspace {self.root}"

    def close(self) -> None:
        pass


class LocalFiles:
    """A Confinement seen as `Files`: places are grove.security.files Places."""

    def __init__(self, conf: Confinement) -> None:
        self.conf = conf

    def locate(self, path: str, *, write: bool) -> Place:
        return self.conf.locate(path, write=write)

    def read(self, spot: Place, path: str) -> bytes:
        return read_place(self.conf, spot, path)

    def write(self, spot: Place, path: str, data: bytes) -> None:
        write_place(self.conf, spot, path, data)

    def walk(self, spot: Place) -> Generator[tuple[str, TextOpener | None], None, None]:
        with self.conf.acting(spot):
            for real, fd in _walk(self.conf, spot):
                yield real, (None if fd is None else _opener(fd))

    def shown(self, real: str) -> str:
        """Paths inside the workspace are shown relative to it, others in full."""
        conf = self.conf
        return (
            os.path.relpath(real, conf.ws_real)
            if conf.zone(real) == "rw" and real.startswith(conf.ws_real)
            else real
        )


def _opener(fd: int) -> TextOpener:
    return lambda: os.fdopen(os.dup(fd), encoding="utf-8", errors="strict")


def _denied(roots: Roots, e: OSError) -> str:
    who = roots.identity
    if who is None:
        return f"permission denied: {e.filename or ''}"
    # short and whole, the fix first: the screen cuts long errors, and a model that sees no fix gives up
    return (
        f"permission denied for uid {who.uid}: {e.filename or ''}. Fix: `chgrp -R {who.gid} DIR && "
        f"chmod -R g+rwX DIR` (file tools act as uid {who.uid} here)"
    )


def _walk(conf: Confinement, place: Place) -> Iterator[tuple[str, int | None]]:
    """(real path, open fd or None when not searchable) for each file under `place`, never through a link."""
    if place.name:
        st = os.stat(place.name, dir_fd=place.dir_fd, follow_symlinks=False)
        if not stat.S_ISDIR(st.st_mode):
            fd = _open_plain(conf, place.dir_fd, place.name, place.real)
            try:
                yield place.real, fd
            finally:
                if fd is not None:
                    os.close(fd)
            return
    top = (
        open_file(place, place.real)
        if not place.name
        else os.open(
            place.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=place.dir_fd
        )
    )
    try:
        for rel, dirnames, filenames, dfd in os.fwalk(".", dir_fd=top):
            base = os.path.normpath(os.path.join(place.real, rel))
            dirnames[:] = sorted(
                d for d in dirnames
                if d not in SKIP_DIRS and not conf.hard_reason(os.path.join(base, d), write=False)
            )  # fmt: skip
            for name in sorted(filenames):
                real = os.path.join(base, name)
                fd = _open_plain(conf, dfd, name, real)
                try:
                    yield real, fd
                finally:
                    if fd is not None:
                        os.close(fd)
    finally:
        os.close(top)


def _open_plain(conf: Confinement, dir_fd: int, name: str, real: str) -> int | None:
    """An fd for a searchable file: regular, one name only, not protected; else None (listed, not searched)."""
    if conf.hard_reason(real, write=False):
        return None
    try:
        fd = os.open(
            name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, dir_fd=dir_fd
        )
    except OSError:
        return None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1 or conf.is_protected(st):
        os.close(fd)
        return None
    return fd
