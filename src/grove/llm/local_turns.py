"""When a local model's reply must be a tool call (a user message that names a file or folder: a 1.5B model answers
it from imagination) and when it must be text (a learned tool just saved the task's file: it writes it again)."""

from __future__ import annotations

import re

from grove.llm.types import Message

# a file name with an extension (data.csv, src/m0.py, CHANGELOG.md) or a folder written with a slash (src/);
# two characters before the dot at least, and a letter after it, so "e.g." and "3.5" name nothing
PATH_RE = re.compile(
    r"(?<![\w/.])(?:[\w.-]+/)*[\w-]{2,}\.[A-Za-z]\w{0,7}\b|(?<![\w/.])[\w.-]+/(?=[\s,.;:)'\"]|$)"
)
SYSTEM_NOTE = (
    "[grove]"  # grove's own notes to the model (e.g. "the tool-call budget is used up") are not asks
)


def names_a_path(text: str) -> bool:
    return PATH_RE.search(text) is not None


def must_call(messages: list[Message]) -> bool:
    """Whether the reply to `messages` opens a turn whose user message names a path (so it must be a call)."""
    if not messages or messages[-1].get("role") != "user":
        return False
    text = messages[-1].get("content")
    if not isinstance(text, str) or text.startswith(SYSTEM_NOTE):
        return False
    return names_a_path(text)


# how a learned tool (grove.tools.learned) ends a result that saved the task's file
SAVED_NOTE = "The file is saved: no write_file or patch needed."


def must_answer(messages: list[Message]) -> bool:
    """Whether the reply to `messages` must be the answer: the last tool result says its file is saved. Told so in
    words, Qwen still wrote the file again by hand (pasting the tool's result into it)."""
    return (
        bool(messages)
        and messages[-1].get("role") == "tool"
        and SAVED_NOTE in str(messages[-1].get("content"))
    )
