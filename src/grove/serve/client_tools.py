"""Tools a client declares (OpenAI function tools, in the Chat and Responses shapes): offered to the model beside
grove's own, run by the client. A call of one ends the turn; the client sends its output back and the turn goes on.
"""

from __future__ import annotations

import re
from typing import Any

from grove.llm.types import ToolSchema
from grove.serve.errors import refuse

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def chat_tools(value: Any) -> list[ToolSchema]:
    """`tools` of a chat request: [{"type": "function", "function": {name, description?, parameters?}}]."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise refuse("tools must be a list of function tools", "tools", "invalid_value")
    out = []
    for i, tool in enumerate(value):
        if (
            not isinstance(tool, dict)
            or tool.get("type") != "function"
            or not isinstance(tool.get("function"), dict)
        ):
            raise refuse(
                f'tools[{i}]: grove takes function tools only ({{"type": "function", "function": {{...}}}})',
                "tools",
                "invalid_value",
            )
        out.append(_schema(tool["function"], f"tools[{i}].function"))
    return _unique(out)


def responses_tools(value: Any) -> list[ToolSchema]:
    """`tools` of a Responses request: [{"type": "function", name, description?, parameters?}]; the hosted
    tools (web search, file search, computer use...) are refused by name."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise refuse("tools must be a list of function tools", "tools", "invalid_value")
    out = []
    for i, tool in enumerate(value):
        kind = tool.get("type") if isinstance(tool, dict) else None
        if kind != "function":
            raise refuse(
                f"tools[{i}]: grove takes function tools only (type {kind!r} is a hosted tool grove does not offer; "
                "grove's own tools run inside it)",
                "tools",
                "unsupported_tool",
            )
        out.append(_schema(tool, f"tools[{i}]"))
    return _unique(out)


def take_tools(extras: dict[str, Any], shape: str) -> tuple[list[ToolSchema], str | None]:
    """The client's tools and the model's tool_choice, taken out of a request's extra fields when it declares any
    (`shape`: "chat" or "responses"); without tools both stay for grove.serve.fields to honour or refuse."""
    if not extras.get("tools"):
        return [], None
    tools = (chat_tools if shape == "chat" else responses_tools)(extras.pop("tools"))
    return tools, tool_choice(extras.pop("tool_choice", None), tools, shape)


def tool_choice(value: Any, tools: list[ToolSchema], shape: str) -> str | None:
    """The model setting for `tool_choice`: None/"auto", "none", "required", or a declared tool's name."""
    if value in (None, "auto"):
        return None
    if value in ("none", "required"):
        return str(value)
    named = value.get("function", {}).get("name") if isinstance(value, dict) and shape == "chat" else None
    if isinstance(value, dict) and shape == "responses":
        named = value.get("name")
    if isinstance(value, dict) and value.get("type") == "function" and named in _names(tools):
        return str(named)
    raise refuse(
        "tool_choice must be 'auto', 'none', 'required' or one of the declared function tools by name",
        "tool_choice",
        "invalid_value",
    )


def check_collisions(tools: list[ToolSchema], grove_tools: list[str]) -> None:
    """A client tool may not take the name of one of grove's own (which would run: grove's or the client's?)."""
    clash = sorted(_names(tools) & set(grove_tools))
    if clash:
        raise refuse(
            f"client tool {clash[0]!r} has the name of one of grove's own tools; rename it",
            "tools",
            "invalid_value",
        )


def _schema(spec: dict[str, Any], where: str) -> ToolSchema:
    name = spec.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise refuse(f"{where}.name must be 1-64 letters, digits, _ or -", "tools", "invalid_value")
    parameters = spec.get("parameters") or {"type": "object", "properties": {}}
    if not isinstance(parameters, dict):
        raise refuse(f"{where}.parameters must be a JSON schema object", "tools", "invalid_value")
    description = spec.get("description") or ""
    if not isinstance(description, str):
        raise refuse(f"{where}.description must be text", "tools", "invalid_value")
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def _names(tools: list[ToolSchema]) -> set[str]:
    return {t["function"]["name"] for t in tools}


def _unique(tools: list[ToolSchema]) -> list[ToolSchema]:
    if len(_names(tools)) < len(tools):
        raise refuse("tools: two tools have the same name", "tools", "invalid_value")
    return tools
