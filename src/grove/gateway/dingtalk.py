"""DingTalk through its Stream mode by the documented wire format (aiohttp websocket, httpx REST): grove opens a
connection (POST /v1.0/gateway/connections/open with the app's key and secret), receives robot messages on the
websocket and acknowledges each, answers on the message's session webhook, sends files through the robot API,
downloads files by download code; approvals by typed answer (robot messages have no callback buttons). The
account is the sender's staff id. A dropped socket (or DingTalk's `disconnect`) is reopened with backoff;
redeliveries are answered once (message ids)."""

from __future__ import annotations

import asyncio
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

log = logging.getLogger("grove.gateway")
API = "https://api.dingtalk.com"
OAPI = "https://oapi.dingtalk.com"  # the older API, where media are uploaded
TOPIC = "/v1.0/im/bot/messages/get"


class DingTalkAdapter(PlatformAdapter):
    name = "dingtalk"
    max_text = 5000  # a text message's content limit
    token_env = "DINGTALK_APP_SECRET"
    buttons = False

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        options = config.options or {}
        self.base = (config.base_url or API).rstrip("/")
        self.app_key = str(options.get("app_key") or "")  # the client id; also the robot code
        self.robot_code = str(options.get("robot_code") or self.app_key)
        self.oapi = str(options.get("oapi_url") or (config.base_url or OAPI)).rstrip("/")
        self.backoff = Backoff(link=self.link)
        self.http: Any = None
        self.session: Any = None
        self.webhooks: dict[str, tuple[str, float]] = {}  # chat -> (session webhook, expires at, ms)
        self.users: dict[str, str] = {}  # chat -> the staff id who last wrote in it (files go to people)
        self.token = ""
        self.token_until = 0.0
        self.connected = asyncio.Event()
        self._stop: asyncio.Event | None = None

    def check(self) -> None:
        self.secret()
        if not self.app_key:
            raise GatewayError("dingtalk: set gateway.dingtalk.options.app_key (the app's client id)")

    async def open(self) -> None:
        import httpx

        if self.http is None:
            self.http = httpx.AsyncClient(base_url=self.base, timeout=30)

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()
            self.session = None
        if self.http is not None:
            await self.http.aclose()
            self.http = None

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def _access_token(self) -> str:
        if not self.token or time.time() > self.token_until:
            resp = await self.http.post(
                "/v1.0/oauth2/accessToken", json={"appKey": self.app_key, "appSecret": self.secret()}
            )
            if resp.status_code >= 400:
                raise GatewayError(
                    f"dingtalk: cannot get an access token ({resp.status_code}: {resp.text[:200]})"
                )
            body = resp.json()
            self.token, self.token_until = (
                body["accessToken"],
                time.time() + int(body.get("expireIn", 7200)) - 300,
            )
        return self.token

    async def _api(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"x-acs-dingtalk-access-token": await self._access_token()}
        for _ in range(5):
            resp = await self.http.post(path, json=body, headers=headers)
            if resp.status_code == 429 or resp.status_code >= 500:  # throttled or busy: a moment later
                await asyncio.sleep(0.5)
                continue
            if resp.status_code >= 400:
                raise GatewayError(f"dingtalk: {path} -> {resp.status_code}: {resp.text[:200]}")
            return resp.json() if resp.content else {}
        raise GatewayError(f"dingtalk: {path} kept failing")

    # -- receiving ---------------------------------------------------------------------------------------------
    async def connect(self, on_message: OnMessage, on_button: OnButton) -> None:
        import aiohttp
        import httpx

        await self.open()
        self._stop = asyncio.Event()
        self.session = aiohttp.ClientSession()
        while not self._stop.is_set():
            lost: Exception | None = None
            try:
                await self._stream(on_message)
            except (aiohttp.ClientError, httpx.HTTPError, OSError, GatewayError, ConnectionError) as exc:
                log.warning("dingtalk: stream lost (%s); reconnecting", exc)
                lost = exc
            finally:
                self.connected.clear()
            if self._stop.is_set() or await self.backoff.wait(self._stop, lost):
                break

    async def _stream(self, on_message: OnMessage) -> None:
        resp = await self.http.post(
            "/v1.0/gateway/connections/open",
            json={
                "clientId": self.app_key,
                "clientSecret": self.secret(),
                "subscriptions": [{"type": "CALLBACK", "topic": TOPIC}],
                "ua": "grove",
            },
        )
        if resp.status_code >= 400:
            raise GatewayError(f"dingtalk: cannot open a stream ({resp.status_code}: {resp.text[:200]})")
        ticket = resp.json()
        url = f"{ticket['endpoint']}?ticket={ticket['ticket']}"
        async with self.session.ws_connect(url, heartbeat=30) as ws:
            self.connected.set()
            self.backoff.reset()
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
                        raise ConnectionError(f"the stream closed ({msg.type.name})")
                    frame = json.loads(msg.data)
                    if not await self._frame(ws, frame, on_message):
                        return  # DingTalk asked us to reconnect
            finally:
                stopping.cancel()

    async def _frame(self, ws: Any, frame: dict[str, Any], on_message: OnMessage) -> bool:
        """Handle one frame; False when the server asks for a new connection."""
        headers = frame.get("headers") or {}
        kind, topic = frame.get("type"), headers.get("topic")
        ack = {
            "code": 200,
            "headers": {"contentType": "application/json", "messageId": headers.get("messageId")},
        }
        if kind == "SYSTEM":
            if topic == "disconnect":
                return False
            await ws.send_json({**ack, "message": "OK", "data": frame.get("data", "")})  # ping: echo its data
            return True
        # the ack goes first: DingTalk redelivers what it does not see acknowledged in time
        await ws.send_json({**ack, "message": "OK", "data": json.dumps({"response": None})})
        if kind == "CALLBACK" and topic == TOPIC:
            incoming = self._incoming(json.loads(frame.get("data") or "{}"))
            if incoming is not None:
                await on_message(incoming)
        return True

    def _incoming(self, data: dict[str, Any]) -> Incoming | None:
        chat, user = str(data.get("conversationId", "")), str(data.get("senderStaffId") or "")
        if not chat or not user:
            return None  # an external contact without a staff id has no stable account here
        if data.get("sessionWebhook"):
            self.webhooks[chat] = (
                str(data["sessionWebhook"]),
                float(data.get("sessionWebhookExpiredTime", 0)),
            )
        self.users[chat] = user
        kind, text, files = data.get("msgtype"), "", []
        if kind == "text":
            text = str((data.get("text") or {}).get("content", "")).strip()
        elif kind in ("file", "picture"):
            content = data.get("content") or {}
            name = str(content.get("fileName") or "picture.png")
            files.append(InboundFile(name, self._fetcher(str(content.get("downloadCode", "")))))
        else:
            return None
        return Incoming(
            chat, user, text, str(data.get("senderNick", "")), files, message_id=str(data.get("msgId", ""))
        )

    def _fetcher(self, code: str) -> Any:
        async def fetch() -> bytes:
            found = await self._api(
                "/v1.0/robot/messageFiles/download", {"downloadCode": code, "robotCode": self.robot_code}
            )
            resp = await self.http.get(found["downloadUrl"])
            resp.raise_for_status()
            return bytes(resp.content)

        return fetch

    # -- sending -----------------------------------------------------------------------------------------------
    async def _to_people(self, chat_id: str, key: str, param: dict[str, Any]) -> None:
        user = self.users.get(chat_id, chat_id)
        body = {"robotCode": self.robot_code, "userIds": [user], "msgKey": key, "msgParam": json.dumps(param)}
        await self._api("/v1.0/robot/oToMessages/batchSend", body)

    async def send_text(self, chat_id: str, text: str) -> None:
        await self.open()
        hook, until = self.webhooks.get(chat_id, ("", 0.0))
        if hook and until > time.time() * 1000 + 5000:
            resp = await self.http.post(hook, json={"msgtype": "text", "text": {"content": text}})
            if resp.status_code < 400 and (resp.json() if resp.content else {}).get("errcode", 0) == 0:
                return
        await self._to_people(
            chat_id, "sampleText", {"content": text}
        )  # no live session webhook: the robot API

    async def send_file(self, chat_id: str, path: Path) -> None:
        await self.open()
        token = await self._access_token()
        resp = await self.http.post(
            f"{self.oapi}/media/upload",
            params={"access_token": token, "type": "file"},
            files={"media": (path.name, path.read_bytes())},
        )
        media = resp.json()
        if media.get("errcode", 0) != 0:
            raise GatewayError(f"dingtalk: file upload refused: {media.get('errmsg')}")
        kind = path.suffix.lstrip(".") or "file"
        await self._to_people(
            chat_id, "sampleFile", {"mediaId": media["media_id"], "fileName": path.name, "fileType": kind}
        )

    async def ask(self, chat_id: str, text: str, choices: list[Choice]) -> None:
        await self.send_text(chat_id, text)

    async def typing(self, chat_id: str) -> None:
        return None  # robots have no typing indicator
