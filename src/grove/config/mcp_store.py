"""Writing MCP servers to config.yaml (`mcp.servers.<name>`): checked, atomic, literal secrets refused. Apart from
grove.config.mcp because it needs grove.config, which imports that module."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grove.config as config
from grove.config.mcp import McpServerConfig, Shaped, literal_secrets, server_yaml
from grove.dataclass_io import InvalidData, to_jsonable, validate_as


def add_server(
    server: McpServerConfig, *, replace_existing: bool = False, shaped: Shaped | None = None
) -> Path:
    """Write `server` to mcp.servers in config.yaml (checked, atomic). Literal secrets are refused: by name, and
    by shape when `shaped` tells them (the callers pass grove.security's redaction)."""
    ConfigError, grove_home, read_config_file = config.ConfigError, config.grove_home, config.read_config_file

    if not server.name:
        raise ConfigError("an MCP server needs a name")
    try:
        server = validate_as(McpServerConfig, to_jsonable(server))
    except InvalidData as e:
        raise ConfigError(f"MCP server '{server.name}' not added: {e}") from e
    secrets = literal_secrets(server, shaped)
    if secrets:
        raise ConfigError(
            f"MCP server '{server.name}': {', '.join(secrets)} look like secrets; grove never writes them to "
            "disk. Export the value in your shell and write a reference instead, e.g. GITHUB_TOKEN='${GITHUB_TOKEN}' or "
            "'Authorization: Bearer ${API_TOKEN}'"
        )
    path = grove_home() / "config.yaml"
    data = read_config_file(path)
    section_data = data.setdefault("mcp", {})
    if not isinstance(section_data, dict):
        raise ConfigError(f"{path}: 'mcp' must be a section (a mapping)")
    servers = section_data.setdefault("servers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: 'mcp.servers' must be a mapping of name -> server")
    if server.name in servers and not replace_existing:
        raise ConfigError(f"an MCP server named '{server.name}' exists; remove it first or pick another name")
    servers[server.name] = server_yaml(server)
    _check_and_write(data, path)
    return path


def remove_server(name: str) -> bool:
    """Drop mcp.servers.<name> from config.yaml; False when there was none."""
    grove_home, read_config_file = config.grove_home, config.read_config_file

    path = grove_home() / "config.yaml"
    data = read_config_file(path)
    servers = (data.get("mcp") or {}).get("servers") or {}
    if not isinstance(servers, dict) or name not in servers:
        return False
    del servers[name]
    _check_and_write(data, path)
    return True


def _check_and_write(data: dict[str, Any], path: Path) -> None:
    import yaml

    from grove.atomic_files import atomic_write_text

    try:
        config.validate({**data, "home": config.grove_home()})
    except InvalidData as e:
        raise config.ConfigError(f"config.yaml not changed: {e}") from e
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, yaml.safe_dump(data, sort_keys=False))
