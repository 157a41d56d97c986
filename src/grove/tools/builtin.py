"""The registry of built-in tools: one module per toolset, gathered here.

A session asks for its toolsets only (`builtin_registry(toolsets)`): the modules of the others are not imported,
and plugins are read only when a toolset no built-in module makes is wanted (a one-shot run starts faster).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from grove.tools.registry import Tool, ToolRegistry

# toolset -> the module under grove.tools whose tools() makes it (one module may make several); the order is the
# registry's. web, browser, scripts and vision are opt-in: not among the default toolsets, so no prompt tokens
# until enabled.
MODULE_OF: dict[str, str] = {
    "files": "files",
    "terminal": "terminal",
    "todo": "todo",
    "skills": "skills",
    "memory": "memory",
    "sessions": "sessions",
    "code_skills": "code_skills",
    "delegate": "delegate",
    "cron": "cron",
    "web": "web",
    "browser": "browser",
    "scripts": "tool_script",
    "vision": "vision",
}


def builtin_registry(toolsets: Iterable[str] | None = None) -> ToolRegistry:
    """Every built-in and plugin tool; or, given `toolsets` that built-in modules make, those modules' tools only
    (select() still picks the toolsets). A name no built-in module makes loads everything, so select() can offer
    a plugin's toolset or list all known ones in its error."""
    wanted = None if toolsets is None else set(toolsets)
    if wanted is not None and wanted <= MODULE_OF.keys():
        modules = dict.fromkeys(MODULE_OF[t] for t in MODULE_OF if t in wanted)
        return ToolRegistry(tool for m in modules for tool in _module_tools(m))
    registry = ToolRegistry(tool for m in dict.fromkeys(MODULE_OF.values()) for tool in _module_tools(m))
    from grove.tools.plugin_tools import plugin_toolsets

    # plugins (entry-point group grove.tools): one toolset per plugin; a broken one is skipped
    for toolset in plugin_toolsets(registry.names()):
        for tool in toolset.tools:
            registry.add(tool)
    return registry


def _module_tools(module: str) -> list[Tool]:
    return list(importlib.import_module(f"grove.tools.{module}").tools())
