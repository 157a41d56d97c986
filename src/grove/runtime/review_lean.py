"""The skill review as a small local model gets it: one question (did the session do the task?) and one action
(save the steps that worked as a skill), with the tools for that only, and the model free to answer in text."""

from __future__ import annotations

import dataclasses

from grove.llm.types import Completion, Message, Model, ModelSettings, TextCallback, ToolSchema

LEAN_SKILL_REVIEW_PROMPT = """\
You are grove's reviewer. Below is a finished session in which grove worked on a user's task with tools.
First decide from the tool results whether grove did the task (the right file written or patched with the right \
content). If it did NOT, change nothing and answer "nothing to keep".
If it did, and no skill below already covers this kind of task, save the steps that worked so that the next task \
of the same kind takes fewer calls: call skill_manage with action "create", a name for the kind of task (2-3 \
words joined by hyphens, e.g. "json-key-edit"), and content in exactly this form:
---
name: <the name>
description: <one sentence: which tasks this is for>
---
1. <the first tool call that worked, e.g. read_file the .json file>
2. <the next one, e.g. patch the key's line with replace_all false>
Write one step per call that worked, in general words (no file names or values of this session), and leave out \
calls that failed. Then answer in one line.\
"""
LEAN_REVIEW_TOOLS = ("skill_view", "skill_manage")


class FreeChoice:
    """The reviewer's model: its reply may be text, even though the session it reads names files (a local model
    is otherwise made to open such a turn with a tool call)."""

    def __init__(self, model: Model) -> None:
        self.inner = model
        self.name = model.name
        self.context_window = getattr(model, "context_window", 128_000)

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        if settings.tool_choice is None:
            settings = dataclasses.replace(settings, tool_choice="auto")
        return self.inner.complete(messages, tools, settings, on_text)
