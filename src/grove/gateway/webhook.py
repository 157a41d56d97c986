"""A generic signed webhook: any system can talk to grove by POSTing events and receiving grove's messages at its
own URL. Both ways the body is signed: `X-Grove-Timestamp: <unix seconds>` and `X-Grove-Signature: sha256=<hex
HMAC-SHA256 of "<timestamp>.<body>" keyed with GROVE_WEBHOOK_SECRET>`; an unsigned, mis-signed or stale (5 min)
event is refused with 401, and an event id seen before is answered once. Events and messages: docs/guide/gateways.md."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import json
import logging
import time
from pathlib import Path
from typing import Any

from grove.gateway.adapter import (
    Choice,
    GatewayError,
    InboundFile,
    Incoming,
    OnButton,
    OnMessage,
    PlatformAdapter,
)
from grove.gateway.backoff import Backoff
from grove.gateway.receiver import receiving

log = logging.getLogger("grove.gateway")
TOLERANCE = 300.0  # seconds a signature stays good: a captured event cannot be replayed later
MAX_BODY = 30 * 1024 * 1024
SENDS = 5  # tries per outgoing message before it counts as failed


def sign(secret: str, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def verify(secret: str, headers: Any, body: bytes, now: float | None = None) -> str | None:
    """Why the request is refused, or None when its signature is good and fresh."""
    stamp = headers.get("X-Grove-Timestamp", "")
    given = headers.get("X-Grove-Signature", "")
    if not stamp or not given:
        return "missing X-Grove-Timestamp or X-Grove-Signature"
    try:
        age = abs((time.time() if now is None else now) - float(stamp))
    except ValueError:
        return "X-Grove-Timestamp is not a number of seconds"
    if age > TOLERANCE:
        return f"the timestamp is {age:.0f} s away from now (at most {TOLERANCE:.0f})"
    if not hmac.compare_digest(sign(secret, stamp, body), given):
        return "the signature does not match the body"
    return None


class WebhookAdapter(PlatformAdapter):
    name = "webhook"
    max_text = 20000
    token_env = "GROVE_WEBHOOK_SECRET"

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        self.port = config.port
        self.backoff = Backoff(first=0.1, ceiling=5.0)
        self._stop: asyncio.Event | None = None
        self._http: Any = None

    def check(self) -> None:
        self.secret()
        if not self.config.base_url:
            raise GatewayError(
                "webhook: set gateway.webhook.base_url to the URL grove posts its messages to "
                "(grove config set gateway.webhook.base_url https://example.org/grove)"
            )

    async def open(self) -> None:
        import httpx

        self.check()
        self._http = httpx.AsyncClient(timeout=30)

    async def close(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        from aiohttp import web

        await self.open()
        secret = self.secret()

        async def receive(request: web.Request) -> web.Response:
            body = await request.read()
            refused = verify(secret, request.headers, body)
            if refused:
                log.warning("webhook: refused an event: %s", refused)
                return web.json_response({"ok": False, "error": refused}, status=401)
            try:
                event = json.loads(body)
                kind = event.get("type", "message")
                chat, user = str(event["chat"]), str(event["user"])
            except (ValueError, KeyError, TypeError, AttributeError):
                return web.json_response(
                    {"ok": False, "error": "an event is JSON with chat, user and text (or data)"}, status=400
                )
            if kind == "button":
                pressed = await on_button(
                    chat, user, str(event.get("user_name", "")), str(event.get("data", ""))
                )
                return web.json_response({"ok": True, "text": pressed.text, "decided": pressed.decided})
            files = [_inbound(f) for f in event.get("files") or [] if isinstance(f, dict)]
            # answered through the callback URL; the POST itself returns at once, so the sender never times out
            await on_message(
                Incoming(
                    chat_id=chat,
                    user_id=user,
                    user_name=str(event.get("user_name", "")),
                    text=str(event.get("text", "")),
                    files=files,
                    message_id=str(event.get("id", "")),
                )
            )
            return web.json_response({"ok": True})

        routes = [("POST", "/webhook", receive)]
        async with receiving(routes, self.config.host, self.config.port, MAX_BODY) as self.port:
            self._stop = asyncio.Event()
            self.link.up()
            await self._stop.wait()

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def _post(self, payload: dict[str, Any]) -> None:
        """POST one signed message to the callback URL; a refused or unreachable receiver is retried with backoff
        (the same `id` each time, so the receiver can drop repeats)."""
        if self._http is None:
            await self.open()
        payload = {"id": f"grove-{time.time_ns()}", **payload}
        body = json.dumps(payload, ensure_ascii=False).encode()
        backoff = Backoff(first=self.backoff.first, ceiling=self.backoff.ceiling)
        never = asyncio.Event()
        for attempt in range(1, SENDS + 1):
            stamp = str(int(time.time()))
            headers = {
                "Content-Type": "application/json",
                "X-Grove-Timestamp": stamp,
                "X-Grove-Signature": sign(self.secret(), stamp, body),
            }
            try:
                # open() above set it (pyright keeps the `is None` narrowing across that call)
                resp = await self._http.post(  # pyright: ignore[reportOptionalMemberAccess]
                    str(self.config.base_url), content=body, headers=headers
                )
                if resp.status_code < 300:
                    return
                if resp.status_code < 500 and resp.status_code != 429:
                    raise GatewayError(f"webhook: the receiver refused a message ({resp.status_code})")
                why = f"HTTP {resp.status_code}"
            except GatewayError:
                raise
            except Exception as exc:  # connection refused, reset, timeout: the receiver may be restarting
                why = f"{type(exc).__name__}: {exc}"
            log.warning("webhook: sending failed (%s), try %d of %d", why, attempt, SENDS)
            self.backoff.reconnects += 1
            if attempt < SENDS:
                await backoff.wait(never)
        raise GatewayError(f"webhook: could not deliver to {self.config.base_url} after {SENDS} tries")

    async def send_text(self, chat_id: str, text: str) -> None:
        await self._post({"type": "message", "chat": chat_id, "text": text})

    async def send_file(self, chat_id: str, path: Path) -> None:
        data = base64.b64encode(path.read_bytes()).decode()
        await self._post({"type": "file", "chat": chat_id, "name": path.name, "data_base64": data})

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        buttons = [{"label": c.label, "data": c.data} for c in choices]
        await self._post({"type": "question", "chat": chat_id, "text": text, "choices": buttons})

    async def typing(self, chat_id: str) -> None:
        await self._post({"type": "typing", "chat": chat_id})


def _inbound(item: dict[str, Any]) -> InboundFile:
    raw = str(item.get("data_base64", ""))

    async def fetch() -> bytes:
        try:
            return base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise GatewayError(f"webhook: file {item.get('name')!r} is not valid base64") from exc

    return InboundFile(str(item.get("name") or "file"), fetch, len(raw) * 3 // 4)
