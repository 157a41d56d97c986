"""Plugins: objects other packages offer grove through importlib.metadata entry points, one group per kind.

Listing a group reads metadata only; an entry point's module is imported when its group is loaded, and a plugin
that fails to import is reported with its error, never raised (a broken plugin must not stop grove starting).
"""

from __future__ import annotations

from grove.plugins.loader import (
    GRADERS,
    GROUPS,
    MUTATIONS,
    PLATFORMS,
    PROVIDERS,
    TOOLS,
    LoadedPlugin,
    PluginEntry,
    list_group,
    load_group,
)

__all__ = [
    "GRADERS",
    "GROUPS",
    "MUTATIONS",
    "PLATFORMS",
    "PROVIDERS",
    "TOOLS",
    "LoadedPlugin",
    "PluginEntry",
    "list_group",
    "load_group",
]
