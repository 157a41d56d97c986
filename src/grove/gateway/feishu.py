"""Feishu / Lark through the Open Platform's documented wire format (aiohttp in, httpx out): event subscription
v2.0 posted to grove (the url_verification challenge, the verification token, X-Lark-Signature and the
AES-256-CBC `encrypt` envelope when an encrypt key is set), im.message.receive_v1 for text and files,
card.action.trigger for the buttons of an interactive card (approvals); messages, files and cards out with a
tenant access token that is refreshed before it expires. The account is the sender's open_id. Rate limits and
expired tokens are retried; Feishu's redeliveries are answered once (message ids)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import os
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
FEISHU = "https://open.feishu.cn"  # Lark: https://open.larksuite.com
RATE_LIMITED = {99991400}
TOKEN_EXPIRED = {99991661, 99991663, 99991668}


def decrypt(encrypt_key: str, blob: str) -> bytes:
    """Feishu's envelope: base64(iv + AES-256-CBC(sha256(key), PKCS#7-padded JSON))."""
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    raw = base64.b64decode(blob)
    key = hashlib.sha256(encrypt_key.encode()).digest()
    decryptor = Cipher(algorithms.AES(key), modes.CBC(raw[:16])).decryptor()
    padded = decryptor.update(raw[16:]) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    return unpadder.update(padded) + unpadder.finalize()


def signature(timestamp: str, nonce: str, encrypt_key: str, body: bytes) -> str:
    return hashlib.sha256(timestamp.encode() + nonce.encode() + encrypt_key.encode() + body).hexdigest()


