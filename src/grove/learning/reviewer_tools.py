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
from pathlib import Path
from typing import Any

from grove.learning.skill_probes import ProbeRunner
from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, ToolRegistry, make_tool

VIEWED_KEY = "reviewer_viewed"
PROBES_KEY = "reviewer_probes"  # skill name -> probes the reviewer wrote in this review
BUDGET_KEY = "reviewer_probe_budget"


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
    probe_runner: ProbeRunner | None = None,
    probe_budget: int = 4,
) -> ToolRegistry:
    """Tools for a reviewer of `kind` 'skill' (skills, memory, read_file, session_search, skill_code_create) or
    'memory'. With a `probe_runner`, prose skills are held to probes: `skill_probe` is added, and a create, edit
    or patch of a SKILL.md is written only when its probes pass with it (at most `probe_budget` replays)."""
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
            _named_for_the_kind(ctx, name, source_session_id)
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
        held = probe_runner is not None and _changes_skill_md(action, kw.get("file_path"))
        verdict = _probed(ctx, name, action, kw, probe_runner, probe_budget) if held else None
        if verdict is not None and not verdict.keep:
            result = f"change refused, nothing written: {verdict.text()}"
            log.add("skill", False, result, probes=verdict.lines, **detail)
            raise ToolError(result)
        # provenance: the change belongs to the reviewed session, not to the reviewer's own
        out = manage.handler(dataclasses.replace(ctx, session_id=source_session_id), **kw)
        if verdict is not None:
            _keep_probes(ctx, name)
            out = f"{out} (probes: {verdict.text()})"
        log.add("skill", True, str(out), **detail, **({"probes": verdict.lines} if verdict else {}))
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
        """Repeated code turned into a code skill: stored only when its tests pass in the sandbox, and only from a
        session that did its task, under a name for the kind of task."""
        from grove.learning.session_outcome import task_done

        messages = _reviewed(ctx, source_session_id)
        done, why = task_done(_home(ctx), source_session_id, messages)
        if not done:
            # a tool written from a failed session keeps its mistake for every later task of the kind
            raise ToolError(f"not kept: the reviewed session did not do its task ({why})")
        name = _named_for_the_kind(ctx, kw["name"], source_session_id, derive=True)
        kw = {**kw, "name": name}
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
    if probe_runner is not None:
        by_name["skill_probe"] = make_tool(skill_probe, toolset="skills", subagent_ok=False)
        chosen.append("skill_probe")
    if kind == "memory":
        chosen = ["memory", "read_file", "session_search"]
    wrapped = {
        "skill_view": skill_view,
        "skill_manage": skill_manage,
        "memory": memory_tool,
        "skill_code_create": skill_code_create,
    }
    return ToolRegistry(_wrap(by_name[n], wrapped[n]) if n in wrapped else by_name[n] for n in chosen)


def _reviewed(ctx: ToolContext, session_id: str) -> list[Any]:
    """The reviewed session's messages (the reviewer's own store, else grove's database)."""
    if ctx.store is not None:
        return ctx.store.messages(session_id)
    from grove.store.sessions import SessionStore

    if ctx.settings is None:
        return []  # no session to read: task_done then finds no answer, and nothing is kept
    store = SessionStore.open(ctx.settings.db_path)
    try:
        return store.messages(session_id)
    finally:
        store.db.close()


def _named_for_the_kind(ctx: ToolContext, name: str, session_id: str, derive: bool = False) -> str:
    """`name`, or with `derive` the name without the reviewed task's own values; refused when it carries them
    (a tool named for one instance is not found, or found wrongly, for the next)."""
    from grove.learning.skill_names import kind_name, values_in_name

    request = " ".join(
        str(m.get("content") or "") for m in _reviewed(ctx, session_id) if m.get("role") == "user"
    )
    carried = values_in_name(name, request)
    if not carried:
        return name
    derived = kind_name(name, request) if derive else None
    if derived is not None:
        return derived
    raise ToolError(
        f"the name '{name}' carries this task's own value(s) {', '.join(repr(v) for v in carried)}; name the kind "
        "of task instead, what every task of this kind does (e.g. 'sum-csv-column', not 'sum-price-column')"
    )


def skill_probe(
    ctx: ToolContext, name: str, task: str, checks: list[dict[str, Any]], files: dict[str, str] | None = None
) -> str:
    """Hold a skill to a probe: the task that taught it and checks a correct result passes. Call it before you
    create, edit or patch the skill's SKILL.md; the change is then replayed on this task and written only when
    the checks pass with it.

    Args:
        name: the skill the probe belongs to
        task: the user's request, as the reviewed session was asked
        checks: e.g. [{"file": "total.txt", "equals": "42"}] ("equals", "contains" or "regex"), or [{"output_regex": "42"}]
        files: the files the task starts from, path -> content
    """
    from grove.learning.skill_probes import parse_probe

    try:
        probe = parse_probe(task, checks, files)
    except ValueError as e:
        raise ToolError(f"probe not taken: {e}") from e
    pending = ctx.state.setdefault(PROBES_KEY, {}).setdefault(name, [])
    pending.append(probe)
    return f"probe {len(pending)} for '{name}' taken; it is replayed when you change the skill's SKILL.md"


def _home(ctx: ToolContext) -> Path:
    """grove's home: the reviewer runs only in a session the runtime opened, which has settings."""
    assert ctx.settings is not None
    return ctx.settings.home


def _changes_skill_md(action: str, file_path: str | None) -> bool:
    return action in ("create", "edit") or (action == "patch" and file_path in (None, "", "SKILL.md"))


def _candidate(ctx: ToolContext, name: str, action: str, kw: dict[str, Any]) -> tuple[str, str | None] | None:
    """(the SKILL.md the change would write, the one it replaces or None); None when the patch cannot apply
    (skill_manage then says why)."""
    from grove.skills.discover import home_skills_dir

    current = home_skills_dir(_home(ctx)) / name / "SKILL.md"
    before = current.read_text(encoding="utf-8") if current.is_file() else None
    if action in ("create", "edit"):
        return str(kw.get("content") or ""), before
    old, new = kw.get("old_string") or "", kw.get("new_string")
    if before is None or new is None or not old or before.count(old) != 1:
        return None
    return before.replace(old, new, 1), before


def _probed(
    ctx: ToolContext, name: str, action: str, kw: dict[str, Any], runner: ProbeRunner | None, budget: int
) -> Any:
    from grove.learning.skill_probes import Verdict, judge, load_probes

    assert runner is not None
    texts = _candidate(ctx, name, action, kw)
    if texts is None:
        return None
    probes = load_probes(_home(ctx), name) + list(ctx.state.get(PROBES_KEY, {}).get(name, []))
    left = ctx.state.get(BUDGET_KEY, budget)
    if not probes:
        return Verdict(
            False, [f"no probe for '{name}': call skill_probe(name='{name}', task=..., checks=...) first"]
        )
    verdict = judge(name, texts[0], texts[1], probes, runner, left)
    ctx.state[BUDGET_KEY] = left - verdict.replays
    return verdict


def _keep_probes(ctx: ToolContext, name: str) -> None:
    from grove.learning.skill_probes import load_probes, save_probes

    pending = ctx.state.get(PROBES_KEY, {}).pop(name, [])
    if pending:
        save_probes(_home(ctx), name, load_probes(_home(ctx), name) + pending)
