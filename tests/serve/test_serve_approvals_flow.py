"""An API turn whose command needs approval waits in the server's queue (what the dashboard shows) until it is
answered; the deny reaches the model instead of the command's output."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="grove serve needs the serve extra")
httpx = pytest.importorskip("httpx")

from tests.serve.conftest import FunctionModel  # noqa: E402

from grove.config import Settings  # noqa: E402
from grove.llm.types import Completion, ToolCall  # noqa: E402
from grove.serve.app import ServeOptions, build_app  # noqa: E402
from grove.serve.server import start_in_thread  # noqa: E402
from grove.serve.state import ServeState  # noqa: E402
from grove.serve.turns import TurnOptions  # noqa: E402


class RemoveThenReport(FunctionModel):
    """First call: force-push (always asked, sandbox or not); then answer with what the tool said."""

    def complete(
        self, messages: list[dict[str, Any]], tools: list[Any], settings: Any, on_text: Any = None
    ) -> Any:
        if messages[-1].get("role") == "tool":
            return Completion(text=f"tool said: {messages[-1].get('content')}", model=self.name)
        call = ToolCall("c1", "terminal", '{"command": "git push --force origin main"}')
        return Completion(text="", tool_calls=[call], finish_reason="tool_calls", model=self.name)


def test_a_command_waits_for_the_dashboard_and_a_deny_stops_it(settings: Settings, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    state = ServeState(settings)
    options = ServeOptions(
        turns=TurnOptions(
            toolsets=["terminal"],
            allow_terminal=True,
            workspace_root=root,
            ask_dashboard=True,
            model_override=RemoveThenReport(lambda m, t: ""),
        )
    )
    app = build_app(state, options)
    key = state.keys.add("k")  # type: ignore[union-attr]
    running = start_in_thread(app)
    out: dict[str, Any] = {}

    def post() -> None:
        out["r"] = httpx.post(
            f"{running.base_url}/chat/completions",
            json={"model": "grove", "messages": [{"role": "user", "content": "clean up"}]},
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        )

    thread = threading.Thread(target=post)
    thread.start()
    try:
        version = 0
        while not state.approvals.pending(everyone=True):
            version = state.approvals.wait_change(version, 10)
            assert thread.is_alive(), out["r"].text
        [pending] = state.approvals.pending(everyone=True)
        assert "git push --force" in pending.command and pending.label.startswith("api k:")
        assert state.approvals.answer(pending.id, "deny", everyone=True)
        thread.join(30)
    finally:
        running.stop()
    answer = out["r"].json()["choices"][0]["message"]["content"]
    assert answer.startswith("tool said:") and "denied" in answer
