"""Tools from plugins (entry-point group grove.tools): each plugin's tools form a toolset named by its entry point.

A plugin offers a Tool (made with make_tool), a list of them, or a function returning them. A tool whose name is
taken already is left out and said why; a plugin that fails to load costs nothing but its entry in
`grove plugins list`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from grove.plugins import TOOLS, LoadedPlugin, load_group
from grove.tools.registry import Tool


@dataclass
class PluginToolset:
    plugin: LoadedPlugin
    tools: list[Tool] = field(default_factory=list)
    error: str | None = None


def _tools_of(plugin: LoadedPlugin) -> PluginToolset:
    if not plugin.ok:
        return PluginToolset(plugin, error=plugin.error)
    obj: Any = plugin.obj  # whatever the plugin exports: a Tool, an iterable of them, or a factory of either
    try:
        if callable(obj) and not isinstance(obj, Tool):
            obj = obj()
        items = [obj] if isinstance(obj, Tool) else list(obj)
    except Exception as exc:  # a plugin's own code failing must not stop the session
        return PluginToolset(plugin, error=f"{type(exc).__name__}: {exc}")
    bad = [type(t).__name__ for t in items if not isinstance(t, Tool)]
    if bad:
        return PluginToolset(
            plugin, error=f"{plugin.value} gave {', '.join(bad)}, not Tool objects (make_tool)"
        )
    return PluginToolset(plugin, [dataclasses.replace(t, toolset=plugin.name) for t in items])


def plugin_toolsets(taken: Iterable[str] = ()) -> list[PluginToolset]:
    """Every grove.tools plugin's toolset; tools named like one in `taken` (or an earlier plugin's) are dropped
    and the clash reported as the plugin's error."""
    names = set(taken)
    out: list[PluginToolset] = []
    for plugin in load_group(TOOLS):
        ts = _tools_of(plugin)
        clash = [t.name for t in ts.tools if t.name in names]
        if clash:
            ts.tools = [t for t in ts.tools if t.name not in names]
            ts.error = f"tool name(s) already taken: {', '.join(clash)}"
        names.update(t.name for t in ts.tools)
        out.append(ts)
    return out
