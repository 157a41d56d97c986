"""The backend interface: a command runner and a confined file view of one workspace root, wherever it lives."""

from __future__ import annotations

from collections.abc import Callable, Generator
from contextlib import AbstractContextManager
from typing import IO, Any, Protocol, TypeVar

from grove.backends.tree import WorkspaceTree
from grove.errors import GroveError
from grove.sandbox.types import Result


class BackendError(GroveError):
    """The backend cannot be reached or used (connection refused, host key mismatch, bad spec); the message says
    what failed and how to fix it."""


class Spot(Protocol):
    """A checked location inside a backend's workspace (what `Files.locate` returns); closed after use."""

    exists: bool
    name: str  # '' = the folder itself
    real: str  # the resolved path on the backend's machine

    def close(self) -> None: ...


# A file's text, opened for reading (a context manager); raises UnicodeDecodeError or OSError while read.
TextOpener = Callable[[], AbstractContextManager[IO[str]]]


# A backend's own kind of Spot: its Files takes back only the spots it gave out.
SpotT = TypeVar("SpotT", bound=Spot)


class Files(Protocol[SpotT]):
    """One tool call's view of a backend's files. Every path is checked where it leads (links resolved on the
    backend's own side); refusals raise grove.security.files.confine.Refused with a message for the model."""

    def locate(self, path: str, *, write: bool) -> SpotT: ...

    def read(self, spot: SpotT, path: str) -> bytes: ...

    def write(self, spot: SpotT, path: str, data: bytes) -> None:
        """Create the missing folders and replace the file atomically."""
        ...

    def walk(self, spot: SpotT) -> Generator[tuple[str, TextOpener | None], None, None]:
        """(real path, opener or None when not searchable) for each file under the spot, never through a link.
        A generator: closing it early ends the walk's rights on the spot."""
        ...

    def shown(self, real: str) -> str:
        """How a real path is shown to the model (relative inside the workspace)."""
        ...


class Backend(Protocol):
    """Where a session's commands run and its files live."""

    name: str  # 'local', 'ssh:build.example:/srv/work'
    kind: str  # local | ssh | container
    root: str  # the workspace root on the backend's machine

    def run(self, command: str, *, timeout: float, network: bool | None = None) -> Result:
        """Run a bash command line in the workspace root; output capped, killed after `timeout` seconds.
        `network`: None = as the session's policy says; False = none even where it allows one (a container keeps
        the network it started with)."""
        ...

    def files(self) -> AbstractContextManager[Files[Any]]:
        """A confined file view for one tool call."""
        ...

    def tree(self) -> WorkspaceTree:
        """The workspace for grove's own acts on it (checkpoints and undo), on the backend's machine."""
        ...

    def check(self) -> tuple[bool, str]:
        """For `grove doctor`: (ok, what was found)."""
        ...

    def close(self) -> None: ...
