"""Matrix through the client-server API (v3) with httpx: /sync long-polls for room events, invites are joined,
m.text and m.file/m.image in, text and uploaded files out, typing notices, approvals by typed answer (the core
spec has no buttons). The account is the Matrix user id (@name:server), stable by design. The sync token is
kept, so a restart resumes where it left off; 429 waits retry_after_ms; other failures back off and retry."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import mimetypes
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlparse

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

log = logging.getLogger("grove.gateway")
API = "/_matrix/client/v3"
POLL_MS = 30_000
# rooms only, messages only: the long poll brings nothing grove does not use
FILTER = (
    '{"presence":{"types":[]},"account_data":{"types":[]},"room":{"timeline":{"types":["m.room.message"]}}}'
)


class RateLimited(Exception):
    def __init__(self, wait: float) -> None:
        super().__init__(f"rate limited for {wait:.1f} s")
        self.wait = wait


class MatrixAdapter(PlatformAdapter):
    name = "matrix"
    max_text = 16_000  # well under the 65,536-byte event limit, even in UTF-8
    token_env = "MATRIX_ACCESS_TOKEN"
    buttons = False

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        self.base = (config.base_url or "").rstrip("/")
        self.user_id = str((config.options or {}).get("user_id") or "")
        self.poll_ms = int((config.options or {}).get("poll_ms") or POLL_MS)
        self.backoff = Backoff(link=self.link)
        self.http: Any = None
        self.txn = 0
        self.synced = asyncio.Event()  # a sync answered since the last failure
        self._stop: asyncio.Event | None = None

    def check(self) -> None:
        self.secret()
        if urlparse(self.base).scheme not in ("http", "https"):
            raise GatewayError(
                "matrix: set gateway.matrix.base_url to the homeserver (https://matrix.example.org)"
            )

    async def open(self) -> None:
        import httpx

        self.check()
        if self.http is None:
            self.http = httpx.AsyncClient(
                base_url=self.base,
                headers={"Authorization": f"Bearer {self.secret()}"},
                timeout=httpx.Timeout(30.0, read=self.poll_ms / 1000 + 30),
            )
        if not self.user_id:
            self.user_id = (await self._call("GET", f"{API}/account/whoami"))["user_id"]

    async def close(self) -> None:
        if self.http is not None:
            await self.http.aclose()
            self.http = None

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        resp = await self.http.request(method, path, **kwargs)
        if resp.status_code == 429:
            body = resp.json() if resp.content else {}
            raise RateLimited(float(body.get("retry_after_ms", 1000)) / 1000)
        if resp.status_code >= 400:
            raise GatewayError(
                f"matrix: {method} {path.split('?')[0]} -> {resp.status_code}: {resp.text[:200]}"
            )
        return resp.json() if resp.content else {}

    # -- receiving ---------------------------------------------------------------------------------------------
    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        import httpx

        await self.open()
        self._stop = asyncio.Event()
        since = self.cursors.cursor(self.name) if self.cursors else None
        while not self._stop.is_set():
            params = {"timeout": str(self.poll_ms if since else 0), "filter": FILTER}
            if since:
                params["since"] = since
            sync = asyncio.get_running_loop().create_task(self._call("GET", f"{API}/sync", params=params))
            stopping = asyncio.get_running_loop().create_task(self._stop.wait())
            await asyncio.wait({sync, stopping}, return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            if not sync.done():
                sync.cancel()
                break
            try:
                body = sync.result()
            except RateLimited as exc:
                log.warning("matrix: %s", exc)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(exc.wait):
                        await self._stop.wait()
                continue
            except (httpx.HTTPError, GatewayError, ValueError) as exc:
                self.synced.clear()
                log.warning("matrix: sync failed (%s); retrying", exc)
                if await self.backoff.wait(self._stop, exc):
                    break
                continue
            self.backoff.reset()
            first = since is None
            since = str(body.get("next_batch", since or ""))
            if not first:  # the first sync ever is history: grove answers only what comes after it starts
                await self._events(body, on_message)
            if self.cursors:
                self.cursors.set_cursor(self.name, since)
            self.synced.set()

    async def _events(self, body: dict[str, Any], on_message: OnMessage) -> None:
        rooms = body.get("rooms") or {}
        for room_id in rooms.get("invite") or {}:
            with contextlib.suppress(
                GatewayError
            ):  # an invite that cannot be taken is not worth stopping for
                await self._call("POST", f"{API}/join/{quote(room_id)}", json={})
        for room_id, room in (rooms.get("join") or {}).items():
            for event in (room.get("timeline") or {}).get("events") or []:
                incoming = self._incoming(room_id, event)
                if incoming is not None:
                    await on_message(incoming)

    def _incoming(self, room_id: str, event: dict[str, Any]) -> Incoming | None:
        sender = str(event.get("sender", ""))
        content = event.get("content") or {}
        if event.get("type") != "m.room.message" or sender == self.user_id or not sender:
            return None
        kind = content.get("msgtype")
        files: list[InboundFile] = []
        text = str(content.get("body", ""))
        if kind in ("m.file", "m.image", "m.audio", "m.video") and str(content.get("url", "")).startswith(
            "mxc://"
        ):
            size = (content.get("info") or {}).get("size")
            files.append(InboundFile(text or "file", self._fetcher(content["url"]), size))
            text = ""
        elif kind not in ("m.text", "m.notice", "m.emote"):
            return None
        return Incoming(
            chat_id=room_id,
            user_id=sender,
            user_name=sender,
            text=text,
            files=files,
            message_id=str(event.get("event_id", "")),
        )

    def _fetcher(self, mxc: str) -> Any:
        server, _, media = mxc.removeprefix("mxc://").partition("/")

        async def fetch() -> bytes:
            # authenticated media (spec v1.11); the token goes only to the configured homeserver
            resp = await self.http.get(f"/_matrix/client/v1/media/download/{quote(server)}/{quote(media)}")
            resp.raise_for_status()
            return bytes(resp.content)

        return fetch

    # -- sending -----------------------------------------------------------------------------------------------
    async def _send_event(self, room_id: str, content: dict[str, Any]) -> None:
        self.txn += 1
        txn = f"grove{time.time_ns()}.{self.txn}"  # a retried PUT with the same id is one message
        path = f"{API}/rooms/{quote(room_id)}/send/m.room.message/{txn}"
        for _ in range(5):
            try:
                await self._call("PUT", path, json=content)
                return
            except RateLimited as exc:
                await asyncio.sleep(exc.wait)
        raise GatewayError(f"matrix: still rate limited sending to {room_id}")

    async def send_text(self, chat_id: str, text: str) -> None:
        await self._send_event(chat_id, {"msgtype": "m.text", "body": text})

    async def send_file(self, chat_id: str, path: Path) -> None:
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        data = path.read_bytes()
        uploaded = await self._call(
            "POST",
            "/_matrix/media/v3/upload",
            params={"filename": path.name},
            content=data,
            headers={"Content-Type": kind},
        )
        msgtype = "m.image" if kind.startswith("image/") else "m.file"
        info = {"mimetype": kind, "size": len(data)}
        await self._send_event(
            chat_id, {"msgtype": msgtype, "body": path.name, "url": uploaded["content_uri"], "info": info}
        )

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        await self.send_text(chat_id, text)

    async def typing(self, chat_id: str) -> None:
        path = f"{API}/rooms/{quote(chat_id)}/typing/{quote(self.user_id)}"
        await self._call("PUT", path, json={"typing": True, "timeout": 5000})
