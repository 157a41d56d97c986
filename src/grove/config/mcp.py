"""MCP servers grove connects to: `mcp.servers.<name>` in config.yaml, one `McpServerConfig` each. Secrets are never
written: an env or header value that looks like one must be a `${VAR}` reference, expanded when connecting."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Annotated, Any, Literal

from grove.dataclass_io import STRICT_KEYS, section, to_jsonable

if TYPE_CHECKING:
    from pydantic import Field  # the constraints below are checked by grove.dataclass_io.validate_as

# Tool names become `<server>__<tool>`; providers accept [A-Za-z0-9_-]{1,64}, so a name never holds "__".
NAME_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$")
NAME_MAX = 32
TRUST = ("trusted", "ask", "untrusted")
SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "auth", "credential", "cookie", "session")
REF_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class McpServerConfig:
    __pydantic_config__ = STRICT_KEYS

    name: Annotated[str, Field(description="set from the key under mcp.servers")] = ""
    command: Annotated[str | None, Field(description="stdio server: the program to start")] = None
    args: Annotated[list[str], Field(description="arguments of the stdio server's command")] = field(
        default_factory=list
    )
    env: Annotated[
        dict[str, str],
        Field(description="extra environment of a stdio server; secrets as ${VAR} references"),
    ] = field(default_factory=dict)
    cwd: Annotated[str | None, Field(description="working folder of a stdio server")] = None
    url: Annotated[str | None, Field(description="streamable HTTP server: its endpoint, e.g. .../mcp")] = None
    headers: Annotated[dict[str, str], Field(description="HTTP headers; secrets as ${VAR} references")] = (
        field(default_factory=dict)
    )
    trust: Annotated[
        Literal["trusted", "ask", "untrusted"],
        Field(
            description="trusted = its tools run without asking; ask = each call is approved (an 'always' answer "
            "holds for the session); untrusted = each call is approved, always, and nothing unattended"
        ),
    ] = "ask"
    timeout: Annotated[float, Field(gt=0, le=3600, description="seconds per call (and to connect)")] = 60.0
    enabled: Annotated[bool, Field(description="off = kept in config.yaml but not connected")] = True
    eager: Annotated[
        bool,
        Field(
            description="register each tool by name (its schema costs tokens in every prompt); off = reached "
            "through mcp_list / mcp_call"
        ),
    ] = False
    tools: Annotated[list[str], Field(description="only these tools of the server (empty = all)")] = field(
        default_factory=list
    )

    def __post_init__(self) -> None:
        if self.name and (len(self.name) > NAME_MAX or not NAME_RE.match(self.name)):
            raise ValueError(
                f"server name '{self.name}': use letters, digits, '-' or single '_' (at most {NAME_MAX})"
            )
        if bool(self.command) == bool(self.url):
            raise ValueError("give a server either `command` (stdio) or `url` (streamable HTTP), not both")
        if self.url and not re.match(r"^https?://", self.url):
            raise ValueError(f"url '{self.url}' must start with http:// or https://")

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command else "http"


@dataclass
class McpConfig:
    __pydantic_config__ = STRICT_KEYS

    servers: dict[str, McpServerConfig] = field(default_factory=dict, metadata={"values": McpServerConfig})

    def __post_init__(self) -> None:
        for name, server in self.servers.items():
            if len(name) > NAME_MAX or not NAME_RE.match(name):
                raise ValueError(
                    f"MCP server name '{name}': use letters, digits, '-' or single '_' (at most {NAME_MAX})"
                )
            if isinstance(server, McpServerConfig):
                server.name = name  # the key is the name (`grove config show` then shows it)


def mcp_config(settings: Any) -> McpConfig:
    return section(settings, "mcp", McpConfig)


def mcp_servers(settings: Any, *, enabled_only: bool = False) -> list[McpServerConfig]:
    """The configured servers, each named by its key, in config order."""
    out = [replace(s, name=name) for name, s in mcp_config(settings).servers.items()]
    return [s for s in out if s.enabled or not enabled_only]


def looks_secret(name: str) -> bool:
    low = name.lower().replace("-", "_")
    return any(w in low for w in SECRET_WORDS)


# Tells a secret by its shape (a token in a known format, a URL with a password), whatever its name: the callers
# pass grove.security's redaction (config is the bottom layer and imports nothing of it).
Shaped = Callable[[str], bool]


def holds_secret(name: str, value: str, shaped: Shaped | None = None) -> bool:
    """A literal secret, by its name (API_KEY=...) or, given `shaped`, by its shape. A ${VAR} reference is not
    one."""
    if not value or REF_RE.search(value):
        return False
    return looks_secret(name) or (shaped is not None and shaped(value))


def literal_secrets(server: McpServerConfig, shaped: Shaped | None = None) -> list[str]:
    """Names of env variables / headers that hold a literal secret instead of a ${VAR} reference."""
    out = []
    for kind, values in (("env", server.env), ("headers", server.headers)):
        for k, v in values.items():
            if holds_secret(k, v, shaped):
                out.append(f"{kind}.{k}")
    return out


def secrets_as_references(
    server: McpServerConfig, shaped: Shaped | None = None
) -> tuple[McpServerConfig, dict[str, str]]:
    """A copy whose literal secrets are ${VAR} references, and {VAR: where it was} for the user to export.
    (Importers use it: the literal value is dropped, never written.)"""
    moved: dict[str, str] = {}

    def var_for(kind: str, key: str) -> str:
        base = re.sub(r"[^A-Za-z0-9]+", "_", key).strip("_").upper() or "TOKEN"
        return base if kind == "env" else f"{server.name.upper().replace('-', '_')}_{base}"

    env, headers = dict(server.env), dict(server.headers)
    for kind, values in (("env", env), ("headers", headers)):
        for k, v in values.items():
            if holds_secret(k, v, shaped):
                var = var_for(kind, k)
                prefix = "Bearer " if kind == "headers" and v.lower().startswith("bearer ") else ""
                values[k] = f"{prefix}${{{var}}}"
                moved[var] = f"{kind}.{k}"
    return replace(server, env=env, headers=headers), moved


def expand_refs(value: str, environ: dict[str, str] | None = None) -> str:
    """${VAR} replaced from the environment; a missing variable is an error naming it."""
    environ = dict(os.environ) if environ is None else environ

    def sub(m: re.Match[str]) -> str:
        if m.group(1) not in environ:
            raise KeyError(m.group(1))
        return environ[m.group(1)]

    return REF_RE.sub(sub, value)


def server_yaml(server: McpServerConfig) -> dict[str, Any]:
    """The YAML form: defaults left out so config.yaml stays short; the name is the key."""
    data = to_jsonable(server)
    default = to_jsonable(McpServerConfig(command="x"))
    data.pop("name", None)
    default["command"] = None
    return {k: v for k, v in data.items() if v != default.get(k)}
