"""A script model that drives the browser like a model would: each step reads the latest tool output (the
snapshot) and picks its next call by the role and name of an element, taking the ref from there."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grove.llm.script import ScriptModel

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
Step = Callable[[str], dict[str, Any] | str]


def ref(snapshot: str, element: str) -> str:
    """The ref of `element` (e.g. 'textbox "Username"') in a snapshot; an AssertionError naming it if absent."""
    m = re.search(re.escape(element) + r" \[ref=((?:f\d+)?e\d+)\]", snapshot)
    assert m, f"no {element} in the snapshot:\n{snapshot}"
    return m.group(1)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def driver(steps: list[Step]) -> ScriptModel:
    """One model call per step; a step gets the text of the last tool result."""

    def next_step(messages: list[Any], _schemas: Any) -> Any:
        done = sum(1 for m in messages if m["role"] == "assistant")
        last = next((m["content"] for m in reversed(messages) if m["role"] == "tool"), "")
        return steps[done](last) if done < len(steps) else "done"

    return ScriptModel(next_step)
