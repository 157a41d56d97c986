"""Issue 33: `grove serve` took ~29 s to exit on Ctrl-C, generating for a client that had hung up. A stopped
turn now ends its model call at the next streamed token, and uvicorn gives open streams a short grace only."""

from __future__ import annotations

import threading
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="grove serve needs the serve extra")
httpx = pytest.importorskip("httpx")

from tests.serve.conftest import FunctionModel, make_app  # noqa: E402

from grove.config import Settings  # noqa: E402
from grove.llm.types import Completion, Usage  # noqa: E402
from grove.serve.server import GRACE_SECONDS, start_in_thread  # noqa: E402

LIMIT = 100_000


class EndlessModel(FunctionModel):
    """Streams a word, waits until the client has hung up, then streams words until told to stop (or LIMIT)."""

    def __init__(self) -> None:
        super().__init__(lambda _m, _t: "")
        self.hung_up = threading.Event()
        self.done = threading.Event()
        self.sent = 0

    def complete(self, messages: list[dict[str, Any]], tools: list[Any], settings: Any, on_text: Any = None):
        try:
            on_text("start ")
            self.hung_up.wait(10)
            for _ in range(LIMIT):
                self.hung_up.wait(0.001)  # yields the GIL so the server's loop notices the hang-up
                on_text("word ")
                self.sent += 1
            return Completion(text="never read", model=self.name, usage=Usage(1, 1))
        finally:
            self.done.set()


def test_a_generation_for_a_client_that_hung_up_ends_mid_call(settings: Settings) -> None:
    model = EndlessModel()
    app = make_app(settings, model=model)
    key = app.state.grove.keys.add("k")
    running = start_in_thread(app)
    body = {"model": "grove", "messages": [{"role": "user", "content": "go"}], "stream": True}
    try:
        with (
            httpx.Client(base_url=running.base_url, timeout=30) as client,
            client.stream(
                "POST", "/chat/completions", json=body, headers={"Authorization": f"Bearer {key}"}
            ) as r,
        ):
            for line in r.iter_lines():
                if "start" in line:
                    break
        model.hung_up.set()
        assert model.done.wait(30)
        assert model.sent < LIMIT  # the model call was ended, not run to its end
    finally:
        model.hung_up.set()
        running.stop()


def test_shutdown_gives_open_streams_only_a_short_grace() -> None:
    assert GRACE_SECONDS <= 5
