"""A cap on request bodies, as ASGI middleware: a declared Content-Length over the cap is refused before any of
the body is read, and a body without one (chunked) is read up to the cap and refused past it (413 either way)."""

from __future__ import annotations

import json
from typing import Any

Scope = dict[str, Any]
Receive = Any
Send = Any


class BodyLimit:
    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(send)
            return
        if declared is not None:
            await self.app(scope, receive, send)  # the server stops reading at Content-Length
            return
        # no length given (chunked): read it all first, up to the cap, then hand it on
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            seen += len(chunks[-1])
            if seen > self.max_bytes:
                await self._refuse(send)
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps(
            {
                "error": {
                    "message": f"request body over {self.max_bytes} bytes; send less (long histories: use a "
                    "conversation id, grove keeps the history itself)",
                    "type": "invalid_request_error",
                    "code": "request_too_large",
                    "param": None,
                }
            }
        ).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})
