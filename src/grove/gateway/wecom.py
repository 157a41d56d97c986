"""WeCom (WeChat Work) through a self-built app's callback mode, by the documented wire format (aiohttp in, httpx
out): the GET URL check and POSTed XML, both signed (msg_signature = sha1 of the sorted token, timestamp, nonce
and ciphertext) and AES-256-CBC encrypted with the EncodingAESKey (random 16 bytes, length, message, corp id;
PKCS#7 to 32 bytes); text and images in; text, files and template-card buttons (approvals) out through
/cgi-bin/message/send with an access token refreshed on expiry. The account is the member's userid. Rate limits
(45009) and expired tokens (42001, 40014) are retried; redelivered callbacks are answered once (MsgId)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import os
import struct
import time
import xml.etree.ElementTree as ET
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
QYAPI = "https://qyapi.weixin.qq.com"
LATER = {45009, -1}  # over the rate limit; the system is busy
EXPIRED = {42001, 40014}
MAX_BODY = 256 * 1024


def msg_signature(token: str, timestamp: str, nonce: str, encrypted: str) -> str:
    return hashlib.sha1("".join(sorted([token, timestamp, nonce, encrypted])).encode()).hexdigest()


def _aes_key(encoding_key: str) -> bytes:
    return base64.b64decode(encoding_key + "=")


def decrypt(encoding_key: str, corp_id: str, blob: str) -> bytes:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    key = _aes_key(encoding_key)
    decryptor = Cipher(algorithms.AES(key), modes.CBC(key[:16])).decryptor()
    plain = decryptor.update(base64.b64decode(blob)) + decryptor.finalize()
    plain = plain[: -plain[-1]] if 0 < plain[-1] <= 32 else plain  # PKCS#7 over 32-byte blocks
    (length,) = struct.unpack(">I", plain[16:20])
    message, receiver = plain[20 : 20 + length], plain[20 + length :].decode()
    if receiver != corp_id:
        raise ValueError("the message is for another corp")
    return message


def encrypt(encoding_key: str, corp_id: str, message: bytes) -> str:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    key = _aes_key(encoding_key)
    body = os.urandom(16) + struct.pack(">I", len(message)) + message + corp_id.encode()
    pad = 32 - len(body) % 32
    body += bytes([pad]) * pad
    encryptor = Cipher(algorithms.AES(key), modes.CBC(key[:16])).encryptor()
    return base64.b64encode(encryptor.update(body) + encryptor.finalize()).decode()


class WeComAdapter(PlatformAdapter):
    name = "wecom"
    max_text = 2000  # a text message's content is at most 2,048 bytes
    token_env = "WECOM_SECRET"  # the app's secret
    secret_env = "WECOM_TOKEN"  # the callback's Token

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        options = config.options or {}
        self.base = (config.base_url or QYAPI).rstrip("/")
        self.corp_id = str(options.get("corp_id") or "")
        self.agent_id = int(options.get("agent_id") or 0)
        self.aes_var = str(options.get("aes_key_env") or "WECOM_AES_KEY")
        self.port = config.port
        self.backoff = Backoff(first=0.2, ceiling=10.0)
        self.http: Any = None
        self.access, self.access_until = "", 0.0
        self._stop: asyncio.Event | None = None

    def aes_key(self) -> str:
        value = os.environ.get(self.aes_var, "")
        if len(value) != 43:
            raise GatewayError(f"wecom: set {self.aes_var} to the callback's 43-character EncodingAESKey")
        return value

    def check(self) -> None:
        self.secret()
        self.secret("secret")
        self.aes_key()
        if not self.corp_id or not self.agent_id:
            raise GatewayError("wecom: set gateway.wecom.options.corp_id and options.agent_id")

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

    # -- the API -----------------------------------------------------------------------------------------------
    async def _token(self, fresh: bool = False) -> str:
        if fresh or not self.access or time.time() > self.access_until:
            resp = await self.http.get(
                "/cgi-bin/gettoken", params={"corpid": self.corp_id, "corpsecret": self.secret()}
            )
            body = resp.json()
            if body.get("errcode", 0) != 0:
                raise GatewayError(f"wecom: cannot get an access token: {body.get('errmsg')}")
            self.access, self.access_until = (
                body["access_token"],
                time.time() + int(body.get("expires_in", 7200)) - 300,
            )
        return self.access

    async def api(self, method: str, path: str, raw: bool = False, **kwargs: Any) -> Any:
        await self.open()
        backoff = Backoff(first=self.backoff.first, ceiling=self.backoff.ceiling)
        never = asyncio.Event()
        fresh = False
        for attempt in range(1, 6):
            params = {**kwargs.pop("params", {}), "access_token": await self._token(fresh)}
            fresh = False
            resp = await self.http.request(method, path, params=params, **kwargs)
            kwargs["params"] = {k: v for k, v in params.items() if k != "access_token"}
            if (
                raw
                and resp.status_code == 200
                and not resp.headers.get("content-type", "").startswith("application/json")
            ):
                return resp.content
            body = resp.json() if resp.content else {}
            code = body.get("errcode", 0)
            if resp.status_code == 200 and code == 0:
                return body
            if code in EXPIRED:
                fresh = True
                continue
            if code not in LATER and resp.status_code < 500:
                raise GatewayError(f"wecom: {path} -> errcode {code}: {body.get('errmsg')}")
            log.warning("wecom: %s answered %s, try %d of 5", path, code or resp.status_code, attempt)
            self.backoff.reconnects += 1
            await backoff.wait(never)
        raise GatewayError(f"wecom: {path} kept failing")

    # -- receiving ---------------------------------------------------------------------------------------------
    def _open_envelope(self, query: Any, encrypted: str) -> bytes | None:
        token = self.secret("secret")
        expected = msg_signature(token, query.get("timestamp", ""), query.get("nonce", ""), encrypted)
        if not hmac.compare_digest(expected, query.get("msg_signature", "")):
            return None
        try:
            return decrypt(self.aes_key(), self.corp_id, encrypted)
        except (ValueError, struct.error, UnicodeDecodeError):
            return None

    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        from aiohttp import web

        await self.open()

        async def verify(request: web.Request) -> web.Response:
            plain = self._open_envelope(request.query, request.query.get("echostr", ""))
            if plain is None:
                return web.Response(status=401, text="bad signature")
            return web.Response(text=plain.decode())

        async def receive(request: web.Request) -> web.Response:
            try:
                outer = ET.fromstring(await request.read())
                encrypted = outer.findtext("Encrypt") or ""
            except ET.ParseError:
                return web.Response(status=400, text="not XML")
            plain = self._open_envelope(request.query, encrypted)
            if plain is None:
                log.warning("wecom: refused a callback with a bad signature")
                return web.Response(status=401, text="bad signature")
            await self._message(ET.fromstring(plain), on_message, on_button)
            return web.Response(text="success")

        routes = [("GET", "/wecom", verify), ("POST", "/wecom", receive)]
        async with receiving(routes, self.config.host, self.config.port, MAX_BODY) as self.port:
            self._stop = asyncio.Event()
            self.link.up()
            await self._stop.wait()

    async def _message(self, msg: ET.Element, on_message: OnMessage, on_button: OnButton) -> None:
        user = msg.findtext("FromUserName") or ""
        kind = msg.findtext("MsgType")
        if not user:
            return
        if kind == "event" and msg.findtext("Event") == "template_card_event":
            pressed = await on_button(user, user, "", msg.findtext("EventKey") or "")
            await self.send_text(user, pressed.text)
            return
        text, files = "", []
        if kind == "text":
            text = msg.findtext("Content") or ""
        elif kind in ("image", "file"):
            media = msg.findtext("MediaId") or ""
            name = msg.findtext("FileName") or f"{kind}-{media[:12]}.{'jpg' if kind == 'image' else 'bin'}"
            files.append(InboundFile(name, self._fetcher(media)))
        else:
            return
        await on_message(Incoming(user, user, text, "", files, message_id=msg.findtext("MsgId") or ""))

    def _fetcher(self, media_id: str) -> Any:
        async def fetch() -> bytes:
            return bytes(await self.api("GET", "/cgi-bin/media/get", raw=True, params={"media_id": media_id}))

        return fetch

    # -- sending -----------------------------------------------------------------------------------------------
    async def _send(self, user: str, kind: str, body: dict[str, Any]) -> None:
        payload = {
            "touser": user,
            "msgtype": kind,
            "agentid": self.agent_id,
            kind: body,
            "enable_duplicate_check": 0,
        }
        await self.api("POST", "/cgi-bin/message/send", json=payload)

    async def send_text(self, chat_id: str, text: str) -> None:
        await self._send(chat_id, "text", {"content": text})

    async def send_file(self, chat_id: str, path: Path) -> None:
        uploaded = await self.api(
            "POST",
            "/cgi-bin/media/upload",
            params={"type": "file"},
            files={"media": (path.name, path.read_bytes())},
        )
        await self._send(chat_id, "file", {"media_id": uploaded["media_id"]})

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        await self.send_text(chat_id, text)  # the whole question; a card's texts are a few dozen bytes
        card = {
            "card_type": "button_interaction",
            "main_title": {"title": "grove asks for approval", "desc": "see the message above"},
            "task_id": f"grove{time.time_ns()}",
            "button_list": [
                {"text": c.label, "style": 2 if c.data.endswith(":deny") else 1, "key": c.data}
                for c in choices
            ],
        }
        await self._send(chat_id, "template_card", card)

    async def typing(self, chat_id: str) -> None:
        return None  # app messages have no typing indicator
