"""Trajectories in the two formats trainers read. ShareGPT-style (as agent-trajectory datasets use it): turns of
`from` system/human/gpt/tool, tool calls as <tool_call> JSON blocks in the gpt turn, results as <tool_response>.
OpenAI fine-tuning chat JSONL: `messages` (system/user/assistant/tool, tool_calls as the API has them) and
`tools` — nothing else, since the fine-tuning upload refuses unknown keys."""

from __future__ import annotations

import json
from typing import Any

from grove.llm.types import Message, ToolSchema
from grove.security.secrets.redact import redact


def _text(content: Any) -> str:
    """Message content as text: a list of parts keeps its text parts (an image becomes a marker)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return redact(content)
    parts = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "text":
            parts.append(str(part.get("text", "")))
        else:
            parts.append("[image]")
    return redact("\n".join(parts))


def _arguments(raw: str) -> Any:
    try:
        return json.loads(redact(raw))
    except json.JSONDecodeError:
        return redact(raw)  # the model's own broken JSON, kept as it wrote it


def _calls(msg: Message) -> list[dict[str, Any]]:
    return [c for c in msg.get("tool_calls") or [] if isinstance(c, dict) and c.get("function")]


def used_tools(messages: list[Message], schemas: dict[str, ToolSchema]) -> list[ToolSchema]:
    names = dict.fromkeys(c["function"]["name"] for m in messages for c in _calls(m))
    return [schemas[n] for n in names if n in schemas]


def sharegpt(messages: list[Message], tools: list[ToolSchema], extra: dict[str, Any]) -> dict[str, Any]:
    roles = {"system": "system", "user": "human", "assistant": "gpt", "tool": "tool"}
    turns: list[dict[str, str]] = []
    for msg in messages:
        role = roles.get(str(msg.get("role")))
        if role is None:
            continue
        value = _text(msg.get("content"))
        if role == "gpt":
            blocks = [
                "<tool_call>\n"
                + json.dumps(
                    {
                        "name": c["function"]["name"],
                        "arguments": _arguments(c["function"].get("arguments") or "{}"),
                    },
                    ensure_ascii=False,
                )
                + "\n</tool_call>"
                for c in _calls(msg)
            ]
            value = "\n".join([value, *blocks] if value else blocks)
        elif role == "tool":
            value = f"<tool_response>\n{value}\n</tool_response>"
        if role == "tool" and turns and turns[-1]["from"] == "tool":
            turns[-1]["value"] += "\n" + value  # parallel calls' results: one tool turn, in call order
        else:
            turns.append({"from": role, "value": value})
    return {"conversations": turns, "tools": json.dumps(tools, ensure_ascii=False), **extra}


def openai_chat(messages: list[Message], tools: list[ToolSchema]) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for msg in messages:
        role = msg.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            continue
        item: dict[str, Any] = {"role": role}
        text = _text(msg.get("content"))
        calls = _calls(msg) if role == "assistant" else []
        if text or not calls:
            item["content"] = text
        if calls:
            item["tool_calls"] = [
                {
                    "id": str(c.get("id") or f"call_{i}"),
                    "type": "function",
                    "function": {
                        "name": c["function"]["name"],
                        "arguments": redact(c["function"].get("arguments") or "{}"),
                    },
                }
                for i, c in enumerate(calls)
            ]
        if role == "tool":
            item["tool_call_id"] = str(msg.get("tool_call_id") or "")
        out.append(item)
    record: dict[str, Any] = {"messages": out}
    if tools:
        record["tools"] = tools
    return record
