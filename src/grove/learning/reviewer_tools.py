"""The reviewer's tools: the skills tools, `memory`, `read_file`, `session_search` and `skill_code_create` (repeated
code made a tested code skill), with its rules enforced in code.

Enforced here (not only asked in the prompt): a skill is read with skill_view before it is patched or edited; a
`create` that overlaps an existing skill is refused with the name to patch instead; the reviewer never archives;
skill writes carry the reviewed session as their source; in a dry run nothing is written, every change is listed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, ToolRegistry

VIEWED_KEY = "reviewer_viewed"


@dataclass
class ChangeLog:
    """Every change the reviewer made (or, in a dry run, would have made)."""

    changes: list[dict[str, Any]] = field(default_factory=list)

    def add(self, kind: str, applied: bool, result: str, **detail: Any) -> None:
        self.changes.append({"kind": kind, "applied": applied, "result": result, **detail})


def _wrap(tool: Tool, handler: Callable[..., Any]) -> Tool:
    return dataclasses.replace(tool, handler=handler)


def _viewed(ctx: ToolContext) -> set[str]:
    return ctx.state.setdefault(VIEWED_KEY, set())


def _similar(ctx: ToolContext, content: str, name: str, exclude: str) -> list[Any]:
    from grove.learning.overlap import most_similar, skill_md_vector
    from grove.skills.discover import discover

    lib = discover(ctx.settings, ctx.workspace)
    others = [s for s in lib.skills.values() if s.name != exclude]
    return most_similar(skill_md_vector(content, name), others)


def reviewer_registry(
    kind: str,
    log: ChangeLog,
    source_session_id: str,
    *,
    dry_run: bool = False,
    overlap_threshold: float = 0.45,
) -> ToolRegistry:
    """Tools for a reviewer of `kind` 'skill' (skills, memory, read_file, session_search, skill_code_create) or
    'memory'."""
    from grove.tools import code_skills, files, memory, sessions, skills

    found = [*skills.tools(), *memory.tools(), *files.tools(), *sessions.tools(), *code_skills.tools()]
    by_name = {t.name: t for t in found}
    view, manage, mem = by_name["skill_view"], by_name["skill_manage"], by_name["memory"]
    code_create = by_name["skill_code_create"]

    def skill_view(ctx: ToolContext, **kw: Any) -> Any:
        out = view.handler(ctx, **kw)
        _viewed(ctx).add(kw["name"])
        return out

    def skill_manage(ctx: ToolContext, **kw: Any) -> Any:
        action, name = kw["action"], kw["name"]
        if action == "delete":
            raise ToolError("the reviewer does not archive skills (the curator does); patch or leave it")
        if action != "create" and name not in _viewed(ctx):
            raise ToolError(f"read the skill first: call skill_view(name='{name}') before changing it")
        if action == "create":
            content = kw.get("content") or ""
            close = [s for s in _similar(ctx, content, name, name) if s.score >= overlap_threshold]
            if close:
                best = close[0]
                raise ToolError(
                    f"'{best.name}' already covers this kind of task (similarity {best.score:.2f}). Prefer "
                    f"improving it: skill_view(name='{best.name}'), then patch it or add a supporting file "
                    "(write_file) instead of creating a near-duplicate."
                )
        detail = {"action": action, "name": name, "reason": kw.get("reason") or ""}
        if dry_run:
            result = f"[dry run] not written: would {action} skill '{name}'"
            log.add(
                "skill", False, result, arguments={k: v for k, v in kw.items() if v is not None}, **detail
            )
            return result
        # provenance: the change belongs to the reviewed session, not to the reviewer's own
        out = manage.handler(dataclasses.replace(ctx, session_id=source_session_id), **kw)
        log.add("skill", True, str(out), **detail)
        return out

    def memory_tool(ctx: ToolContext, **kw: Any) -> Any:
        ops = kw.get("operations")
        keys = ("action", "target", "content", "old_text")
        detail = [asdict(o) for o in ops] if ops else [{k: kw.get(k) for k in keys}]
        if dry_run:
            result = "[dry run] not written: memory change recorded for review"
            log.add("memory", False, result, operations=detail)
            return result
        out = mem.handler(ctx, **kw)
        log.add("memory", True, str(out), operations=detail)
        return out

    def skill_code_create(ctx: ToolContext, **kw: Any) -> Any:
        """Repeated code turned into a code skill: stored only when its tests pass in the sandbox."""
        name = kw["name"]
        close = [
            s for s in _similar(ctx, kw.get("description") or "", name, name) if s.score >= overlap_threshold
        ]
        if close:
            raise ToolError(
                f"'{close[0].name}' already covers this kind of task (similarity {close[0].score:.2f}); "
                "prefer improving it over a near-duplicate"
            )
        detail = {"action": "code_create", "name": name, "reason": kw.get("description") or ""}
        if dry_run:
            result = f"[dry run] not written: would create code skill '{name}'"
            log.add("skill", False, result, arguments=dict(kw), **detail)
            return result
        out = code_create.handler(dataclasses.replace(ctx, session_id=source_session_id), **kw)
        log.add("skill", True, str(out), **detail)
        return out

    chosen = ["skill_view", "skills_search", "skill_manage", "memory", "read_file", "session_search"]
    chosen.append("skill_code_create")  # repeated code in the session becomes a tested tool
    if kind == "memory":
        chosen = ["memory", "read_file", "session_search"]
    wrapped = {
        "skill_view": skill_view,
        "skill_manage": skill_manage,
        "memory": memory_tool,
        "skill_code_create": skill_code_create,
    }
    return ToolRegistry(_wrap(by_name[n], wrapped[n]) if n in wrapped else by_name[n] for n in chosen)
