"""An editor that never answers a file request fails that tool call within the limit, and the request is given
up on (cancelled on the connection's loop), so a turn never hangs on it."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

pytest.importorskip("acp")
from acp import schema

from grove.acp import editor_files
from grove.acp.agent import GroveAcpAgent, Options


class Silent:
    """A connection whose editor never answers fs/read_text_file."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()

    async def read_text_file(self, **kw: Any) -> Any:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


def test_an_editor_that_does_not_answer_fails_the_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(editor_files, "ANSWER_SECONDS", 0.2)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        agent = GroveAcpAgent(None, Options())
        agent.loop = loop
        conn = Silent()
        fs = schema.FileSystemCapabilities(read_text_file=True, write_text_file=False)
        editor = editor_files.EditorConnection(conn, "s1", fs, agent.call)
        assert editor.reads and not editor.writes
        with pytest.raises(OSError, match=r"did not answer the read within 0\.2s"):
            editor.read_text("/w/notes.txt")
        assert conn.cancelled.wait(5)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
