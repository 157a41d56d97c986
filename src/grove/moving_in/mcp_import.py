"""Other agents' MCP server entries as grove's `mcp.servers` (grove.config.mcp.McpServerConfig): names made
valid, literal secrets turned into ${VAR} references (the value is never written), a name taken skipped
unless --force."""

from __future__ import annotations

import re
from typing import Any

from grove.moving_in.report import Report

TIMEOUT_KEYS = ("timeout", "tool_timeout_sec", "startup_timeout_sec")


def grove_name(name: str) -> str:
    from grove.config.mcp import NAME_MAX

    out = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-_")
    out = re.sub(r"_{2,}", "_", out)
    return out[:NAME_MAX].rstrip("-_") or "server"


def convert(name: str, raw: dict[str, Any]) -> tuple[Any, list[str]]:
    """One server entry (Hermes, Claude Code, Codex or OpenClaw spelling) as an McpServerConfig, and notes."""
    from grove.config.mcp import McpServerConfig, secrets_as_references

    notes: list[str] = []
    kind = str(raw.get("type") or raw.get("transport") or "")
    url = raw.get("url") or raw.get("serverUrl")
    headers = dict(raw.get("headers") or raw.get("http_headers") or {})
    if raw.get("bearer_token_env_var"):  # codex: the token's variable name
        headers["Authorization"] = f"Bearer ${{{raw['bearer_token_env_var']}}}"
    if kind == "sse":
        notes.append("was an SSE server; grove speaks streamable HTTP, check the URL (often .../mcp)")
    timeout = next((float(raw[k]) for k in TIMEOUT_KEYS if isinstance(raw.get(k), int | float)), 60.0)
    args = raw.get("args") or []
    server = McpServerConfig(
        name=grove_name(name),
        command=None if url else raw.get("command"),
        args=[str(a) for a in args] if isinstance(args, list) else [],
        env={str(k): str(v) for k, v in (raw.get("env") or {}).items()},
        cwd=raw.get("cwd"),
        url=url,
        headers={str(k): str(v) for k, v in headers.items()},
        timeout=min(max(timeout, 1.0), 3600.0),
        enabled=raw.get("enabled", raw.get("disabled") is not True) is not False,
    )
    if server.name != name:
        notes.append(f"renamed to '{server.name}' (grove's server names: letters, digits, '-', single '_')")
    server, moved = secrets_as_references(server, _shaped)
    for var, where in moved.items():
        notes.append(f"the literal secret in {where} was left out: export {var}=... before using it")
    return server, notes


def _shaped(value: str) -> bool:
    """A literal secret by its shape, whatever its name (what redaction would mask)."""
    from grove.security.secrets.redact import redact

    return redact(value) != value


def import_mcp(
    found: list[tuple[str, dict[str, Any]]],
    skipped: list[tuple[str, str]],
    report: Report,
    apply: bool,
    force: bool,
    existing: set[str],
) -> None:
    from grove.config import ConfigError
    from grove.dataclass_io import InvalidData, to_jsonable, validate_as

    for item, why in skipped:
        report.add("mcp", item, "skipped", detail=why)
    taken: set[str] = set()
    for origin, servers in found:
        for name, raw in servers.items():
            label = f"{name} ({origin})"
            if not isinstance(raw, dict):
                report.add("mcp", label, "skipped", detail="not a server entry (a mapping)")
                continue
            try:
                server, notes = convert(str(name), raw)
                server = validate_as(type(server), to_jsonable(server))
            except (ValueError, TypeError, InvalidData) as e:
                report.add("mcp", label, "skipped", detail=f"not convertible: {str(e).splitlines()[0][:200]}")
                continue
            if server.name in taken:
                report.add(
                    "mcp",
                    label,
                    "skipped",
                    detail=f"a server '{server.name}' was taken from this agent already",
                )
                continue
            if server.name in existing and not force:
                report.add(
                    "mcp", label, "skipped", detail=f"grove has a server '{server.name}'; --force replaces it"
                )
                continue
            if apply:
                from grove.config.mcp_store import add_server

                try:
                    add_server(server, replace_existing=force)
                except ConfigError as e:
                    report.add("mcp", label, "skipped", detail=str(e)[:300])
                    continue
            taken.add(server.name)
            action = "converted" if notes else "taken"
            report.add("mcp", label, action, f"config.yaml mcp.servers.{server.name}", "; ".join(notes))
