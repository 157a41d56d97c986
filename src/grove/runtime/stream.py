"""The one event stream of a session: what the agent, its tools, the router and the background loops tell the
front end, redacted on the way out. Each front end renders it its own way (terminal, JSON, a gateway)."""

from __future__ import annotations

import threading

from grove.agent.events import AgentEvents
from grove.llm.types import ToolCall
from grove.runtime.holdback import Holdback
from grove.security.secrets.redact import redact
from grove.tools.registry import ToolResult


class EventStream(AgentEvents):
    """Forwards every event to `sink` with secrets masked. Streamed text goes on as soon as it cannot be part
    of a secret (grove.runtime.holdback): one can arrive split over several deltas, or after the "password:"
    that names it. Notices are also kept in `notices`."""

    def __init__(self, sink: AgentEvents | None = None) -> None:
        self.sink = sink or AgentEvents()
        self.streaming = self.sink.streaming
        self.notices: list[str] = []
        self._text = Holdback(self.sink.on_text, redact)
        self._lock = threading.Lock()  # background loops (reviews, the curator) report from their threads

    def on_text(self, delta: str) -> None:
        self._text.feed(delta)

    def on_model_done(self, has_tool_calls: bool) -> None:
        self._text.flush()
        self.sink.on_model_done(has_tool_calls)

    def on_tool_start(self, call: ToolCall) -> None:
        self.sink.on_tool_start(ToolCall(call.id, call.name, redact(call.arguments)))

    def on_tool_end(self, call: ToolCall, result: ToolResult) -> None:
        self.sink.on_tool_end(
            ToolCall(call.id, call.name, redact(call.arguments)),
            ToolResult(redact(result.content), result.ok),
        )

    def on_notice(self, text: str) -> None:
        text = redact(text)
        with self._lock:
            self.notices.append(text)
            self.sink.on_notice(text)

    def stop_requested(self) -> bool:
        return self.sink.stop_requested()
