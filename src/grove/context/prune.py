"""Phase 1, no model call: older tool results longer than a threshold become a placeholder saying what was there."""

from __future__ import annotations

import json

from grove.llm.types import Message

PLACEHOLDER_PREFIX = "[grove: tool result pruned"


def tool_calls_by_id(messages: list[Message]) -> dict[str, tuple[str, str]]:
    """tool_call_id -> (tool name, raw JSON arguments), from every assistant message."""
    found: dict[str, tuple[str, str]] = {}
    for m in messages:
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            found[call.get("id", "")] = (fn.get("name", "?"), fn.get("arguments") or "")
    return found


def short_args(raw: str, limit: int = 120) -> str:
    try:
        parsed = json.loads(raw) if raw else {}
    except (json.JSONDecodeError, TypeError):
        parsed = None
    if isinstance(parsed, dict):
        text = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in parsed.items())
    else:
        text = raw or ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def placeholder(name: str, raw_args: str, content: str) -> str:
    first = content.strip().splitlines()[0][:80] if content.strip() else ""
    return (
        f"{PLACEHOLDER_PREFIX} to save context] {name}({short_args(raw_args)}) returned {len(content):,} chars"
        f" starting {first!r}; the full text stays in state.db (session search finds it)."
    )


def prune_tool_results(
    messages: list[Message], eligible: range, max_chars: int
) -> tuple[list[Message], list[int]]:
    """A copy of `messages` with long tool results at `eligible` indexes replaced; and the indexes replaced."""
    calls = tool_calls_by_id(messages)
    out = list(messages)
    changed: list[int] = []
    for i in eligible:
        m = messages[i]
        content = m.get("content")
        if m.get("role") != "tool" or not isinstance(content, str) or len(content) <= max_chars:
            continue
        if content.startswith(PLACEHOLDER_PREFIX):
            continue
        name, raw = calls.get(m.get("tool_call_id", ""), (m.get("name") or "tool", ""))
        out[i] = {**m, "content": placeholder(name, raw, content)}
        changed.append(i)
    return out, changed
