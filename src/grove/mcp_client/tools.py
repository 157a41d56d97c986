"""MCP servers as grove tools. Lazy by default: three small tools (mcp_list, mcp_call, mcp_read) whose
descriptions name the servers, so an unused server costs a line of the prompt, not its schemas; a server set
`eager` gets each tool registered as `<server>__<tool>` from its cached list. Every call goes through the server's
trust (approval) and its output through the injection scan."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from grove.config.mcp import McpServerConfig
from grove.llm.types import ToolSchema
from grove.mcp_client.approval import SEP, approve_mcp
from grove.mcp_client.cache import ToolList, load_tool_list
from grove.mcp_client.caller import Caller
from grove.mcp_client.connection import McpUnavailable
from grove.mcp_client.manager import McpManager
from grove.mcp_client.outside import screened
from grove.mcp_client.render import prompt_text, resource_text, tool_result_text
from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, ToolResult, make_tool, parse_arguments

TOOLSET = "mcp"
TASK_ONLY = (
    "the server runs this tool only as a task (a task-augmented call, MCP 2025-11-25), which grove's MCP SDK "
    "does not send; it cannot be called from grove"
)
NAMES_SHOWN = 12  # tool names per server in the descriptions; the rest are counted


class McpTools:
    """The MCP tools of one session, over a (shared) manager."""

    def __init__(self, servers: list[McpServerConfig], manager: McpManager, home: Path | None) -> None:
        self.servers = {s.name: s for s in servers}
        self.manager = manager
        self.home = home

    def _server(self, name: str) -> McpServerConfig:
        server = self.servers.get(name)
        if server is None:
            raise ToolError(f"no MCP server '{name}'; servers: {', '.join(self.servers) or 'none'}")
        return server

    def cached(self, server: McpServerConfig) -> ToolList | None:
        return load_tool_list(self.home, server) if self.home is not None else None

    def task_only(self, server: McpServerConfig) -> set[str]:
        """The server's tools it runs only as tasks, as last listed."""
        return {t["name"] for t in self.cached(server) or [] if t.get("task_support") == "required"}

    def call(self, ctx: ToolContext, server: McpServerConfig, tool: str, args: dict[str, Any]) -> ToolResult:
        if tool in self.task_only(server):
            return ToolResult(f"Error: {server.name}{SEP}{tool}: {TASK_ONLY}", False)
        try:
            result = self.manager.call_tool(server.name, tool, args, Caller(ctx))
        except McpUnavailable as e:
            return ToolResult(f"Error: {e}", False)
        except Exception as e:  # the server answered with a protocol error (unknown tool, bad arguments)
            return ToolResult(f"Error: {server.name}{SEP}{tool}: {_error_text(e)}", False)
        text = screened(tool_result_text(result), server, tool)
        return ToolResult(f"Error: {text}" if result.is_error else text, not result.is_error)

    # --- the lazy tools ---

    def servers_line(self) -> str:
        parts = []
        for s in self.servers.values():
            tools = self.cached(s)
            if tools is None:
                listed = "tools not listed yet"
            else:
                names = [t["name"] for t in tools]
                listed = ", ".join(names[:NAMES_SHOWN]) + (
                    f" +{len(names) - NAMES_SHOWN}" if len(names) > NAMES_SHOWN else ""
                )
            parts.append(f"{s.name} ({listed})")
        return "; ".join(parts)

    def lazy_tools(self) -> list[Tool]:
        owner = self

        def mcp_list(ctx: ToolContext, server: str) -> str:
            """List an MCP server's tools with their argument schemas, and its resources and prompts.

            Args:
                server: the server's name
            """
            cfg = owner._server(server)
            try:
                tools = owner.manager.list_tools(server, Caller(ctx))
            except McpUnavailable as e:
                raise ToolError(str(e)) from e
            lines = [
                f"{t['name']}: {t['description']} args={json.dumps(t['input_schema'], separators=(',', ':'))}"
                + (f" ({TASK_ONLY})" if t.get("task_support") == "required" else "")
                for t in tools
            ]
            for label, fetch in (
                ("resources", owner.manager.list_resources),
                ("prompts", owner.manager.list_prompts),
            ):
                try:
                    items = fetch(server, Caller(ctx))
                except Exception:
                    continue
                if items:
                    lines.append(f"{label}: " + json.dumps(items, ensure_ascii=False, separators=(",", ":")))
            return screened("\n".join(lines) or "(no tools)", cfg, "list")

        def mcp_call(
            ctx: ToolContext, server: str, tool: str, arguments: dict[str, Any] | None = None
        ) -> ToolResult:
            """Call a tool of an MCP server (see mcp_list for its arguments).

            Args:
                server: the server's name
                tool: the tool's name on that server
                arguments: the tool's arguments, a JSON object
            """
            return owner.call(ctx, owner._server(server), tool, arguments or {})

        def mcp_read(
            ctx: ToolContext,
            server: str,
            uri: str | None = None,
            prompt: str | None = None,
            arguments: dict[str, str] | None = None,
        ) -> str:
            """Read a resource of an MCP server (uri), or get one of its prompts filled with arguments (prompt).

            Args:
                server: the server's name
                uri: a resource's URI, as mcp_list shows it
                prompt: instead, a prompt's name
                arguments: the prompt's arguments
            """
            cfg = owner._server(server)
            if bool(uri) == bool(prompt):
                raise ToolError("give either uri (a resource) or prompt (a prompt's name)")
            try:
                if uri:
                    return screened(
                        resource_text(owner.manager.read_resource(server, uri, Caller(ctx))), cfg, uri
                    )
                result = owner.manager.get_prompt(server, str(prompt), arguments, Caller(ctx))
            except Exception as e:
                raise ToolError(f"{server}: {_error_text(e)}") from e
            return screened(prompt_text(result), cfg, f"prompt {prompt}")

        def approve_call(ctx: ToolContext, _name: str, args: dict[str, Any]) -> str | None:
            server = owner.servers.get(str(args.get("server")))
            if server is None:
                return None  # the handler reports the unknown server
            return approve_mcp(ctx, server, str(args.get("tool")), args.get("arguments") or {})

        servers = self.servers_line()
        # needs_approval only when some server is not trusted: sub-agents (which drop such tools) keep trusted ones
        gated = any(s.trust != "trusted" for s in self.servers.values())
        call = make_tool(
            mcp_call,
            toolset=TOOLSET,
            mutating=True,
            needs_approval=gated,
            approve=approve_call,
            untrusted_output=True,
        )
        call.description += f" Servers: {servers}."
        return [
            make_tool(mcp_list, toolset=TOOLSET),
            call,
            make_tool(mcp_read, toolset=TOOLSET, untrusted_output=True),
        ]

    # --- eager servers: one grove tool per server tool ---

    def eager_tools(self, notify: Any = None) -> list[Tool]:
        out: list[Tool] = []
        for server in self.servers.values():
            if not server.eager:
                continue
            tools = self.cached(server)
            if tools is None:
                try:
                    tools = self.manager.list_tools(server.name)  # first use: connect once, then cached
                except McpUnavailable as e:
                    if notify is not None:
                        notify(f"{e}; its tools are reached through mcp_call")
                    continue
            out += [McpTool.build(self, server, t) for t in tools]
        return out


