"""The `todo` toolset: the model's own task list for the session (kept in session state, shown back whole)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from grove.tools.context import ToolContext
from grove.tools.registry import Tool, make_tool


@dataclass
class TodoItem:  # a dataclass, not a pydantic model: pydantic loads only when a tool is called
    content: str
    status: Literal["pending", "in_progress", "done"] = "pending"


MARK = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}


def todo(ctx: ToolContext, items: list[TodoItem] | None = None) -> str:
    """Replace the session's task list with `items` (omit to read it back). Track multi-step work with it.

    Args:
        items: the whole list, each {content, status: pending|in_progress|done}
    """
    if items is not None:
        ctx.state["todo"] = [asdict(i) for i in items]
    current = ctx.state.get("todo", [])
    if not current:
        return "todo list is empty"
    return "\n".join(f"{MARK[i['status']]} {i['content']}" for i in current)


def tools() -> list[Tool]:
    return [make_tool(todo, toolset="todo")]
