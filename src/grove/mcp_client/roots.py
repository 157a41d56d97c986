"""The roots grove gives a server (`roots/list`): the calling session's workspace, as one file:// root. A
handshake-era server that asked once hears `notifications/roots/list_changed` when a call comes from a session
with another workspace (the connection is shared by the process's sessions)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grove.mcp_client.caller import Caller


class Roots:
    """What one connection last told its server, to know when the list changed."""

    def __init__(self) -> None:
        self.given: Path | None = None  # the workspace last given; None = the server never asked
        self.last: Path | None = None  # the workspace of the last call, for a server asking outside any call

    def answer(self, caller: Caller | None) -> Any:
        from mcp import types

        workspace = caller.workspace if caller is not None else self.last
        self.given = workspace
        if workspace is None:
            return types.ListRootsResult(roots=[])
        from pydantic import FileUrl

        return types.ListRootsResult(
            roots=[types.Root(uri=FileUrl(workspace.as_uri()), name=workspace.name or "/")]
        )

    def changed_for(self, caller: Caller | None) -> bool:
        """Whether a call for `caller` changes the list the server was last given (it is then told)."""
        if caller is None:
            return False
        self.last = caller.workspace
        return self.given is not None and self.given != caller.workspace
