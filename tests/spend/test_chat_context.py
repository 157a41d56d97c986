"""`/context` in `grove chat` (a real pseudo-terminal): the last request's prompt by part, cached vs fresh."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.cli.test_chat_interrupt import Terminal
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply


def test_chat_context_shows_the_last_requests_parts(tmp_path: Path) -> None:
    env = {**os.environ, "GROVE_HOME": str(tmp_path / "home"), "TERM": "xterm"}
    usage = {"prompt_tokens": 1200, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 1024}}
    with FakeOpenAIServer(FakeReply(text="Hello there.", usage=usage)) as srv:
        spec = f"openai-compat:fake@{srv.url}"
        term = Terminal([sys.executable, "-m", "grove", "chat", "-m", spec, "-t", "files"], env)
        try:
            term.read_until("/help for commands")
            term.type("/context\r")
            term.read_until("no model request yet")
            term.type("hi\r")
            term.read_until("Hello there.")
            term.type("/context\r")
            term.read_until("cached 1,024 · fresh 176")
            term.type("/exit\r")
            assert term.wait(30) == 0, term.seen
        finally:
            term.close()
    seen = term.seen if isinstance(term.seen, str) else str(term.seen)
    assert "last request: 1,200 prompt tokens (as reported)" in seen
    assert "tools" in seen and "system" in seen
