"""Shared pieces of the delegate tests: a parent on the script model that delegates once, and children whose
script functions are given per test."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grove.config import Settings
from grove.llm.script import ScriptModel, Step
from grove.llm.types import Message, ToolSchema
from grove.runtime import Profile, Session

ChildFn = Callable[[list[Message], list[ToolSchema]], Step]


def call(name: str, **args: object) -> dict:
    return {"tool_calls": [{"name": name, "arguments": args}]}


def task_of(messages: list[Message]) -> str:
    """The child's task, from its first user message ('Task: ...')."""
    first = next(m for m in messages if m["role"] == "user")
    return str(first["content"]).split("Task: ", 1)[1].split("\n", 1)[0]


def tool_names(tools: list[ToolSchema]) -> list[str]:
    return [t["function"]["name"] for t in tools]


def parent_model(delegate_args: dict[str, Any]) -> ScriptModel:
    """Delegates once, then answers with the reports it got back."""

    def step(messages: list[Message], tools: list[ToolSchema]) -> Step:
        if messages[-1]["role"] == "tool":
            return {"text": "parent done: " + str(messages[-1]["content"])}
        return call("delegate", **delegate_args)

    return ScriptModel(step, name="script-parent")


def open_parent(
    settings: Settings,
    workspace: Path,
    delegate_args: dict[str, Any],
    child: ChildFn,
    toolsets: list[str] | None = None,
    **profile: Any,
) -> Session:
    """A parent session whose every child gets its own script model running `child`."""
    return Session.open(
        settings,
        Profile(
            source="test",
            toolsets=toolsets or ["files", "todo", "memory", "delegate"],
            workspace=workspace,
            model=parent_model(delegate_args),
            child_model=lambda: ScriptModel(child, name="script-child"),
            **profile,
        ),
    )


def reports(session: Session) -> list[dict[str, Any]]:
    """The children's reports as the parent's delegate call returned them."""
    for message in reversed(session.store.messages(session.id)):
        if message["role"] == "tool" and message.get("name") == "delegate":
            content = str(message["content"])
            assert not content.startswith("Error"), content
            return json.loads(content)["children"]  # type: ignore[no-any-return]
    raise AssertionError("the parent never called delegate")


def children_of(session: Session) -> list[Any]:
    return [s for s in session.store.list_sessions(100) if s.parent_id == session.id]
