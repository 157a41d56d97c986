"""OpenAI-format messages and tool schemas -> Anthropic's Messages API format (system blocks, merged turns, tool_use
and tool_result blocks, two prompt-cache breakpoints)."""

from __future__ import annotations

import json
from typing import Any

from grove.llm.types import Message, ToolSchema

CACHE = {"type": "ephemeral"}


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "" if content is None else str(content)


def _image_block(url: str) -> dict[str, Any]:
    if url.startswith("data:") and ";base64," in url:
        media_type, data = url[5:].split(";base64,", 1)
        return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _user_blocks(content: Any) -> list[dict[str, Any]]:
    if not isinstance(content, list):
        text = _text_of(content)
        return [{"type": "text", "text": text}] if text else []
    blocks = []
    for part in content:
        if part.get("type") == "text" and part.get("text"):
            blocks.append({"type": "text", "text": part["text"]})
        elif part.get("type") == "image_url":
            image = part["image_url"]
            blocks.append(_image_block(image["url"] if isinstance(image, dict) else image))
    return blocks


def _tool_input(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        # Keep what the model wrote: the tool result already told it the JSON was bad.
        return {"raw_arguments": arguments}
    return value if isinstance(value, dict) else {"value": value}


def convert_messages(messages: list[Message]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """OpenAI-format messages → (Anthropic system blocks, Anthropic messages), same-role turns merged."""
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for msg in messages:
        role = msg.get("role")
        if role == "system":
            text = _text_of(msg.get("content"))
            if text:
                system.append({"type": "text", "text": text})
            continue
        if role == "assistant":
            blocks: list[dict[str, Any]] = [
                {"type": "text", "text": t} for t in [_text_of(msg.get("content"))] if t
            ]
            for call in msg.get("tool_calls") or []:
                fn = call["function"]
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call["id"],
                        "name": fn["name"],
                        "input": _tool_input(fn["arguments"]),
                    }
                )
            out_role = "assistant"
        elif role == "tool":
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": msg["tool_call_id"]}
            text = _text_of(msg.get("content"))
            if text:
                result["content"] = text
            blocks, out_role = [result], "user"
        elif role == "user":
            blocks, out_role = _user_blocks(msg.get("content")), "user"
        else:
            raise ValueError(f"message with unknown role {role!r}: use system, user, assistant or tool")
        if not blocks:
            continue  # Anthropic refuses empty turns
        if out and out[-1]["role"] == out_role:
            out[-1]["content"].extend(
                blocks
            )  # consecutive tool results (and any same-role turns) share a turn
        else:
            out.append({"role": out_role, "content": blocks})
    if system:
        system[0]["cache_control"] = CACHE
    if out:
        out[-1]["content"][-1]["cache_control"] = CACHE
    return system, out


def convert_tools(tools: list[ToolSchema]) -> list[dict[str, Any]]:
    converted = []
    for tool in tools:
        fn = tool.get("function", tool)
        converted.append(
            {
                "name": fn["name"],
                "description": fn.get("description", ""),
                "input_schema": fn.get("parameters") or {"type": "object", "properties": {}},
            }
        )
    return converted
