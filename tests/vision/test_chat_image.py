"""`/image PATH` in `grove chat` (a real pseudo-terminal): the image goes with the next message."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.cli.test_chat_interrupt import Terminal
from tests.fakes.multimodal import FakeVisionOpenAIServer, images_in
from tests.fakes.openai_server import FakeReply

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def test_chat_image_goes_with_the_next_message(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    env = {**os.environ, "GROVE_HOME": str(tmp_path / "home"), "TERM": "xterm"}
    with FakeVisionOpenAIServer(FakeReply(text="A cat.")) as srv:
        spec = f"openai-compat:fake@{srv.url}"
        term = Terminal([sys.executable, "-m", "grove", "chat", "-m", spec, "-t", ""], env)
        try:
            term.read_until("/help for commands")
            term.type(f"/image {tmp_path / 'shot.png'}\r")
            term.read_until("1 image(s) go with your next message")
            term.type("what is it?\r")
            term.read_until("A cat.")
            term.type("/exit\r")
            assert term.wait(30) == 0, term.seen
        finally:
            term.close()
        (first,) = [r.body for r in srv.requests]
    (part,) = images_in(first)
    assert part["image_url"]["url"].startswith("data:image/png;base64,")
