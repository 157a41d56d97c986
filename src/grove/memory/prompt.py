"""The frozen memory block of the system prompt: MEMORY.md then USER.md, each under a header with its fill level.

Read once at session start; writes during the session show up in the next one, so the prompt prefix stays cached.
"""

from __future__ import annotations

from typing import Any

from grove.config.memory import memory_config
from grove.memory.files import FILES, MemoryFiles

TITLES = {
    "memory": "Your notes on this environment and its conventions (from earlier sessions)",
    "user": "What you know about the user",
}
GUIDANCE = (
    "Memory is a snapshot taken when this session started. Keep it with the `memory` tool: durable facts only "
    "(preferences, conventions, environment), one fact per entry; no task progress or one-off results."
)


def memory_prompt_block(settings: Any) -> str:
    """The frozen MEMORY.md + USER.md block with fill levels; '' when both are empty or memory is disabled."""
    config = memory_config(settings)
    if not config.enabled:
        return ""
    files = MemoryFiles(settings.home, config)
    parts: list[str] = []
    for target in FILES:
        entries = files.entries(target)
        if not entries:
            continue
        fill = files.fill(target)
        body = "\n§\n".join(entries)
        archived = len(files.archived(target))
        if archived:
            body += f"\n(+{archived} older entries archived: the memory tool's `query` finds them)"
        parts.append(f"## {TITLES[target]} — {fill.header()}\n{body}")
    if not parts:
        return ""
    return "# Memory\n" + GUIDANCE + "\n\n" + "\n\n".join(parts)


def memory_notice(settings: Any) -> str | None:
    """A line for the user when a memory file is nearly full (so memory never fills up silently), else None."""
    config = memory_config(settings)
    if not config.enabled:
        return None
    files = MemoryFiles(settings.home, config)
    full = [f for f in (files.fill(t) for t in FILES) if f.ratio >= config.full_notice]
    if not full:
        return None
    which = ", ".join(f.header() for f in full)
    return f"memory is nearly full: {which}. Review it with `grove memory show` / `grove memory edit`."
