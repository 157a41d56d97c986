"""Provider-free size estimates of messages, used to place boundaries and to decide before a call."""

from __future__ import annotations

from grove.llm.estimate import estimate_tokens
from grove.llm.types import Message, ToolSchema


def message_tokens(message: Message) -> int:
    return estimate_tokens(message) + 4  # per-message framing the providers add


def conversation_tokens(messages: list[Message], tools: list[ToolSchema] | None = None) -> int:
    return sum(message_tokens(m) for m in messages) + (estimate_tokens(tools) if tools else 0)
