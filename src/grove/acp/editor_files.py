"""A session's file reads and writes through the editor (fs/read_text_file, fs/write_text_file), when its
client declared them at initialize: grove.backends.editor's EditorFs over the ACP connection."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

import acp
from acp import schema

from grove.tools.context import ToolContext

ANSWER_SECONDS = 60.0  # an editor that does not answer a file request fails the tool call, not the turn


class EditorConnection:
    """The editor's file acts for one session, called from the turn's thread."""

    def __init__(
        self,
        conn: Any,
        session_id: str,
        fs: schema.FileSystemCapabilities,
        call: Callable[[Coroutine[Any, Any, Any], float], Any],
    ) -> None:
        self.conn, self.session_id, self.call = conn, session_id, call
        self.reads, self.writes = bool(fs.read_text_file), bool(fs.write_text_file)

    def read_text(self, path: str) -> str:
        got = self._ask("read", self.conn.read_text_file(session_id=self.session_id, path=path))
        return str(got.content)

    def write_text(self, path: str, text: str) -> None:
        self._ask("write", self.conn.write_text_file(session_id=self.session_id, path=path, content=text))

    def _ask(self, verb: str, coro: Coroutine[Any, Any, Any]) -> Any:
        try:
            return self.call(coro, ANSWER_SECONDS)
        except acp.RequestError as e:
            raise OSError(f"the editor could not {verb} it ({e})") from None
        except TimeoutError:
            raise OSError(f"the editor did not answer the {verb} within {ANSWER_SECONDS:g}s") from None


def through_editor(ctx: ToolContext, editor: EditorConnection) -> bool:
    """Point a local session's file tools at the editor; a session on another backend (SSH, a container) keeps
    its own files, as does one whose editor declared neither act. Whether it was done."""
    if ctx.backend is not None or not (editor.reads or editor.writes):
        return False
    from grove.backends.editor import EditorBackend
    from grove.backends.local import LocalBackend

    # made per call, as grove.tools.context does for the local backend: a policy changed mid-session applies
    ctx.backend = EditorBackend(
        lambda: LocalBackend(ctx.workspace, ctx.policy, ctx.settings, ctx.session_id), editor
    )
    return True
