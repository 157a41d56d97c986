"""The `memory` toolset: one `memory` tool that adds, replaces or removes entries of MEMORY.md / USER.md, and
searches them and their archives (where a full file's oldest entries go: nothing is dropped).

Written to disk at once; the system prompt keeps the snapshot from session start (the change shows next session).
"""

from __future__ import annotations

from typing import Any

from grove.config.memory import MemoryConfig, memory_config
from grove.memory.files import (
    ARCHIVE_DIR,
    FILES,
    Action,
    ApplyResult,
    MemoryEditError,
    MemoryFiles,
    MemoryOp,
    Target,
)
from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool

BASELINE_KEY = "memory_digests"


def _files(ctx: ToolContext) -> tuple[MemoryFiles, MemoryConfig]:
    settings: Any = ctx.settings
    if settings is None:
        from grove.config import load_settings

        settings = load_settings()
    config = memory_config(settings)
    return MemoryFiles(settings.home, config), config


def memory(
    ctx: ToolContext,
    action: Action | None = None,
    target: Target | None = None,
    content: str | None = None,
    old_text: str | None = None,
    operations: list[MemoryOp] | None = None,
    query: str | None = None,
) -> str:
    """Save durable facts for future sessions: 'memory' = your notes on the environment and conventions, 'user' =
    the user's preferences and habits. One fact per entry. Not for task progress, one-off results or secrets.
    Changes are saved now and appear in the system prompt of the next session. A full file archives its oldest
    entries; `query` searches all.

    Args:
        action: replace: the entry containing old_text becomes content; remove: deletes that entry
        target: memory | user
        content: the entry to write (add, replace)
        old_text: a piece of exactly one existing entry (replace, remove)
        operations: several operations applied all or nothing, instead of the fields above
        query: instead of editing, find entries (archived too) with these words
    """
    if query is not None and (action is not None or operations):
        raise ToolError("give either 'query' (to search) or an edit, not both")
    if query is not None:
        return _search(ctx, query)
    if operations and action is not None:
        raise ToolError("give either action/target/... or operations, not both")
    if not operations:
        if action is None or target is None:
            raise ToolError("give 'action' and 'target' (or a list of 'operations')")
        operations = [MemoryOp(action=action, target=target, content=content, old_text=old_text)]
    files, config = _files(ctx)
    try:
        result = files.apply(list(operations), ctx.state.get(BASELINE_KEY))
    except MemoryEditError as e:
        raise ToolError(str(e)) from e
    ctx.state[BASELINE_KEY] = result.digests
    return _report(result, config, ctx)


def _search(ctx: ToolContext, query: str) -> str:
    files, _ = _files(ctx)
    found = files.search(query, limit=10)
    if not found:
        return f"no memory entry (archived ones included) has any of the words {query!r}"
    return "\n".join(f"[{f.where}] {f.text}" for f in found)


def _report(result: ApplyResult, config: MemoryConfig, ctx: ToolContext) -> str:
    lines = list(result.messages)
    for t, moved in result.archived.items():
        if not moved:
            continue
        line = (
            f"{FILES[t]} was full: {len(moved)} entr{'y' if len(moved) == 1 else 'ies'} moved to "
            f"memory/{ARCHIVE_DIR}/{FILES[t]} (kept, out of the prompt; memory(query=...) finds them): "
            + "; ".join(repr(e[:60]) for e in moved)
            + ". Merge related entries (replace) to keep what matters in the prompt."
        )
        lines.append(line)
        ctx.notify(f"memory: {FILES[t]} was full; {len(moved)} entries moved to its archive (nothing lost)")
    for t in result.edited_outside:
        lines.append(f"note: {t} had changed on disk since your last edit (by hand?); applied on top of it")
    for t in sorted({*result.changed}):
        fill = result.fills[t]
        lines.append(fill.header())
        if fill.ratio >= config.full_notice:
            lines.append(
                f"{fill.header()} is nearly full: before adding more, merge related entries (replace) and remove "
                "stale ones."
            )
            ctx.notify(f"memory: {fill.header()}; review it with `grove memory show`")
    if result.changed:
        lines.append("(saved; it shows in the system prompt from the next session on)")
    return "\n".join(lines)


def tools() -> list[Tool]:
    # children never write memory
    return [make_tool(memory, toolset="memory", mutating=True, subagent_ok=False)]
