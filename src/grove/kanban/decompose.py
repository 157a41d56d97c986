"""Decomposing a `triage` task with the model: one request for a JSON list of subtasks; the children become the
task's parents (it waits for them). A reply that is not such a list leaves the task whole (todo, no children)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from grove.kanban.model import Task

if TYPE_CHECKING:
    from grove.llm.types import Model

MAX_CHILDREN = 8

PROMPT = """Split this task into the smallest set of independent subtasks a worker can each finish alone.
Reply with only a JSON list: [{{"title": "...", "body": "..."}}, ...]. Reply [] if it is one piece of work.

Task #{id}: {title}
{body}"""


def parse_subtasks(text: str) -> list[tuple[str, str]]:
    """The JSON list in a reply (fenced or bare); [] when there is none."""
    start, end = text.find("["), text.rfind("]")
    if start < 0 or end <= start:
        return []
    try:
        items = json.loads(text[start : end + 1])
    except json.JSONDecodeError:
        return []
    out: list[tuple[str, str]] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and str(item.get("title") or "").strip():
            out.append((str(item["title"]).strip()[:200], str(item.get("body") or "")))
        elif isinstance(item, str) and item.strip():
            out.append((item.strip()[:200], ""))
    return out[:MAX_CHILDREN]


def propose_subtasks(model: Model, task: Task) -> list[tuple[str, str]]:
    from grove.llm.types import ModelSettings

    reply = model.complete(
        [{"role": "user", "content": PROMPT.format(id=task.id, title=task.title, body=task.body)}],
        [],
        ModelSettings(max_tokens=1500),
    )
    return parse_subtasks(reply.text)
