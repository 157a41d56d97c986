"""Mattermost through its API v4 with aiohttp: the websocket's `posted` events in (DMs, and channel posts that
mention grove), REST posts and file uploads out, typing over the websocket, approvals as interactive message
buttons (Mattermost POSTs a press to grove's action URL; each button's context carries an HMAC, so only a press
of a button grove made counts). The websocket resumes with its connection id and sequence number after a drop,
and post ids are answered once."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
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
from grove.gateway.receiver import start_receiver

log = logging.getLogger("grove.gateway")
API = "/api/v4"


class MattermostAdapter(PlatformAdapter):
    name = "mattermost"
    max_text = 16_000  # the server's post limit (16,383 characters)
    token_env = "MATTERMOST_TOKEN"

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        self.base = (config.base_url or "").rstrip("/")
        options = config.options or {}
        # where Mattermost posts button presses: grove's own listener (host/port), as the server reaches it
        self.action_url = str(options.get("action_url") or "")
        self.port = config.port
        self.backoff = Backoff(link=self.link)
        self.http: Any = None
        self.ws: Any = None
        self.me = ""
        self.username = ""
        self.seq = 0
        self.connection_id = ""  # the server's id of our websocket, to resume it with the missed events
        self.last_event = 0
        self.connected = asyncio.Event()
        self.key = secrets.token_bytes(32)  # signs buttons' contexts for this run
        self._stop: asyncio.Event | None = None

    def check(self) -> None:
        self.secret()
        if urlparse(self.base).scheme not in ("http", "https"):
            raise GatewayError(
                "mattermost: set gateway.mattermost.base_url to the server (https://chat.example.org)"
            )

    async def open(self) -> None:
        import aiohttp

        self.check()
        if self.http is None:
            self.http = aiohttp.ClientSession(headers={"Authorization": f"Bearer {self.secret()}"})
        if not self.me:
            me = await self._rest("GET", "/users/me")
            self.me, self.username = me["id"], me.get("username", "")

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None
        if self.http is not None:
            await self.http.close()
            self.http = None

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def _rest(self, method: str, path: str, **kwargs: Any) -> Any:
        for _ in range(5):
            async with self.http.request(method, f"{self.base}{API}{path}", **kwargs) as resp:
                if resp.status == 429:  # X-Ratelimit-Reset: seconds until the window refills
                    await asyncio.sleep(float(resp.headers.get("X-Ratelimit-Reset", "1") or 1))
                    continue
                if resp.status >= 400:
                    text = await resp.text()
                    raise GatewayError(f"mattermost: {method} {path} -> {resp.status}: {text[:200]}")
                return await resp.json() if resp.content_type == "application/json" else await resp.read()
        raise GatewayError(f"mattermost: still rate limited on {method} {path}")

    # -- receiving ---------------------------------------------------------------------------------------------
    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        import aiohttp

        self._stop = asyncio.Event()
        runner = await self._actions(on_button)
        try:
            while not self._stop.is_set():
                lost: Exception | None = None
                try:
                    await self.open()
                    await self._listen(on_message)
                except (aiohttp.ClientError, OSError, GatewayError, ConnectionError, TimeoutError) as exc:
                    log.warning("mattermost: websocket lost (%s); reconnecting", exc)
                    lost = exc
                finally:
                    self.connected.clear()
                if self._stop.is_set() or await self.backoff.wait(self._stop, lost):
                    break
        finally:
            await runner.cleanup()

    async def _listen(self, on_message: OnMessage) -> None:
        url = self.base.replace("http", "ws", 1) + f"{API}/websocket"
        params = {"connection_id": self.connection_id, "sequence_number": str(self.last_event)}
        headers = {"Authorization": f"Bearer {self.secret()}"}
        async with self.http.ws_connect(url, params=params, headers=headers, heartbeat=30) as ws:
            self.ws = ws
            # run() made _stop before it connects, the only way here
            stopping = asyncio.get_running_loop().create_task(self._stop.wait())  # pyright: ignore[reportOptionalMemberAccess]
            try:
                while True:
                    receiving = asyncio.get_running_loop().create_task(ws.receive())
                    await asyncio.wait({receiving, stopping}, return_when=asyncio.FIRST_COMPLETED)
                    if stopping.done():
                        receiving.cancel()
                        return
                    msg = receiving.result()
                    if msg.type.name != "TEXT":
                        raise ConnectionError(f"the websocket closed ({msg.type.name})")
                    await self._event(json.loads(msg.data), on_message)
            finally:
                stopping.cancel()
                self.ws = None

    async def _event(self, event: dict[str, Any], on_message: OnMessage) -> None:
        if "seq" in event and "event" in event:
            self.last_event = int(event["seq"])
        kind = event.get("event")
        if kind == "hello":
            self.connection_id = str((event.get("data") or {}).get("connection_id", ""))
            self.connected.set()
            self.backoff.reset()
        elif kind == "posted":
            data = event.get("data") or {}
            post = json.loads(data.get("post") or "{}")
            incoming = self._incoming(data, post)
            if incoming is not None:
                await on_message(incoming)

    def _incoming(self, data: dict[str, Any], post: dict[str, Any]) -> Incoming | None:
        if post.get("user_id") in (None, "", self.me) or post.get("type"):  # ours, system messages
            return None
        text = str(post.get("message", ""))
        if data.get("channel_type") != "D":  # in channels grove answers only when mentioned
            if self.me not in json.loads(data.get("mentions") or "[]"):
                return None
            text = text.replace(f"@{self.username}", "").strip()
        known = {f.get("id"): f for f in (post.get("metadata") or {}).get("files") or []}
        files = [self._inbound(fid, known.get(fid) or {}) for fid in post.get("file_ids") or []]
        return Incoming(
            chat_id=str(post["channel_id"]),
            user_id=str(post["user_id"]),
            user_name=str(data.get("sender_name", "")),
            text=text,
            files=files,
            message_id=str(post.get("id", "")),
        )

    def _inbound(self, file_id: str, info: dict[str, Any]) -> InboundFile:
        async def fetch() -> bytes:
            return bytes(await self._rest("GET", f"/files/{file_id}"))

        return InboundFile(str(info.get("name") or file_id), fetch, info.get("size"))

    # -- button presses ----------------------------------------------------------------------------------------
    def _mac(self, data: str, channel: str) -> str:
        return hmac.new(self.key, f"{channel}\0{data}".encode(), hashlib.sha256).hexdigest()

    async def _actions(self, on_button: OnButton) -> Any:
        from aiohttp import web

        async def press(request: web.Request) -> web.Response:
            try:
                body = await request.json()
                context = body.get("context") or {}
                data, channel, mac = str(context["data"]), str(body["channel_id"]), str(context["mac"])
            except (ValueError, KeyError, TypeError, AttributeError):
                return web.json_response({"ephemeral_text": "Unknown button."}, status=400)
            if not hmac.compare_digest(mac, self._mac(data, channel)):
                return web.json_response({"ephemeral_text": "Unknown button."}, status=403)
            pressed = await on_button(channel, str(body.get("user_id", "")), "", data)
            if not pressed.decided:
                return web.json_response({"ephemeral_text": pressed.text})
            question = str(context.get("question", ""))
            return web.json_response({"update": {"message": f"{question}\n\n→ {pressed.text}", "props": {}}})

        routes = [("POST", "/mattermost/actions", press)]
        runner, self.port = await start_receiver(routes, self.config.host, self.config.port)
        if not self.action_url:
            self.action_url = f"http://{self.config.host}:{self.port}/mattermost/actions"
        return runner

    # -- sending -----------------------------------------------------------------------------------------------
    async def send_text(self, chat_id: str, text: str) -> None:
        await self.open()
        await self._rest("POST", "/posts", json={"channel_id": chat_id, "message": text})

    async def send_file(self, chat_id: str, path: Path) -> None:
        import aiohttp

        await self.open()
        form = aiohttp.FormData()
        form.add_field("channel_id", chat_id)
        form.add_field("files", path.read_bytes(), filename=path.name)
        uploaded = await self._rest("POST", "/files", data=form)
        ids = [f["id"] for f in uploaded.get("file_infos") or []]
        await self._rest("POST", "/posts", json={"channel_id": chat_id, "message": "", "file_ids": ids})

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        actions = [
            {
                "id": f"grove{i}",
                "name": c.label,
                "style": "danger" if c.data.endswith(":deny") else "default",
                "integration": {
                    "url": self.action_url,
                    "context": {"data": c.data, "mac": self._mac(c.data, chat_id), "question": text[:3000]},
                },
            }
            for i, c in enumerate(choices)
        ]
        props = {"attachments": [{"text": text, "actions": actions}]}
        await self._rest("POST", "/posts", json={"channel_id": chat_id, "message": "", "props": props})

    async def typing(self, chat_id: str) -> None:
        if self.ws is not None:
            self.seq += 1
            with contextlib.suppress(Exception):
                await self.ws.send_json(
                    {"action": "user_typing", "seq": self.seq, "data": {"channel_id": chat_id}}
                )
