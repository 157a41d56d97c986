"""WhatsApp through Meta's Cloud API, by its documented wire format with aiohttp and httpx: webhooks in (the GET
verification handshake, then POSTs signed `X-Hub-Signature-256` with the app secret), Graph API messages out:
text, documents (uploaded media), reply buttons for approvals, read receipts with a typing indicator. The account
is the sender's WhatsApp id (wa_id). Graph errors that mean "try later" (5xx, 429, code 130429/131056) are retried
with backoff; Meta's webhook redeliveries are answered once (message ids)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import mimetypes
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

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
GRAPH = "https://graph.facebook.com/v21.0"
MEDIA_HOSTS = {"graph.facebook.com", "lookaside.fbsbx.com"}  # the only hosts that ever get the token
LATER = {130429, 131056, 131000, 2}  # rate limits and temporary errors in Graph's error codes
MEDIA_KINDS = ("document", "image", "audio", "video", "sticker")


def signature_ok(secret: str, body: bytes, header: str) -> bool:
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(f"sha256={digest}", header or "")


class WhatsAppAdapter(PlatformAdapter):
    name = "whatsapp"
    max_text = 4096
    token_env = "WHATSAPP_TOKEN"
    secret_env = "WHATSAPP_APP_SECRET"

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        options = config.options or {}
        self.graph = (config.base_url or GRAPH).rstrip("/")
        self.phone_id = str(options.get("phone_number_id") or "")
        self.verify_var = str(options.get("verify_token_env") or "WHATSAPP_VERIFY_TOKEN")
        self.port = config.port
        self.backoff = Backoff(first=0.2, ceiling=10.0)
        self.http: Any = None
        self.last_inbound: dict[str, str] = {}  # chat -> its last message id (read receipts, typing)
        self._stop: asyncio.Event | None = None

    def check(self) -> None:
        self.secret()
        self.secret("secret")
        if not self.phone_id:
            raise GatewayError(
                "whatsapp: set gateway.whatsapp.options.phone_number_id (the business number's id in Meta's app)"
            )

    async def open(self) -> None:
        import httpx

        if self.http is None:
            self.http = httpx.AsyncClient(timeout=30, headers={"Authorization": f"Bearer {self.secret()}"})

    async def close(self) -> None:
        if self.http is not None:
            await self.http.aclose()
            self.http = None

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    # -- receiving ---------------------------------------------------------------------------------------------
    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        from aiohttp import web

        await self.open()
        app_secret = self.secret("secret")

        async def verify(request: web.Request) -> web.Response:
            query = request.query
            expected = os.environ.get(self.verify_var, "")
            if (
                query.get("hub.mode") == "subscribe"
                and expected
                and query.get("hub.verify_token") == expected
            ):
                return web.Response(text=query.get("hub.challenge", ""))
            return web.Response(status=403, text="verify token mismatch")

        async def receive(request: web.Request) -> web.Response:
            body = await request.read()
            if not signature_ok(app_secret, body, request.headers.get("X-Hub-Signature-256", "")):
                log.warning("whatsapp: refused a webhook with a bad X-Hub-Signature-256")
                return web.Response(status=401, text="bad signature")
            try:
                payload = json.loads(body)
            except ValueError:
                return web.Response(status=400, text="not JSON")
            for entry in payload.get("entry") or []:
                for change in entry.get("changes") or []:
                    await self._change(change.get("value") or {}, on_message, on_button)
            return web.Response(text="ok")  # at once: Meta redelivers what is not acknowledged quickly

        routes = [("GET", "/whatsapp", verify), ("POST", "/whatsapp", receive)]
        async with receiving(routes, self.config.host, self.config.port, 2 * 1024 * 1024) as self.port:
            self._stop = asyncio.Event()
            self.link.up()
            await self._stop.wait()

    async def _change(self, value: dict[str, Any], on_message: OnMessage, on_button: OnButton) -> None:
        names = {
            c.get("wa_id"): (c.get("profile") or {}).get("name", "") for c in value.get("contacts") or []
        }
        for msg in value.get("messages") or []:
            sender, kind = str(msg.get("from", "")), msg.get("type")
            if not sender:
                continue
            self.last_inbound[sender] = str(msg.get("id", ""))
            if kind == "interactive" and (msg.get("interactive") or {}).get("type") == "button_reply":
                data = str(msg["interactive"]["button_reply"].get("id", ""))
                pressed = await on_button(sender, sender, names.get(sender, ""), data)
                await self.send_text(sender, pressed.text)
                continue
            text, files = "", []
            if kind == "text":
                text = str((msg.get("text") or {}).get("body", ""))
            elif kind in MEDIA_KINDS:
                media = msg.get(kind) or {}
                text = str(media.get("caption", ""))
                extension = mimetypes.guess_extension(str(media.get("mime_type", ""))) or ""
                name = str(media.get("filename") or f"{kind}-{media.get('id', 'file')}{extension}")
                files.append(InboundFile(name, self._fetcher(str(media.get("id", "")))))
            else:
                continue  # reactions, locations, contacts: not conversation grove takes part in
            await on_message(
                Incoming(
                    sender, sender, text, names.get(sender, ""), files, message_id=str(msg.get("id", ""))
                )
            )

    def _fetcher(self, media_id: str) -> Any:
        async def fetch() -> bytes:
            await self.open()
            info = await self._graph("GET", f"/{media_id}")
            url = str(info.get("url", ""))
            host = urlparse(url).hostname or ""
            if host not in MEDIA_HOSTS and host != urlparse(self.graph).hostname:
                raise GatewayError(
                    f"whatsapp: media URL on {host!r} is not Meta's; not fetched with the token"
                )
            resp = await self.http.get(url)
            resp.raise_for_status()
            return bytes(resp.content)

        return fetch

    # -- sending -----------------------------------------------------------------------------------------------
    async def _graph(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        import httpx

        backoff = Backoff(first=self.backoff.first, ceiling=self.backoff.ceiling)
        never = asyncio.Event()
        for attempt in range(1, 6):
            try:
                resp = await self.http.request(method, f"{self.graph}{path}", **kwargs)
                body = resp.json() if resp.content else {}
                code = (body.get("error") or {}).get("code")
                if resp.status_code < 400:
                    return body
                if resp.status_code < 500 and resp.status_code != 429 and code not in LATER:
                    raise GatewayError(f"whatsapp: {method} {path} -> {resp.status_code}: {resp.text[:200]}")
                why = f"{resp.status_code} (code {code})"
            except (httpx.TransportError, ValueError) as exc:
                why = f"{type(exc).__name__}: {exc}"
            log.warning("whatsapp: Graph API %s failed (%s), try %d of 5", path, why, attempt)
            self.backoff.reconnects += 1
            await backoff.wait(never)
        raise GatewayError(f"whatsapp: Graph API {path} kept failing")

    async def _message(self, to: str, body: dict[str, Any]) -> None:
        await self.open()
        payload = {"messaging_product": "whatsapp", "recipient_type": "individual", "to": to, **body}
        await self._graph("POST", f"/{self.phone_id}/messages", json=payload)

    async def send_text(self, chat_id: str, text: str) -> None:
        await self._message(chat_id, {"type": "text", "text": {"body": text, "preview_url": False}})

    async def send_file(self, chat_id: str, path: Path) -> None:
        await self.open()
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        uploaded = await self._graph(
            "POST",
            f"/{self.phone_id}/media",
            data={"messaging_product": "whatsapp", "type": kind},
            files={"file": (path.name, path.read_bytes(), kind)},
        )
        await self._message(
            chat_id, {"type": "document", "document": {"id": uploaded["id"], "filename": path.name}}
        )

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        buttons = [{"type": "reply", "reply": {"id": c.data, "title": c.label[:20]}} for c in choices[:3]]
        interactive = {"type": "button", "body": {"text": text[:1024]}, "action": {"buttons": buttons}}
        await self._message(chat_id, {"type": "interactive", "interactive": interactive})

    async def typing(self, chat_id: str) -> None:
        message_id = self.last_inbound.get(chat_id)
        if message_id:  # the typing indicator rides on a read receipt of the message being answered
            await self.open()
            body: dict[str, Any] = {
                "messaging_product": "whatsapp",
                "status": "read",
                "message_id": message_id,
            }
            body["typing_indicator"] = {"type": "text"}
            await self._graph("POST", f"/{self.phone_id}/messages", json=body)
