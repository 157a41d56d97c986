"""What the runtime calls at assembly: the configured MCP servers' tools added to a session's registry."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

from grove.config.mcp import mcp_servers
from grove.tools.registry import ToolRegistry


def add_mcp_tools(registry: ToolRegistry, settings: Any, notify: Callable[[str], None] | None = None) -> int:
    """Add the lazy MCP tools (and eager servers' own tools) for the enabled servers; returns how many tools.
    No server configured: nothing is imported and nothing added."""
    servers = mcp_servers(settings, enabled_only=True)
    if not servers:
        return 0
    if importlib.util.find_spec("mcp") is None:
        if notify is not None:
            notify("MCP servers are configured but the MCP SDK is missing: pip install 'grove-agent[mcp]'")
        return 0
    from grove.mcp_client.manager import shared_manager
    from grove.mcp_client.tools import McpTools

    home = getattr(settings, "home", None)
    tools = McpTools(servers, shared_manager(servers, home), home)
    added = 0
    for tool in [*tools.lazy_tools(), *tools.eager_tools(notify)]:
        if registry.get(tool.name) is None:
            registry.add(tool)
            added += 1
    return added
