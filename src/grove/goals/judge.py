"""The goal judge: a separate model that reads the goal, its criteria and the goal's whole history, may check the
work with read-only tools over the workspace (read_file, search_files, list_files), and answers one line of JSON:
{"verdict": "done" | "continue" | "blocked", "reason": "..."}."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grove.context.prune import short_args
from grove.goals.judge_tools import judge_context, judge_registry
from grove.goals.store import VERDICTS, Goal, Verdict
from grove.llm.errors import ModelError
from grove.llm.types import Completion, Message, Model, ModelSettings
from grove.security.secrets.boundary import redact_message

SYSTEM = """You judge whether an AI agent has reached a goal. You get the goal, its acceptance criteria and the \
history of the agent's work toward it (older turns may be folded to their facts).{tools}
Answer with ONE line of JSON and nothing else:
{{"verdict": "done" | "continue" | "blocked", "reason": "..."}}
done: the work shows every criterion holds. continue: more work can get there; the reason says what to do next. \
blocked: the agent cannot go on without the user (access, a decision, an impossible request); the reason says \
what is needed. Claims without evidence are not enough for done."""
TOOLS_NOTE = """
You can check the work yourself before answering: read_file, search_files and list_files read the workspace \
(read-only; nothing outside it). Check what the criteria name (files, contents, results) instead of trusting \
the agent's claims; a few calls are enough."""
NUDGE = 'That was not one line of JSON. Answer only: {"verdict": "done" | "continue" | "blocked", "reason": "..."}'
LAST_CALL = "No more tool calls. Give your verdict now as one line of JSON."
MAX_RESULT_CHARS = 6_000  # one tool result in the judge's context
_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)
_BARE = re.compile(r"\s*[`\"']*(done|continue|blocked)[`\"'.!]*\s*", re.IGNORECASE)


class JudgeError(Exception):
    """The judge gave no usable verdict after its retries (or its model failed): the goal pauses."""


def parse_verdict(text: str) -> Verdict | None:
    """The first JSON object in `text` with a known verdict; tolerant of code fences and chatter around it. A
    reply that is nothing but one verdict word (small local judges answer so) is that verdict, without a reason;
    a sentence that starts with one ("done reading the file") is not."""
    bare = _BARE.fullmatch(text or "")
    if bare:
        return Verdict(bare.group(1).lower(), "", raw=text)
    for candidate in _OBJECT.findall(text or ""):
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and str(data.get("verdict", "")).strip().lower() in VERDICTS:
            return Verdict(
                str(data["verdict"]).strip().lower(), str(data.get("reason") or "").strip(), raw=text
            )
    return None


def judge_prompt(goal: Goal, work: str, note: str = "") -> str:
    criteria = (
        "\n".join(f"- {c}" for c in goal.criteria) or "- (none given: the goal as stated must be achieved)"
    )
    extra = f"<note>{note}</note>\n\n" if note else ""
    return (
        f"<goal>\n{goal.text}\n</goal>\n\n<acceptance-criteria>\n{criteria}\n</acceptance-criteria>\n\n"
        f"<turns-used>{goal.turns_used} of {goal.max_turns}</turns-used>\n\n{extra}"
        f"<work-history>\n{work}\n</work-history>"
    )


class Judge:
    """`workspace` None = no tools (the judge reads the history only); the goal runner sets it to the agent's."""

    def __init__(
        self,
        model: Model,
        attempts: int = 2,
        settings: ModelSettings | None = None,
        *,
        workspace: Path | None = None,
        tool_settings: Any = None,
        max_steps: int = 8,
    ) -> None:
        self.model = model
        self.attempts = attempts
        self.settings = settings or ModelSettings(max_tokens=400, temperature=0)
        self.workspace = workspace
        self.tool_settings = tool_settings  # grove Settings, for grove's home the file tools never read
        self.max_steps = max_steps
        self.tools = judge_registry()
        self.on_check: Callable[[str], None] = lambda _text: None  # each check shown, e.g. in `grove goal`
        self.on_usage: Callable[[Completion], None] = lambda _c: (
            None
        )  # each call counted, e.g. in the session

    def history_budget(self) -> int:
        """Characters of history the judge reads: about half its window (~3 chars a token), within bounds."""
        window = int(getattr(self.model, "context_window", 0) or 32_000)
        return max(6_000, min(48_000, window * 3 // 2))

    def judge(self, goal: Goal, work: str, note: str = "") -> Verdict:
        with_tools = self.workspace is not None and self.max_steps > 0
        messages: list[Message] = [
            {"role": "system", "content": SYSTEM.format(tools=TOOLS_NOTE if with_tools else "")},
            {"role": "user", "content": judge_prompt(goal, work, note)},
        ]
        schemas = self.tools.schemas() if with_tools else []
        ctx = (
            judge_context(self.workspace, self.tool_settings)
            if with_tools and self.workspace is not None
            else None
        )
        steps, misses, reply = 0, 0, ""
        while True:
            offered = schemas if steps < self.max_steps else []
            try:
                completion = self.model.complete(messages, offered, self.settings)
            except ModelError as e:
                raise JudgeError(f"the judge model failed: {e}") from e
            self.on_usage(completion)
            if completion.tool_calls and offered and ctx is not None:
                steps += 1
                messages.append(completion.to_message())
                for call in completion.tool_calls:
                    self.on_check(f"judge checks: {call.name}({short_args(call.arguments)})")
                    out = self.tools.call(ctx, call.name, call.arguments).content
                    if len(out) > MAX_RESULT_CHARS:
                        out = out[:MAX_RESULT_CHARS] + f"\n[… cut at {MAX_RESULT_CHARS} characters]"
                    tool_msg: Message = {
                        "role": "tool",
                        "tool_call_id": call.id,
                        "name": call.name,
                        "content": out,
                    }
                    messages.append(redact_message(tool_msg))
                if steps >= self.max_steps:
                    messages.append({"role": "user", "content": LAST_CALL})
                continue
            reply = completion.text or ""
            verdict = parse_verdict(reply)
            if verdict is not None:
                return verdict
            misses += 1
            if misses >= self.attempts:
                raise JudgeError(
                    f"no verdict in the judge's reply after {self.attempts} tries: {reply[:200]!r}"
                )
            messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": NUDGE}]
