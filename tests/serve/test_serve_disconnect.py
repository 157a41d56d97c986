"""A client that goes away (streaming or not) stops its turn at the next step (a real uvicorn server on 127.0.0.1): the
model is not called again, and the conversation's next request runs normally."""

from __future__ import annotations

import threading
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="grove serve needs the serve extra")
httpx = pytest.importorskip("httpx")

from tests.serve.conftest import FunctionModel  # noqa: E402

from grove.config import Settings  # noqa: E402
from grove.llm.types import Completion, ToolCall, Usage  # noqa: E402
from grove.serve.server import start_in_thread  # noqa: E402


class LoopingModel(FunctionModel):
    """Streams a line (grove passes streamed text on in whole lines), waits for the test, then asks for a tool call: a turn that would run to its iteration
    budget unless something stops it (a tool-less session would drop the call). A user message 'second' gets
    a plain answer."""

    def __init__(self) -> None:
        super().__init__(lambda _m, _t: "")
        self.release = threading.Event()
        self.first_turn_calls = 0

    def complete(self, messages: list[dict[str, Any]], tools: list[Any], settings: Any, on_text: Any = None):
        last_user = next(str(m.get("content")) for m in reversed(messages) if m.get("role") == "user")
        if last_user.endswith("second"):
            return Completion(text="second answer", model=self.name, usage=Usage(1, 1))
        self.first_turn_calls += 1
        if on_text:
            on_text("working\n")
        self.release.wait(10)
        call = ToolCall(id=f"c{self.first_turn_calls}", name="read_file", arguments='{"path": "missing.txt"}')
        return Completion(tool_calls=[call], finish_reason="tool_calls", model=self.name, usage=Usage(1, 1))


@pytest.mark.parametrize("stream", [True, False])
def test_a_client_that_hangs_up_stops_the_turn(settings: Settings, stream: bool) -> None:
    from grove.serve.app import ServeOptions, build_app
    from grove.serve.state import ServeState
    from grove.serve.turns import TurnOptions

    model = LoopingModel()
    turns = TurnOptions(toolsets=["files"], model_override=model, workspace_root=settings.home.parent / "ws")
    app = build_app(ServeState(settings), ServeOptions(turns=turns))
    key = app.state.grove.keys.add("k")
    running = start_in_thread(app)
    headers = {"Authorization": f"Bearer {key}", "X-Grove-Conversation": "c1"}
    body = {"model": "grove", "messages": [{"role": "user", "content": "first"}], "stream": stream}
    try:
        with httpx.Client(base_url=running.base_url.removesuffix("/v1"), timeout=30) as client:
            if stream:
                with client.stream("POST", "/v1/chat/completions", json=body, headers=headers) as r:
                    assert r.status_code == 200
                    for line in r.iter_lines():
                        if "working" in line:
                            break  # the turn is inside its first model call: hang up now
            else:  # a client that gives up waiting
                with pytest.raises(httpx.ReadTimeout):
                    client.post("/v1/chat/completions", json=body, headers=headers, timeout=0.5)
            # the server sees the hang-up; let the model call end, then the next request waits for the turn
            threading.Timer(0.3, model.release.set).start()
            second = {"model": "grove", "messages": [{"role": "user", "content": "second"}]}
            reply = client.post("/v1/chat/completions", json=second, headers=headers)
        assert reply.status_code == 200
        assert reply.json()["choices"][0]["message"]["content"] == "second answer"
        assert model.first_turn_calls == 1  # without the stop it runs on to its iteration budget
    finally:
        model.release.set()
        running.stop()
