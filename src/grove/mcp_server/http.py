"""`grove mcp serve --http`: streamable HTTP on 127.0.0.1 only, every request carrying the bearer token printed at
start (another local user or a web page must not drive the agent)."""

from __future__ import annotations

import hmac
import secrets
from typing import Any

PATH = "/mcp"
PRINCIPAL_KEY = "grove_mcp_principal"  # the scope-state key naming the token a request came with


def new_token() -> str:
    return secrets.token_urlsafe(24)


def _principal(tokens: dict[str, bytes], given: bytes) -> str | None:
    """The name of the token `given` is, compared in constant time with every one."""
    found = None
    for name, expected in tokens.items():
        if hmac.compare_digest(given, expected):
            found = name
    return found


def guarded(app: Any, token: str | dict[str, str]) -> Any:
    """The ASGI app behind a bearer-token check; anything else is answered 401 before the app sees it. The scheme
    is case-insensitive (RFC 9110); the 401 names it (WWW-Authenticate), so a client reports a wrong token, not
    an OAuth failure. `token` may name several (name -> token): the name is the request's principal (in the
    scope's state), which owns the MCP tasks it creates."""
    tokens = {k: v.encode() for k, v in ({"owner": token} if isinstance(token, str) else token).items()}

    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            scheme, _, value = given.partition(b" ")
            principal = _principal(tokens, value.strip()) if scheme.lower() == b"bearer" else None
            if principal is None:
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"text/plain"),
                            (b"www-authenticate", b'Bearer realm="grove", error="invalid_token"'),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b"missing or wrong bearer token\n"})
                return
            scope.setdefault("state", {})[PRINCIPAL_KEY] = principal
        await app(scope, receive, send)

    return asgi


def http_app(server: Any) -> Any:
    """The SDK's streamable-HTTP app with an event store: a priming event and `retry:` on each stream, and
    resumption by Last-Event-ID."""
    from grove.mcp_server.events import event_store

    return server.streamable_http_app(
        streamable_http_path=PATH, host="127.0.0.1", event_store=event_store(), retry_interval=1000
    )


def serve_http(server: Any, port: int, token: str, ready: Any = None, sock: Any = None) -> None:
    """Run until interrupted. `ready(port)` is called once listening (the real port when 0 was asked)."""
    import anyio
    import uvicorn

    app = guarded(http_app(server), token)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    userver = uvicorn.Server(config)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            # `sock`: bound by the CLI beforehand, so a busy port is its one-line error
            tg.start_soon(lambda: userver.serve(sockets=[sock] if sock is not None else None))
            while not userver.started:
                await anyio.sleep(0.02)
            if ready is not None:
                ready(userver.servers[0].sockets[0].getsockname()[1])

    anyio.run(main)
