"""The registry of built-in tools: one module per toolset, gathered here."""

from __future__ import annotations

from grove.tools import (
    browser,
    code_skills,
    cron,
    delegate,
    files,
    memory,
    sessions,
    skills,
    terminal,
    todo,
    tool_script,
    vision,
    web,
)
from grove.tools.plugin_tools import plugin_toolsets
from grove.tools.registry import ToolRegistry


def builtin_registry() -> ToolRegistry:
    registry = ToolRegistry(
        [
            *files.tools(),
            *terminal.tools(),
            *todo.tools(),
            *skills.tools(),
            *memory.tools(),
            *sessions.tools(),
            *code_skills.tools(),
            *delegate.tools(),
            *cron.tools(),
            # opt-in: not among the default toolsets, so no prompt tokens until enabled
            *web.tools(),
            *browser.tools(),
            *tool_script.tools(),
            *vision.tools(),
        ]
    )
    # plugins (entry-point group grove.tools): one toolset per plugin; a broken one is skipped
    for toolset in plugin_toolsets(registry.names()):
        for tool in toolset.tools:
            registry.add(tool)
    return registry
