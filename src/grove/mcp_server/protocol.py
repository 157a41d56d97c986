"""The MCP methods grove's server answers beyond its tools, so standard clients and the conformance suite get
answers instead of "method not found": logging/setLevel, completion/complete (nothing to complete: grove offers
no prompts or resource templates), resources/subscribe and unsubscribe, and a tools/list that refuses a cursor
it never gave out."""

from __future__ import annotations

from typing import Any


def add_protocol_handlers(server: Any) -> None:
    """Registers the handlers on the SDK's MCPServer (its low-level server holds the method table)."""
    from mcp import types
    from mcp.shared.exceptions import MCPError

    lowlevel = server._lowlevel_server  # the SDK offers no decorator for these methods on MCPServer
    state: dict[str, Any] = {"level": "info", "subscribed": set()}

    async def set_level(_ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        state["level"] = params.level
        return types.EmptyResult()

    async def subscribe(_ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
        state["subscribed"].add(str(params.uri))  # grove's resources never change while it serves
        return types.EmptyResult()

    async def unsubscribe(_ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        state["subscribed"].discard(str(params.uri))
        return types.EmptyResult()

    tools_list = lowlevel.get_request_handler("tools/list").handler

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        if params is not None and params.cursor is not None:  # one page: no cursor was ever handed out
            raise MCPError(types.INVALID_PARAMS, f"invalid cursor {params.cursor!r}: tools/list has one page")
        return await tools_list(ctx, params)

    lowlevel.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
    lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, unsubscribe)
    lowlevel.add_request_handler("tools/list", types.PaginatedRequestParams, list_tools)

    @server.completion()
    async def complete(_ref: Any, _argument: Any, _context: Any) -> None:
        return None  # an empty completion
