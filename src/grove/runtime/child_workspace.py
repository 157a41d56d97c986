"""A child's own workspace: an empty folder outside the parent's, removed when the delegate call ends unless
delegation.keep_workspaces keeps it (its path is in the report). On the session's backend: when the parent's tools
act on an SSH host, the child's folder is made on that host too (and its tools act there); a container child
mounts its local folder in a container of its own."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from grove.runtime.session_backend import spec_of
from grove.sandbox.users import sandbox_folder

if TYPE_CHECKING:
    from grove.backends.ssh.backend import SshBackend
    from grove.tools.context import ToolContext

# a child's local folder -> its twin on the parent's SSH host
_remote: dict[Path, tuple[SshBackend, str]] = {}
_lock = threading.Lock()


def own_workspace(parent: ToolContext | None = None) -> Path:
    """The child's folder here; when `parent` acts on an SSH host, a fresh folder there as well."""
    local = sandbox_folder(Path(tempfile.mkdtemp(prefix="grove-child-")), 0o2770).resolve()
    backend = parent.backend if parent is not None else None
    if backend is not None and backend.kind == "ssh":
        from grove.backends.ssh.backend import SshBackend

        assert isinstance(backend, SshBackend)
        try:
            folder = backend.make_folder("grove-child-")
        except BaseException:
            shutil.rmtree(local, ignore_errors=True)
            raise
        with _lock:
            _remote[local] = (backend, folder)
        atexit.register(shutil.rmtree, local, True)  # kept or not, the empty stand-in here goes at exit
    return local


def child_backend(parent: ToolContext, own: Path | None) -> str:
    """The backend spec of a child's tools: its own folder on the parent's SSH host, else the parent's backend."""
    with _lock:
        twin = _remote.get(own) if own is not None else None
    if twin is not None:
        backend, folder = twin
        return f"ssh:{backend.spec.host}:{folder}"
    return spec_of(parent)


def shown(own: Path) -> str:
    """Where the child's own workspace is, for its report."""
    with _lock:
        twin = _remote.get(own)
    return f"ssh:{twin[0].spec.host}:{twin[1]}" if twin is not None else str(own)


def remove_own(own: Path) -> None:
    """Remove the child's folder here and its twin on the host (best effort: a host gone keeps its copy)."""
    shutil.rmtree(own, ignore_errors=True)
    with _lock:
        twin = _remote.pop(own, None)
    if twin is not None:
        from grove.backends.base import BackendError

        with suppress(BackendError):
            twin[0].remove_folder(twin[1])
