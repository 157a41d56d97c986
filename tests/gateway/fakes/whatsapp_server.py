"""A fake WhatsApp Cloud API (Graph) on 127.0.0.1 as documented: POST /{phone}/messages and /{phone}/media,
GET /{media id} (a URL on the same server) and the media bytes; it can fail the next calls (500, or 429 with
code 130429) as Graph does. `deliver` POSTs a webhook to grove signed X-Hub-Signature-256 like Meta."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
from typing import Any

import httpx
from tests.gateway.fakes.base import Call, FakeServer, json_body

PHONE_ID = "106540352242922"
TOKEN, APP_SECRET, VERIFY_TOKEN = "EAAG-token", "app-secret", "verify-me"  # what the tests' env holds


class FakeGraph(FakeServer):
    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token
        self.media: dict[str, tuple[str, bytes]] = {}
        self.ids = itertools.count(1)
        self.failures: list[int] = []  # statuses for the next calls

    def handle(
        self, handler: Any, verb: str, path: str, params: dict[str, Any], files: dict[str, Any], raw: bytes
    ) -> tuple[int, bytes, str]:
        if handler.headers.get("Authorization") != f"Bearer {self.token}":
            return json_body({"error": {"message": "Invalid OAuth access token", "code": 190}}, 401)
        if path.startswith("/media-bytes/"):
            return 200, self.media[path.rsplit("/", 1)[1]][1], "application/octet-stream"
        if self.failures:
            status = self.failures.pop(0)
            code = 130429 if status == 429 else 1
            return json_body({"error": {"message": "try later", "code": code}}, status)
        parts = path.strip("/").split("/")
        if verb == "GET" and len(parts) == 2:  # /v21.0/{media id}
            return json_body({"url": f"{self.url}/media-bytes/{parts[1]}", "id": parts[1]})
        if parts[-1] == "media":
            media_id = f"up{next(self.ids)}"
            self.media[media_id] = files["file"]
            self.record(Call("media", params, files))
            return json_body({"id": media_id})
        if parts[-1] == "messages":
            self.record(Call("status" if "status" in params else params.get("type", "?"), params))
            return json_body(
                {"messaging_product": "whatsapp", "messages": [{"id": f"wamid.out{next(self.ids)}"}]}
            )
        return json_body({"error": {"message": f"unknown path {path}", "code": 100}}, 400)

    def texts(self, to: str) -> list[str]:
        return [c.params["text"]["body"] for c in self.sent("text") if c.params["to"] == to]


def webhook(value: dict[str, Any]) -> dict[str, Any]:
    return {
        "object": "whatsapp_business_account",
        "entry": [{"id": "WABA", "changes": [{"field": "messages", "value": value}]}],
    }


def inbound(sender: str, name: str, message: dict[str, Any]) -> dict[str, Any]:
    ident = f"wamid.in{time.time_ns()}"
    return webhook(
        {
            "messaging_product": "whatsapp",
            "metadata": {"display_phone_number": "15550000000", "phone_number_id": PHONE_ID},
            "contacts": [{"profile": {"name": name}, "wa_id": sender}],
            "messages": [
                {
                    "from": sender,
                    "id": message.pop("id", ident),
                    "timestamp": str(int(time.time())),
                    **message,
                }
            ],
        }
    )


def deliver(
    port: int, app_secret: str, payload: dict[str, Any], signature: str | None = None
) -> httpx.Response:
    body = json.dumps(payload).encode()
    mac = hmac.new(app_secret.encode(), body, hashlib.sha256).hexdigest()
    headers = {"Content-Type": "application/json", "X-Hub-Signature-256": signature or f"sha256={mac}"}
    return httpx.post(f"http://127.0.0.1:{port}/whatsapp", content=body, headers=headers, timeout=10)


def gateway_fields(graph: FakeGraph) -> dict[str, Any]:
    """The `gateway.whatsapp` settings that point grove at this fake (the port grove listens on: any free one)."""
    return {"base_url": graph.url + "/v21.0", "port": 0, "options": {"phone_number_id": PHONE_ID}}
