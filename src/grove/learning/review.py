"""Loop 3, self-review: what the reviewer is told and what it reports (the runtime opens and runs its agent:
grove.runtime.review). A separate agent reads a snapshot of a finished session and keeps what is worth keeping.

It works with the skills tools, `memory`, `read_file` and `session_search` only, at most 16 iterations, in a
session of source 'review' (never listed or searched as a user session), and it cannot start reviews itself.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from grove.llm.types import Completion, Message, Model, ModelSettings, TextCallback, ToolSchema
from grove.store.sessions import SessionStore

SKILL_REVIEW_PROMPT = """\
You are grove's reviewer. You read a finished session between a user and grove and decide whether its experience \
should improve grove's skill library: saved procedures that make the next task of the same kind faster and surer.

Order of preference — take the first that fits, and usually make ONE change:
1. Patch a skill that was used in this session (listed below) with what the session taught: a missing step, a \
pitfall, a better command.
2. Patch an existing class-level ("umbrella") skill that covers this kind of task.
3. Add a supporting file (skill_manage write_file, e.g. references/<topic>.md or scripts/<tool>.py) to such a skill.
4. Only when no existing skill covers this class of task: create ONE new class-level skill, named for the class \
of task (e.g. 'csv-reports', not 'sales-report-march'), general enough for the next instances.

Rules:
- Always skill_view a skill before patching it; patch with old_string copied exactly from what you read.
- Do NOT record: environment setup fixes, one-off tasks, transient failures (timeouts, flaky network) as permanent \
rules, or failures that were never resolved. Record what worked, not guesses.
- A skill is SKILL.md with frontmatter (name, description saying what it is for and when to use it) and a short \
markdown body of steps and pitfalls. Keep it focused; no session-specific names, paths or data.
- Facts about the user's preferences or the environment go to the `memory` tool, not into skills.
- When grove lists repeated code after the session (code it wrote and ran more than once), the procedure is \
worth a code skill: skill_code_create with a typed solve(...) for what changed between runs, and tests.
- If nothing is worth keeping, change nothing and say so. Finish with one line saying what you changed and why.\
"""

MEMORY_REVIEW_PROMPT = """\
You are grove's memory reviewer. You read recent turns between a user and grove and decide whether any durable fact \
should be kept with the `memory` tool: target 'user' for the user's preferences, habits and corrections; target \
'memory' for conventions and facts about the environment and projects. One fact per entry, a sentence or two.
Do not keep task progress, one-off results, secrets, or anything already in memory. When memory is nearly full, \
merge and shorten entries (replace) instead of adding. If nothing is worth keeping, change nothing and say so.\
"""

MAX_TRANSCRIPT_CHARS = 40_000
MAX_TOOL_CHARS = 500


@dataclass
class ReviewReport:
    session_id: str
    kind: str
    dry_run: bool
    changes: list[dict[str, Any]] = field(default_factory=list)
    reviewer_session_id: str | None = None
    answer: str = ""
    model_calls: int = 0
    error: str | None = None
    reasons: list[str] = field(default_factory=list)

    def render(self) -> str:
        head = f"{self.kind} review of {self.session_id}" + (
            " (dry run: nothing written)" if self.dry_run else ""
        )
        lines = [head]
        if self.reasons:
            lines.append("why: " + "; ".join(self.reasons))
        for c in self.changes:
            verb = "applied" if c["applied"] else "would apply"
            if c["kind"] == "skill":
                what = f"skill {c['action']} '{c['name']}'" + (f" — {c['reason']}" if c.get("reason") else "")
            else:
                what = "memory " + "; ".join(f"{o.get('action')} {o.get('target')}" for o in c["operations"])
            lines.append(f"  {verb}: {what}")
            args = c.get("arguments") or {}
            for key in ("content", "new_string", "file_content"):
                if args.get(key):
                    lines += ["    " + ln for ln in str(args[key]).splitlines()[:40]]
        if not self.changes:
            lines.append("  no changes")
        if self.error:
            lines.append(f"  error: {self.error}")
        if self.answer:
            lines.append(f"reviewer: {self.answer.strip()}")
        return "\n".join(lines)


class GatedModel:
    """A model that waits while the gate is closed: a user turn in progress has priority over the reviewer."""

    def __init__(self, model: Model, gate: threading.Event | None) -> None:
        self.inner = model
        self.gate = gate
        self.name = model.name
        self.context_window = getattr(model, "context_window", 128_000)

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSchema],
        settings: ModelSettings,
        on_text: TextCallback | None = None,
    ) -> Completion:
        if self.gate is not None:
            self.gate.wait()
        return self.inner.complete(messages, tools, settings, on_text)


def render_transcript(messages: list[Message], limit: int = MAX_TRANSCRIPT_CHARS) -> str:
    """The conversation as compact text; tool outputs cut; the oldest part dropped first when too long. Code the
    session wrote and ran more than once is listed after it (never cut), as a hint toward a code skill."""
    from grove.codeskills.repeats import find_repeats, render_repeats

    lines: list[str] = []
    for m in messages:
        role, text = m["role"], str(m.get("content") or "")
        if role == "system":
            continue
        if role == "tool":
            body = text if len(text) <= MAX_TOOL_CHARS else text[:MAX_TOOL_CHARS] + f" …[{len(text)} chars]"
            lines.append(f"[tool result {m.get('name', '')}] {body}")
            continue
        if text:
            lines.append(f"[{role}] {text}")
        for c in m.get("tool_calls") or []:
            lines.append(
                f"[{role} calls {c['function']['name']}] {c['function']['arguments'][:MAX_TOOL_CHARS]}"
            )
    out = "\n".join(lines)
    if len(out) > limit:
        out = "[… earlier part of the session left out …]\n" + out[-limit:]
    repeats = render_repeats(find_repeats(messages))
    return f"{out}\n\n{repeats}" if repeats else out


def used_skills(store: SessionStore, session_id: str) -> list[str]:
    with store.db.lock:
        rows = store.db.conn.execute(
            "SELECT DISTINCT name FROM skill_events WHERE session_id = ? AND kind = 'view' ORDER BY name",
            (session_id,),
        ).fetchall()
    return [r[0] for r in rows]


def review_task(kind: str, transcript: str, used: list[str], index: str, memory_block: str) -> str:
    parts = []
    if kind == "skill":
        parts.append("Skills used in this session (prefer patching these): " + (", ".join(used) or "none"))
        parts.append(index or "The skill library is empty.")
    if memory_block:
        parts.append(memory_block)
    parts.append("The session to review:\n" + transcript)
    return "\n\n".join(parts)
