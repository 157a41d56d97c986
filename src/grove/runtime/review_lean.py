"""The skill review as a small local model gets it: one question (did the session do the task?) and one action
(save the steps that worked as a skill), with the tools for that only, and the model free to answer in text."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from grove.llm.types import Completion, Message, Model, ModelSettings, TextCallback, ToolSchema
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry

LEAN_SKILL_REVIEW_PROMPT = """\
You are grove's reviewer. You read a finished session in which grove worked on a user's task with tools, and you \
save the steps that worked as a skill, so that the next task of the same kind takes fewer calls. You save with \
skill_manage: action "create", name = the kind of task (2-3 words joined by hyphens, e.g. "json-key-edit"), and \
content in exactly this form:
---
name: <the name>
description: <one sentence: which tasks this is for>
---
1. <the first call that worked, e.g. read_file the .json file>
2. <the next one, e.g. patch the key's line>
One step per call that worked, in general words (no file names or values of this session); leave out calls that \
failed, and add a last line "Pitfall: ..." when a call failed first.\
"""
# A small model asked to judge and act in one reply judges "nothing to keep" every time; asked only to judge, it
# can tell a done task from a failed one. So: one yes/no call, then (on yes) a call that must be skill_manage.
JUDGE_PROMPT = (
    "You check whether an assistant did a user's task, from the tool results. Answer only yes or no."
)
JUDGE_ASK = (
    "Did grove do the user's task: does a tool result show the right file written or patched with the right "
    "content? Answer yes or no."
)
LEAN_REVIEW_ASK = "Grove did this task. Call skill_manage now to create the skill with the steps that worked."
LEAN_REVIEW_TOOLS = ("skill_view", "skill_manage")


def judged_done(model: Model, transcript: str) -> tuple[bool, str]:
    """The reviewer model's yes/no on whether the session did its task, and its words."""
    messages: list[Message] = [
        {"role": "system", "content": JUDGE_PROMPT},
        {"role": "user", "content": f"The session:\n{transcript}\n\n{JUDGE_ASK}"},
    ]
    reply = model.complete(messages, [], ModelSettings(max_tokens=8, temperature=0.0)).text.strip()
    return reply.lower().lstrip("*\"' ").startswith("yes"), reply


class FirstCall:
    """The reviewer's model as a local model drives it: its replies may be text, even though the session it reads
    names files (a local model is otherwise made to open such a turn with a tool call); with `tool`, its first reply
    is a call to that tool (a small model otherwise describes the skill instead of saving it)."""

    def __init__(self, model: Model, tool: str | None = None) -> None:
        self.inner = model
        self.tool = tool
        self.name = model.name
        self.context_window = getattr(model, "context_window", 128_000)
        self.calls = 0

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        if settings.tool_choice is None:
            offered = self.tool is not None and any(t["function"]["name"] == self.tool for t in tools)
            choice = self.tool if self.calls == 0 and offered else "auto"
            settings = dataclasses.replace(settings, tool_choice=choice)
        self.calls += 1
        return self.inner.complete(messages, tools, settings, on_text)


def with_frontmatter(tools: ToolRegistry) -> ToolRegistry:
    """The reviewer's tools with a skill_manage `create` that adds the SKILL.md frontmatter a small model leaves out
    (it writes the steps, then gives up on "must start with a '---' line"); everything else unchanged."""
    manage = tools.get("skill_manage")
    if manage is None:
        return tools

    def handler(ctx: ToolContext, **kw: Any) -> Any:
        content = str(kw.get("content") or "")
        if kw.get("action") == "create" and content and not content.lstrip().startswith("---"):
            name = str(kw.get("name") or "")
            what = re.sub(r"[-_]+", " ", name).strip() or "these"
            head = f"---\nname: {name}\ndescription: Steps that worked for {what} tasks.\n---\n"
            kw["content"] = head + content.strip() + "\n"
        return manage.handler(ctx, **kw)

    wrapped = dataclasses.replace(manage, handler=handler)
    return ToolRegistry(
        wrapped if n == "skill_manage" else t for n in tools.names() if (t := tools.get(n)) is not None
    )