@dataclasses.dataclass
class McpTool(Tool):
    """A server's tool under `<server>__<tool>`: the server's own schema; arguments checked by the server."""

    owner: McpTools | None = None
    server: McpServerConfig | None = None
    remote_name: str = ""
    input_schema: dict[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def build(cls, owner: McpTools, server: McpServerConfig, tool: dict[str, Any]) -> McpTool:
        return cls(
            name=f"{server.name}{SEP}{tool['name']}"[:64],
            description=(tool.get("description") or "")[:1024]
            or f"{tool['name']} of the MCP server {server.name}",
            handler=lambda *_a, **_k: None,
            params={},
            toolset=TOOLSET,
            mutating=not tool.get("read_only"),
            needs_approval=server.trust != "trusted",
            untrusted_output=True,  # a server's results are outside content: they taint the session
            owner=owner,
            server=server,
            remote_name=tool["name"],
            input_schema=tool.get("input_schema") or {"type": "object", "properties": {}},
        )

    # the server's own schema, put together on each read (Tool caches the one it derives from a handler)
    @property
    def schema(self) -> ToolSchema:  # pyright: ignore[reportIncompatibleVariableOverride]
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.input_schema},
        }

    def call(self, ctx: ToolContext, raw_arguments: str | dict[str, Any]) -> ToolResult:
        assert self.owner is not None and self.server is not None
        args = parse_arguments(raw_arguments)
        if isinstance(args, ToolResult):
            return args
        refusal = approve_mcp(ctx, self.server, self.remote_name, args)
        if refusal:
            return ToolResult(f"Error: {refusal}", False)
        return self.owner.call(ctx, self.server, self.remote_name, args)


def _error_text(e: BaseException) -> str:
    error = getattr(e, "error", None)
    return str(getattr(error, "message", None) or e) or type(e).__name__
