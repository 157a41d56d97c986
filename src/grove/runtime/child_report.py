"""What a child is told and what comes back from it: the task as its first message, and its answer split into the
result and its open questions, with the files it touched."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from grove.tools.delegate import DelegateTask

OPEN_QUESTIONS = "Open questions:"
_HEADING = re.compile(r"^\s*(?:#+\s*)?\**\s*open questions\s*\**\s*:?\s*\**\s*(.*)$", re.IGNORECASE)
_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.*\S)\s*$")
_NONE = {"none", "none.", "-", "n/a", "no", "nothing"}
MAX_FILES = 200


def child_prompt(task: DelegateTask, workspace: Path) -> str:
    where = (
        f"Your workspace is {workspace}, an empty folder of your own; what you write there is reported back."
        if task.workspace == "own"
        else f"Your workspace is {workspace}, the parent's project: you may read and search it, not change it."
    )
    parts = [  # the task first: it also becomes the child session's title
        f"Task: {task.goal}",
        "You are a sub-agent doing this one task for another agent, which sees only your final answer.",
    ]
    if task.context:
        parts.append(f"Context from the parent:\n{task.context}")
    parts += [
        where,
        "Answer with the result itself: the facts, values, paths and decisions the parent needs. If something "
        f"stays unresolved, end with a line '{OPEN_QUESTIONS}' and one '- question' per line.",
    ]
    return "\n\n".join(parts)


def split_open_questions(answer: str) -> tuple[str, list[str]]:
    """(result, open questions): the last 'Open questions:' section of the answer, one per listed line."""
    lines = answer.splitlines()
    for start in range(len(lines) - 1, -1, -1):
        heading = _HEADING.match(lines[start])
        if heading is None:
            continue
        questions = []
        inline = heading.group(1).strip()
        if inline and inline.lower() not in _NONE:
            questions.append(inline)
        for line in lines[start + 1 :]:
            item = _ITEM.match(line)
            if item is not None:
                if item.group(1).strip().lower() not in _NONE:
                    questions.append(item.group(1).strip())
            elif line.strip():
                break  # the section ended
        return "\n".join(lines[:start]).rstrip(), questions
    return answer.strip(), []


def files_touched(calls: Iterable[Any], mutating: set[str], own: Path | None) -> list[str]:
    """Paths given to the child's successful mutating tool calls, and every file now in its own workspace."""
    found: set[str] = set()
    for call in calls:
        args = call.arguments if isinstance(call.arguments, dict) else {}
        if call.ok and call.name in mutating and isinstance(args.get("path"), str):
            path = Path(args["path"])
            if own is not None and path.is_absolute() and path.is_relative_to(own):
                path = path.relative_to(own)  # the same file as the workspace listing names it
            found.add(str(path))
    if own is not None and own.is_dir():
        for path in own.rglob("*"):
            if len(found) >= MAX_FILES:
                break
            if path.is_file():
                found.add(str(path.relative_to(own)))
    return sorted(found)[:MAX_FILES]


def last_answer(store: Any, session_id: str) -> str:
    """The child's last words (a stopped child has no final answer; what it said last is the partial result)."""
    for message in reversed(store.messages(session_id)):
        if message["role"] == "assistant" and message.get("content"):
            return str(message["content"])
    return ""
