"""The data every provider speaks: messages in OpenAI format, tool calls, usage, completions, settings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

# Messages stay in OpenAI chat format inside grove: {"role": ..., "content": ..., "tool_calls": [...], ...}.
Message = dict[str, Any]
ToolSchema = dict[str, Any]  # {"type": "function", "function": {"name", "description", "parameters"}}
TextCallback = Callable[[str], None]


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model produced it; validated by the tool registry

    def to_message(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
        }


@dataclass
class Completion:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str = "stop"
    model: str = ""

    def to_message(self) -> Message:
        msg: Message = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            msg["tool_calls"] = [tc.to_message() for tc in self.tool_calls]
        return msg


@dataclass
class ModelSettings:
    max_tokens: int | None = None
    temperature: float | None = None
    timeout: float = 120.0
    seed: int | None = None
    tool_choice: str | None = None  # None/"auto", "required", "none", or a tool's name (where supported)


@runtime_checkable
class Model(Protocol):
    """A chat model. `on_text`, when given, receives text deltas as they stream in."""

    # read-only here, so a wrapper (the router, a budget) may answer them as properties
    @property
    def name(self) -> str: ...  # the spec string, e.g. "openai:gpt-4o-mini"

    @property
    def context_window(self) -> int: ...

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion: ...
