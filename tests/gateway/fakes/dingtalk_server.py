"""A fake DingTalk on 127.0.0.1 as documented for Stream mode: oauth2/accessToken, gateway/connections/open
(an endpoint and ticket), the stream websocket (CALLBACK frames for robot messages, SYSTEM ping and disconnect,
acks recorded), the session webhook, robot batchSend, media upload and message-file download. aiohttp on its
own loop in a thread."""

from __future__ import annotations

import itertools
import json
import threading
import time
from typing import Any

from aiohttp import WSMsgType, web
from tests.gateway.fakes.aio import AioFake
from tests.gateway.fakes.waiting import wait_until


class FakeDingTalk(AioFake):
    def __init__(self, app_key: str, app_secret: str) -> None:
        super().__init__()
        self.app_key, self.app_secret = app_key, app_secret
        self.ids = itertools.count(1)
        self.sent: list[tuple[str, dict[str, Any]]] = []  # (how: session | batch, body)
        self.acks: list[str] = []
        self.files: dict[str, bytes] = {}
        self.uploads: dict[str, tuple[str, bytes]] = {}
        self.sockets: list[web.WebSocketResponse] = []
        self.tickets: set[str] = set()
        self.connects = 0
        self.cond = threading.Condition()

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1.0/oauth2/accessToken", self._token)
        app.router.add_post("/v1.0/gateway/connections/open", self._open)
        app.router.add_get("/connect", self._ws)
        app.router.add_post("/robot/sendBySession", self._session_send)
        app.router.add_post("/v1.0/robot/oToMessages/batchSend", self._batch)
        app.router.add_post("/media/upload", self._upload)
        app.router.add_post("/v1.0/robot/messageFiles/download", self._download_url)
        app.router.add_get("/files/{code}", self._file)

    def _note(self, how: str, body: dict[str, Any]) -> None:
        with self.cond:
            self.sent.append((how, body))
            self.cond.notify_all()

    async def _token(self, request: web.Request) -> web.Response:
        body = await request.json()
        if (body.get("appKey"), body.get("appSecret")) != (self.app_key, self.app_secret):
            return web.json_response({"code": "invalidClientIdOrSecret", "message": "bad app"}, status=400)
        return web.json_response({"accessToken": "at-1", "expireIn": 7200})

    def _authorized(self, request: web.Request) -> bool:
        return (
            request.headers.get("x-acs-dingtalk-access-token") == "at-1"
            or request.query.get("access_token") == "at-1"
        )

    async def _open(self, request: web.Request) -> web.Response:
        body = await request.json()
        if (body.get("clientId"), body.get("clientSecret")) != (self.app_key, self.app_secret):
            return web.json_response({"code": "invalidClientIdOrSecret"}, status=400)
        ticket = f"ticket{next(self.ids)}"
        self.tickets.add(ticket)
        return web.json_response({"endpoint": f"ws://127.0.0.1:{self.port}/connect", "ticket": ticket})

    async def _ws(self, request: web.Request) -> web.WebSocketResponse:
        if request.query.get("ticket") not in self.tickets:
            raise web.HTTPUnauthorized()
        self.tickets.discard(request.query["ticket"])  # a ticket opens one connection
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.sockets.append(ws)
        with self.cond:
            self.connects += 1
            self.cond.notify_all()
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                ack = json.loads(msg.data)
                with self.cond:
                    self.acks.append((ack.get("headers") or {}).get("messageId", ""))
                    self.cond.notify_all()
        return ws

    async def _session_send(self, request: web.Request) -> web.Response:
        self._note("session", {**(await request.json()), "session": request.query.get("session")})
        return web.json_response({"errcode": 0, "errmsg": "ok"})

    async def _batch(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return web.json_response({"code": "InvalidAuthentication"}, status=401)
        self._note("batch", await request.json())
        return web.json_response({"processQueryKey": f"q{next(self.ids)}"})

    async def _upload(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return web.json_response({"errcode": 40014, "errmsg": "invalid access_token"})
        form = await request.post()
        media = form["media"]
        media_id = f"@media{next(self.ids)}"
        self.uploads[media_id] = (media.filename, media.file.read())  # type: ignore[union-attr]
        return web.json_response({"errcode": 0, "errmsg": "ok", "media_id": media_id, "type": "file"})

    async def _download_url(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return web.json_response({"code": "InvalidAuthentication"}, status=401)
        body = await request.json()
        return web.json_response({"downloadUrl": f"{self.url}/files/{body['downloadCode']}"})

    async def _file(self, request: web.Request) -> web.Response:
        return web.Response(body=self.files[request.match_info["code"]])

    # -- what the test does ------------------------------------------------------------------------------------
    async def _push(self, frame: dict[str, Any]) -> None:
        for ws in list(self.sockets):
            if not ws.closed:
                await ws.send_json(frame)

    def user_says(
        self,
        chat: str,
        staff: str,
        text: str = "",
        file: tuple[str, bytes] | None = None,
        message_id: str | None = None,
    ) -> str:
        ident = message_id or f"msg{next(self.ids)}"
        data: dict[str, Any] = {
            "conversationId": chat,
            "conversationType": "1",
            "msgId": ident,
            "senderNick": staff,
            "senderStaffId": staff,
            "senderId": f"$:LWCP_v1:${staff}",
            "sessionWebhook": f"{self.url}/robot/sendBySession?session={chat}",
            "sessionWebhookExpiredTime": int(time.time() * 1000) + 3_600_000,
            "robotCode": self.app_key,
            "createAt": int(time.time() * 1000),
        }
        if file is not None:
            code = f"dl{next(self.ids)}"
            self.files[code] = file[1]
            data.update(msgtype="file", content={"downloadCode": code, "fileName": file[0]})
        else:
            data.update(msgtype="text", text={"content": text})
        frame = {
            "specVersion": "1.0",
            "type": "CALLBACK",
            "headers": {
                "topic": "/v1.0/im/bot/messages/get",
                "messageId": f"frame-{ident}",
                "contentType": "application/json",
                "time": str(int(time.time() * 1000)),
            },
            "data": json.dumps(data),
        }
        self.run(self._push(frame))
        return ident

    def ping(self) -> None:
        self.run(
            self._push(
                {
                    "specVersion": "1.0",
                    "type": "SYSTEM",
                    "headers": {"topic": "ping", "messageId": "ping-1"},
                    "data": '{"opaque":"x"}',
                }
            )
        )

    def drop(self) -> None:
        async def close_all() -> None:
            for ws in self.sockets:
                await ws.close()
            self.sockets.clear()

        self.run(close_all())

    def texts(self, chat: str) -> list[str]:
        out = []
        for how, body in self.sent:
            if how == "session" and body["session"] == chat:
                out.append(body["text"]["content"])
        return out

    def wait(self, pred: Any, timeout: float = 15.0) -> list[tuple[str, dict[str, Any]]]:
        return wait_until(
            self.cond, lambda: [s for s in self.sent if pred(s)], lambda: f"sent so far: {self.sent}", timeout
        )

    def wait_connects(self, count: int, timeout: float = 15.0) -> None:
        wait_until(
            self.cond, lambda: self.connects >= count, lambda: "grove did not connect its stream", timeout
        )
