"""Each server's tool list on disk ($GROVE_HOME/cache/mcp/<name>.json), keyed by the server's settings: a session
can describe and register a server's tools without starting it; the server starts on the first call."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from grove.atomic_files import atomic_write_text
from grove.config.mcp import McpServerConfig
from grove.dataclass_io import to_jsonable

ToolList = list[dict[str, Any]]  # name, description, input_schema, read_only


def config_key(server: McpServerConfig) -> str:
    """What decides which tools a server offers: how it is started or reached, and the tools filter."""
    data = to_jsonable(server)
    wanted = {k: data[k] for k in ("command", "args", "env", "cwd", "url", "headers", "tools")}
    return hashlib.sha256(json.dumps(wanted, sort_keys=True).encode()).hexdigest()[:16]


def cache_path(home: Path, name: str) -> Path:
    return home / "cache" / "mcp" / f"{name}.json"


def load_tool_list(home: Path, server: McpServerConfig) -> ToolList | None:
    try:
        data = json.loads(cache_path(home, server.name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        not isinstance(data, dict)
        or data.get("key") != config_key(server)
        or not isinstance(data.get("tools"), list)
    ):
        return None
    return [t for t in data["tools"] if isinstance(t, dict) and isinstance(t.get("name"), str)]


def save_tool_list(home: Path, server: McpServerConfig, tools: ToolList) -> None:
    try:
        path = cache_path(home, server.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps({"key": config_key(server), "tools": tools}, ensure_ascii=False))
    except OSError:
        pass  # a read-only home only costs a connection at the next start
