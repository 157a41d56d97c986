"""How a turn looks in the terminal: streamed text, compact tool activity, notices (rich, on stderr/stdout)."""

from __future__ import annotations

import json
import sys

from rich.markup import escape

from grove.agent.events import AgentEvents
from grove.llm.types import ToolCall
from grove.tools.registry import ToolResult


def short_args(raw: str, limit: int = 80) -> str:
    try:
        args = json.loads(raw)
    except (json.JSONDecodeError, TypeError):
        return raw[:limit]
    if not isinstance(args, dict):
        return str(args)[:limit]
    text = " ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TerminalEvents(AgentEvents):
    """Tool activity and notices to stderr (so stdout holds only the answer); text streamed when interactive."""

    def __init__(self, stream_text: bool, quiet: bool = False) -> None:
        from rich.console import Console

        self.streaming = stream_text
        self.quiet = quiet
        self.err = Console(stderr=True, highlight=False)
        self.streamed_any = False

    def on_text(self, delta: str) -> None:
        self.streamed_any = True
        sys.stdout.write(delta)
        sys.stdout.flush()

    def on_model_done(self, has_tool_calls: bool) -> None:
        if self.streamed_any:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self.streamed_any = False

    def on_tool_start(self, call: ToolCall) -> None:
        if not self.quiet:
            self.err.print(f"[dim]  ⚙ {call.name} {escape(short_args(call.arguments))}[/dim]", markup=True)

    def on_tool_end(self, call: ToolCall, result: ToolResult) -> None:
        if not self.quiet and not result.ok:
            first = result.content.splitlines()[0] if result.content else ""
            self.err.print(f"[yellow]  ✗ {call.name}: {escape(first[:160])}[/yellow]", markup=True)

    def on_notice(self, text: str) -> None:
        if self.streamed_any:  # a retried stream starts over: end the partial line so the retry reads clearly
            self.on_model_done(False)
        if not self.quiet:
            self.err.print(f"[cyan]grove: {escape(text)}[/cyan]", markup=True)
