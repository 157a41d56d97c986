"""How a turn looks in the terminal: streamed text, compact tool activity, notices (rich, on stderr/stdout)."""

from __future__ import annotations

import json
import re
import sys
from functools import cached_property
from typing import TYPE_CHECKING

from grove.agent.events import AgentEvents
from grove.llm.types import ToolCall
from grove.tools.registry import ToolResult

if TYPE_CHECKING:
    from rich.console import Console


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
        self.streaming = stream_text
        self.quiet = quiet
        self.streamed_any = False
        self.call_text = ""  # what the model call under way has shown so far
        self.last_call_text = ""  # what the last finished (or cut short) call showed

    @cached_property
    def err(self) -> Console:
        # rich loads on first output: a quiet one-shot run never pays for it.
        from rich.console import Console

        return Console(stderr=True, highlight=False)

    def _say(self, style: str, text: str) -> None:
        from rich.markup import escape

        self.err.print(f"[{style}]{escape(text)}[/{style}]", markup=True)

    def on_text(self, delta: str) -> None:
        # the runtime's stream hands over whole lines, already redacted
        self.streamed_any = True
        self.call_text += delta
        sys.stdout.write(delta)
        sys.stdout.flush()

    def on_model_done(self, has_tool_calls: bool) -> None:
        self.last_call_text, self.call_text = self.call_text, ""
        if self.streamed_any:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self.streamed_any = False

    def on_tool_start(self, call: ToolCall) -> None:
        if not self.quiet:
            self._say("dim", f"  ⚙ {call.name} {short_args(call.arguments)}")

    def on_tool_end(self, call: ToolCall, result: ToolResult) -> None:
        if not self.quiet and not result.ok:
            self._say("yellow", f"  ✗ {call.name}: {error_line(result.content)}")

    def on_notice(self, text: str) -> None:
        if self.streamed_any:  # a retried stream starts over: end the partial line so the retry reads clearly
            self.on_model_done(False)
        if not self.quiet:
            self._say("cyan", f"grove: {text}")


_FIX = re.compile(r"\b(?:to fix|fix)\b", re.IGNORECASE)


def error_line(content: str, width: int = 600) -> str:
    """A failed call's first line for the screen, whole up to `width` (grove's refusals explain themselves there);
    past it, a fix the line offers (`Fix: chgrp ...`) is still kept whole, since it is what the user needs."""
    first = content.splitlines()[0] if content else ""
    if len(first) <= width:
        return first
    fix = _FIX.search(first, 1)
    if fix is None:
        return first[:width] + " …"
    if fix.start() <= width:
        return first
    return f"{first[:width].rstrip()} … {first[fix.start() :]}"