class FeishuAdapter(PlatformAdapter):
    name = "feishu"
    max_text = 30_000  # a text message's content is at most 150 KB of JSON
    token_env = "FEISHU_APP_SECRET"
    secret_env = "FEISHU_VERIFICATION_TOKEN"

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        options = config.options or {}
        self.base = (config.base_url or FEISHU).rstrip("/")
        self.app_id = str(options.get("app_id") or "")
        self.encrypt_var = str(options.get("encrypt_key_env") or "FEISHU_ENCRYPT_KEY")
        self.port = config.port
        self.backoff = Backoff(first=0.2, ceiling=10.0)
        self.http: Any = None
        self.token = ""
        self.token_until = 0.0
        self.bot_open_id = ""
        self._stop: asyncio.Event | None = None

    def check(self) -> None:
        self.secret()
        self.secret("secret")
        if not self.app_id:
            raise GatewayError("feishu: set gateway.feishu.options.app_id (the app's cli_... id)")

    async def open(self) -> None:
        import httpx

        if self.http is None:
            self.http = httpx.AsyncClient(base_url=self.base, timeout=30)

    async def close(self) -> None:
        if self.http is not None:
            await self.http.aclose()
            self.http = None

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    # -- the Open API ------------------------------------------------------------------------------------------
    async def _tenant_token(self, fresh: bool = False) -> str:
        if fresh or not self.token or time.time() > self.token_until:
            resp = await self.http.post(
                "/open-apis/auth/v3/tenant_access_token/internal",
                json={"app_id": self.app_id, "app_secret": self.secret()},
            )
            body = resp.json()
            if body.get("code") != 0:
                raise GatewayError(f"feishu: cannot get a tenant access token: {body.get('msg')}")
            self.token = str(body["tenant_access_token"])
            self.token_until = time.time() + int(body.get("expire", 7200)) - 300  # renewed before it lapses
        return self.token

    async def api(self, method: str, path: str, raw: bool = False, **kwargs: Any) -> Any:
        import httpx

        await self.open()
        backoff = Backoff(first=self.backoff.first, ceiling=self.backoff.ceiling)
        never = asyncio.Event()
        fresh = False
        for attempt in range(1, 6):
            headers = {"Authorization": f"Bearer {await self._tenant_token(fresh)}"}
            fresh = False
            try:
                resp = await self.http.request(method, path, headers=headers, **kwargs)
            except httpx.TransportError as exc:
                why = f"{type(exc).__name__}: {exc}"
            else:
                if raw and resp.status_code == 200:
                    return resp.content
                body = resp.json() if resp.content else {}
                code = body.get("code")
                if resp.status_code == 200 and code == 0:
                    return body.get("data", body)  # bot/v3/info answers at the top level
                if code in TOKEN_EXPIRED:
                    fresh = True
                    continue
                if resp.status_code not in (429, 500, 502, 503, 504) and code not in RATE_LIMITED:
                    raise GatewayError(
                        f"feishu: {method} {path} -> {resp.status_code} code {code}: {body.get('msg')}"
                    )
                why = f"{resp.status_code} code {code}"
            log.warning("feishu: %s failed (%s), try %d of 5", path, why, attempt)
            self.backoff.reconnects += 1
            await backoff.wait(never)
        raise GatewayError(f"feishu: {path} kept failing")

    # -- receiving ---------------------------------------------------------------------------------------------
    def _envelope(self, headers: Any, body: bytes) -> tuple[dict[str, Any] | None, str]:
        """The event, or None and why it is refused."""
        encrypt_key = os.environ.get(self.encrypt_var, "")
        if encrypt_key and headers.get("X-Lark-Signature"):
            stamp, nonce = (
                headers.get("X-Lark-Request-Timestamp", ""),
                headers.get("X-Lark-Request-Nonce", ""),
            )
            if not hmac.compare_digest(
                signature(stamp, nonce, encrypt_key, body), headers["X-Lark-Signature"]
            ):
                return None, "bad X-Lark-Signature"
        try:
            event = json.loads(body)
            if "encrypt" in event:
                if not encrypt_key:
                    return None, f"the event is encrypted: set {self.encrypt_var}"
                event = json.loads(decrypt(encrypt_key, event["encrypt"]))
        except (ValueError, TypeError):
            return None, "not a Feishu event"
        token = (event.get("header") or {}).get("token") or event.get("token")
        if not hmac.compare_digest(str(token or ""), self.secret("secret")):
            return None, "wrong verification token"
        return event, ""

    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        from aiohttp import web

        await self.open()
        info = await self.api("GET", "/open-apis/bot/v3/info")
        self.bot_open_id = str((info.get("bot") or info).get("open_id", ""))

        async def receive(request: web.Request) -> web.Response:
            event, refused = self._envelope(request.headers, await request.read())
            if event is None:
                log.warning("feishu: refused an event: %s", refused)
                return web.json_response({"msg": refused}, status=401)
            if event.get("type") == "url_verification":
                return web.json_response({"challenge": event.get("challenge", "")})
            kind = (event.get("header") or {}).get("event_type")
            body = event.get("event") or {}
            if kind == "card.action.trigger":
                return web.json_response(await self._press(body, on_button))
            if kind == "im.message.receive_v1":
                incoming = self._incoming(body)
                if incoming is not None:
                    await on_message(incoming)
            return web.json_response({})

        routes = [("POST", "/feishu/events", receive)]
        async with receiving(routes, self.config.host, self.config.port, 2 * 1024 * 1024) as self.port:
            self._stop = asyncio.Event()
            self.link.up()
            await self._stop.wait()

    def _incoming(self, body: dict[str, Any]) -> Incoming | None:
        sender = body.get("sender") or {}
        message = body.get("message") or {}
        open_id = str((sender.get("sender_id") or {}).get("open_id", ""))
        if sender.get("sender_type") != "user" or not open_id:
            return None  # other apps and bots
        try:
            content = json.loads(message.get("content") or "{}")
        except ValueError:
            return None
        mentions = message.get("mentions") or []
        mentioned = any((m.get("id") or {}).get("open_id") == self.bot_open_id for m in mentions)
        if message.get("chat_type") != "p2p" and not mentioned:
            return None  # in groups grove answers only when mentioned
        text, files = "", []
        kind, message_id = message.get("message_type"), str(message.get("message_id", ""))
        if kind == "text":
            text = str(content.get("text", ""))
            for mention in mentions:  # "@_user_1" placeholders
                text = text.replace(str(mention.get("key", "")), "").strip()
        elif kind in ("file", "image"):
            key = str(content.get("file_key") or content.get("image_key") or "")
            name = str(content.get("file_name") or f"image-{key}.png")
            files.append(InboundFile(name, self._fetcher(message_id, key, kind)))
        else:
            return None
        return Incoming(str(message.get("chat_id", "")), open_id, text, "", files, message_id=message_id)

    def _fetcher(self, message_id: str, key: str, kind: str) -> Any:
        async def fetch() -> bytes:
            path = f"/open-apis/im/v1/messages/{message_id}/resources/{key}"
            return bytes(await self.api("GET", path, raw=True, params={"type": kind}))

        return fetch

    async def _press(self, body: dict[str, Any], on_button: OnButton) -> dict[str, Any]:
        operator = str((body.get("operator") or {}).get("open_id", ""))
        chat = str((body.get("context") or {}).get("open_chat_id", ""))
        data = str(((body.get("action") or {}).get("value") or {}).get("data", ""))
        pressed = await on_button(chat, operator, "", data)
        answer: dict[str, Any] = {
            "toast": {"type": "success" if pressed.decided else "info", "content": pressed.text}
        }
        if pressed.decided:  # the card loses its buttons and says what was chosen
            answer["card"] = {"type": "raw", "data": _card(f"→ {pressed.text}", [])}
        return answer

    # -- sending -----------------------------------------------------------------------------------------------
    async def _send(self, chat_id: str, msg_type: str, content: dict[str, Any]) -> None:
        body = {
            "receive_id": chat_id,
            "msg_type": msg_type,
            "content": json.dumps(content, ensure_ascii=False),
        }
        await self.api("POST", "/open-apis/im/v1/messages", params={"receive_id_type": "chat_id"}, json=body)

    async def send_text(self, chat_id: str, text: str) -> None:
        await self._send(chat_id, "text", {"text": text})

    async def send_file(self, chat_id: str, path: Path) -> None:
        uploaded = await self.api(
            "POST",
            "/open-apis/im/v1/files",
            data={"file_type": "stream", "file_name": path.name},
            files={"file": (path.name, path.read_bytes())},
        )
        await self._send(chat_id, "file", {"file_key": uploaded["file_key"]})

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        await self._send(chat_id, "interactive", _card(text, choices))

    async def typing(self, chat_id: str) -> None:
        return None  # the Open Platform has no typing indicator


def _card(text: str, choices: list[Choice]) -> dict[str, Any]:
    elements: list[dict[str, Any]] = [{"tag": "div", "text": {"tag": "plain_text", "content": text[:3000]}}]
    if choices:
        buttons = [
            {
                "tag": "button",
                "text": {"tag": "plain_text", "content": c.label},
                "type": "danger" if c.data.endswith(":deny") else "primary",
                "value": {"data": c.data},
            }
            for c in choices
        ]
        elements.append({"tag": "action", "actions": buttons})
    return {"config": {"wide_screen_mode": True}, "elements": elements}
