"""The sync face of MCP for grove's sync agent loop: one background event loop thread per manager, one
`Connection` per configured server, each call bounded by the server's timeout. One manager per grove home and
process (`shared_manager`): a server process is started once and serves every session of the process."""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from grove.config.mcp import McpServerConfig
from grove.mcp_client.cache import ToolList, save_tool_list
from grove.mcp_client.caller import Caller
from grove.mcp_client.connection import Connection, McpUnavailable

T = TypeVar("T")
_SHARED: dict[str, McpManager] = {}
_SHARED_LOCK = threading.Lock()


class McpManager:
    def __init__(self, servers: list[McpServerConfig], home: Path | None = None) -> None:
        self.home = home
        self.servers = {s.name: s for s in servers}
        log_dir = home / "logs" if home is not None else None
        self._connections = {s.name: Connection(s, log_dir) for s in servers}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="grove-mcp", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def connection(self, server: str) -> Connection:
        conn = self._connections.get(server)
        if conn is None:
            known = ", ".join(self._connections) or "none configured (`grove mcp add`)"
            raise McpUnavailable(f"no MCP server named '{server}'; servers: {known}")
        return conn

    def _run(
        self,
        server: str,
        op: Callable[[Any], Awaitable[T]],
        *,
        retry: bool = True,
        caller: Caller | None = None,
    ) -> T:
        """`op(client)` on the server's connection; `caller` is the session its own requests are answered for."""
        conn = self.connection(server)
        future = asyncio.run_coroutine_threadsafe(
            conn.run(op, retry=retry, caller=caller), self._ensure_loop()
        )
        # the connection bounds connect and call by the server's timeout; this bound only guards a stuck loop
        try:
            return future.result(timeout=2 * conn.config.timeout + 10)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise McpUnavailable(f"MCP server '{server}' did not answer in time") from None

    # --- listing (no side effects: retried once on a fresh connection) ---

    def list_tools(self, server: str, caller: Caller | None = None) -> ToolList:
        """The server's tools (filtered by its `tools` setting), saved to the on-disk cache."""

        async def op(client: Any) -> ToolList:
            tools: list[dict[str, Any]] = []
            cursor = None
            for _ in range(50):  # a paginator that never ends cannot hang the call
                page = await client.list_tools(cursor=cursor)
                tools += [_tool_dict(t) for t in page.tools]
                cursor = page.next_cursor
                if not cursor:
                    break
            return tools

        cfg = self.servers[server] if server in self.servers else self.connection(server).config
        tools = self._run(server, op, caller=caller)
        if cfg.tools:
            tools = [t for t in tools if t["name"] in cfg.tools]
        if self.home is not None:
            save_tool_list(self.home, cfg, tools)
        return tools

    def list_resources(self, server: str, caller: Caller | None = None) -> list[dict[str, Any]]:
        async def op(client: Any) -> list[dict[str, Any]]:
            res = await client.list_resources()
            return [
                {"uri": str(r.uri), "name": r.name, "description": r.description, "mime_type": r.mime_type}
                for r in res.resources
            ]

        return self._run(server, op, caller=caller)

    def list_prompts(self, server: str, caller: Caller | None = None) -> list[dict[str, Any]]:
        async def op(client: Any) -> list[dict[str, Any]]:
            res = await client.list_prompts()
            return [
                {
                    "name": p.name,
                    "description": p.description,
                    "arguments": [
                        {"name": a.name, "required": bool(a.required), "description": a.description}
                        for a in (p.arguments or [])
                    ],
                }
                for p in res.prompts
            ]

        return self._run(server, op, caller=caller)

    def read_resource(self, server: str, uri: str, caller: Caller | None = None) -> Any:
        return self._run(server, lambda client: client.read_resource(uri), caller=caller)

    def get_prompt(
        self, server: str, name: str, arguments: dict[str, str] | None = None, caller: Caller | None = None
    ) -> Any:
        return self._run(server, lambda client: client.get_prompt(name, arguments or None), caller=caller)

    # --- acting (never retried: a call cut off by a crash may have had its effect) ---

    def call_tool(
        self, server: str, tool: str, arguments: dict[str, Any], caller: Caller | None = None
    ) -> Any:
        timeout = self.connection(server).config.timeout
        return self._run(
            server,
            lambda client: client.call_tool(tool, arguments, read_timeout_seconds=timeout),
            retry=False,
            caller=caller,
        )

    def close(self) -> None:
        """Stop every server (stdio processes end) and the loop thread."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None:
            return

        async def stop_all() -> None:
            await asyncio.gather(*(c.close() for c in self._connections.values()), return_exceptions=True)

        with contextlib.suppress(Exception):  # best effort: the server processes die with ours anyway
            asyncio.run_coroutine_threadsafe(stop_all(), loop).result(timeout=15)
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout=5)
        loop.close()


def _tool_dict(tool: Any) -> dict[str, Any]:
    ann = getattr(tool, "annotations", None)
    return {
        "name": tool.name,
        "description": tool.description or "",
        "input_schema": tool.input_schema or {"type": "object", "properties": {}},
        "read_only": bool(ann is not None and ann.read_only_hint),
        # "required": the server runs it only as a task (2025-11-25 task-augmented calls), which the SDK lacks
        "task_support": getattr(getattr(tool, "execution", None), "task_support", None) or "forbidden",
    }


def shared_manager(servers: list[McpServerConfig], home: Path | None) -> McpManager:
    """This process's manager for `home`; a changed server list makes a new one (the old one is closed)."""
    key = str(home)
    with _SHARED_LOCK:
        current = _SHARED.get(key)
        if current is not None and list(current.servers.values()) == servers:
            return current
        if current is not None:
            current.close()
        manager = _SHARED[key] = McpManager(servers, home)
        return manager


@atexit.register
def close_shared() -> None:
    """Stop every shared manager of this process (at exit, and between test modules)."""
    for manager in list(_SHARED.values()):
        manager.close()
    _SHARED.clear()
