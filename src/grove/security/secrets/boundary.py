"""Redaction of whole conversation messages (text and tool-call arguments): what the agent applies once to
everything that enters a conversation, so neither state.db nor a model request carries a secret."""

from __future__ import annotations

import json
from typing import Any

from grove.llm.types import Message
from grove.security.secrets.redact import redact


def redact_value(value: Any) -> Any:
    """Strings redacted at any depth of lists and dicts; other values as they are."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    return value


def redact_message(message: Message) -> Message:
    """A copy with secrets masked in its content and in its tool calls' arguments (the JSON stays valid)."""
    out: Message = dict(message)
    content = message.get("content")
    if content:
        out["content"] = redact_value(content)
    calls = message.get("tool_calls")
    if calls:
        out["tool_calls"] = [_redact_call(c) for c in calls]
    return out


def _redact_call(call: dict[str, Any]) -> dict[str, Any]:
    fn = call.get("function", {})
    raw = fn.get("arguments", "")
    try:
        value = redact_value(json.loads(raw))
        args = json.dumps(value, ensure_ascii=False)
        if not args.isascii():  # a lone surrogate cannot be stored as UTF-8: kept as a JSON \u escape instead
            args.encode("utf-8")
    except UnicodeEncodeError:
        args = json.dumps(value)
    except (json.JSONDecodeError, TypeError):
        args = redact(raw) if isinstance(raw, str) else raw
    return {**call, "function": {**fn, "arguments": args}}
