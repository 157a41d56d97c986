"""What the turn loop tells its watcher (the CLI, a gateway): text deltas, tool activity, retries. No-ops here."""

from __future__ import annotations

from grove.llm.types import ToolCall
from grove.tools.registry import ToolResult


class AgentEvents:
    streaming = False  # ask providers to stream text deltas to on_text

    def on_text(self, delta: str) -> None:
        """A streamed piece of the answer."""

    def on_model_done(self, has_tool_calls: bool) -> None:
        """A model call finished (its text, if any, is complete)."""

    def on_tool_start(self, call: ToolCall) -> None:
        """A tool call is about to run."""

    def on_tool_end(self, call: ToolCall, result: ToolResult) -> None:
        """A tool call finished."""

    def on_notice(self, text: str) -> None:
        """Something the user should know (a retry, a fallback, the iteration budget running out)."""

    def stop_requested(self) -> bool:
        """Whether the watcher wants the turn to end early (an API client went away). Checked between model
        calls and tool batches: what is done so far is kept, and the turn ends as interrupted."""
        return False
