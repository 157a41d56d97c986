"""The other side of the signed webhook: a receiver on 127.0.0.1 that checks each message's signature (a bad one
fails the test), records it by type, and can be 'down' (503) for a number of requests; plus a signed sender."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
from tests.gateway.fakes.base import Call, FakeServer, json_body

from grove.gateway.webhook import sign, verify


class Receiver(FakeServer):
    def __init__(self, secret: str) -> None:
        super().__init__()
        self.secret = secret
        self.down = 0  # answer this many requests with 503
        self.refused: list[str] = []

    def handle(
        self, handler: Any, verb: str, path: str, params: dict[str, Any], files: dict[str, Any], raw: bytes
    ) -> tuple[int, bytes, str]:
        why = verify(self.secret, handler.headers, raw)
        if why:
            self.refused.append(why)
            return json_body({"error": why}, 401)
        if self.down > 0:
            self.down -= 1
            return json_body({"error": "restarting"}, 503)
        self.record(Call(params.get("type", "?"), params))
        return json_body({"ok": True})

    def texts(self, chat: str) -> list[str]:
        return [c.params["text"] for c in self.sent("message") if c.params["chat"] == chat]


def post_event(port: int, secret: str, event: dict[str, Any], stamp: float | None = None) -> httpx.Response:
    body = json.dumps(event).encode()
    ts = str(int(time.time() if stamp is None else stamp))
    headers = {
        "Content-Type": "application/json",
        "X-Grove-Timestamp": ts,
        "X-Grove-Signature": sign(secret, ts, body),
    }
    return httpx.post(f"http://127.0.0.1:{port}/webhook", content=body, headers=headers, timeout=10)
