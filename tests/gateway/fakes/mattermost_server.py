"""A fake Mattermost server (API v4 as documented): the websocket with hello, `posted` events (the post as a JSON
string, channel_type, mentions) and resumption by connection_id + sequence_number; REST users/me, posts, file
upload and download; and interactive buttons pressed the way the server does it, by POSTing the action's
context to its integration URL. Runs aiohttp on its own loop in a thread."""

from __future__ import annotations

import itertools
import json
import threading
import time
from typing import Any

import httpx
from aiohttp import WSMsgType, web
from tests.gateway.fakes.aio import AioFake
from tests.gateway.fakes.waiting import wait_until

BOT = {"id": "botid00000000000000000000a", "username": "grove"}


class Link:
    """One websocket connection id: its sequence and the events it missed while down."""

    def __init__(self, cid: str) -> None:
        self.cid, self.seq, self.ws = cid, 0, None  # type: ignore[var-annotated]
        self.sent: list[dict[str, Any]] = []


class FakeMattermost(AioFake):
    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token
        self.posts: list[dict[str, Any]] = []
        self.files: dict[str, tuple[str, bytes]] = {}
        self.links: dict[str, Link] = {}
        self.typing: list[str] = []
        self.ids = itertools.count(1)
        self.cond = threading.Condition()
        self.connects = 0

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def routes(self, app: web.Application) -> None:
        app.router.add_get("/api/v4/users/me", self._me)
        app.router.add_get("/api/v4/websocket", self._ws)
        app.router.add_post("/api/v4/posts", self._post)
        app.router.add_post("/api/v4/files", self._upload)
        app.router.add_get("/api/v4/files/{id}", self._download)

    def _authorized(self, request: web.Request) -> bool:
        return request.headers.get("Authorization") == f"Bearer {self.token}"

    # -- REST --------------------------------------------------------------------------------------------------
    async def _me(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return web.json_response({"id": "api.context.session_expired.app_error"}, status=401)
        return web.json_response(BOT)

    async def _post(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return web.json_response({}, status=401)
        body = await request.json()
        post = {"id": f"p{next(self.ids)}", "user_id": BOT["id"], **body}
        with self.cond:
            self.posts.append(post)
            self.cond.notify_all()
        return web.json_response(post, status=201)

    async def _upload(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return web.json_response({}, status=401)
        form = await request.post()
        item = form["files"]
        file_id = f"f{next(self.ids)}"
        self.files[file_id] = (item.filename, item.file.read())  # type: ignore[union-attr]
        return web.json_response({"file_infos": [{"id": file_id, "name": item.filename}]}, status=201)  # type: ignore[union-attr]

    async def _download(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return web.json_response({}, status=401)
        return web.Response(
            body=self.files[request.match_info["id"]][1], content_type="application/octet-stream"
        )

    # -- the websocket -----------------------------------------------------------------------------------------
    async def _ws(self, request: web.Request) -> web.WebSocketResponse:
        if not self._authorized(request):
            raise web.HTTPUnauthorized()
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.connects += 1
        cid = request.query.get("connection_id", "")
        since = int(request.query.get("sequence_number", "0") or 0)
        link = self.links.get(cid)
        if link is None:  # a new connection: a new id, nothing replayed
            link = Link(f"c{next(self.ids)}")
            self.links[link.cid] = link
            await ws.send_json(
                {"event": "hello", "data": {"connection_id": link.cid, "server_version": "9.11"}, "seq": 0}
            )
        else:  # resumed: what it missed, in order, then live
            await ws.send_json(
                {"event": "hello", "data": {"connection_id": link.cid, "server_version": "9.11"}, "seq": 0}
            )
            for event in link.sent:
                if event["seq"] > since:
                    await ws.send_json(event)
        link.ws = ws
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                action = json.loads(msg.data)
                if action.get("action") == "user_typing":
                    self.typing.append(action["data"]["channel_id"])
        if link.ws is ws:
            link.ws = None
        return ws

    async def _broadcast(self, event: dict[str, Any]) -> None:
        for link in self.links.values():
            link.seq += 1
            numbered = {**event, "seq": link.seq}
            link.sent.append(numbered)
            if link.ws is not None and not link.ws.closed:
                await link.ws.send_json(numbered)

    # -- what the test does ------------------------------------------------------------------------------------
    def wait_connected(self, count: int = 1, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not (self.connects >= count and any(link.ws is not None for link in self.links.values())):
            assert time.monotonic() < deadline, "grove never connected its websocket"
            time.sleep(0.01)

    def user_posts(
        self,
        channel: str,
        user: str,
        text: str,
        direct: bool = True,
        mention: bool = False,
        files: dict[str, bytes] | None = None,
    ) -> str:
        file_ids, infos = [], []
        for name, data in (files or {}).items():
            file_id = f"f{next(self.ids)}"
            self.files[file_id] = (name, data)
            file_ids.append(file_id)
            infos.append({"id": file_id, "name": name, "size": len(data)})
        post = {
            "id": f"p{next(self.ids)}",
            "user_id": user,
            "channel_id": channel,
            "message": text,
            "type": "",
            "file_ids": file_ids,
            "metadata": {"files": infos},
        }
        data = {
            "channel_type": "D" if direct else "O",
            "post": json.dumps(post),
            "sender_name": f"@{user}",
            "mentions": json.dumps([BOT["id"]] if mention else []),
        }
        self.run(self._broadcast({"event": "posted", "data": data, "broadcast": {"channel_id": channel}}))
        return post["id"]

    def drop(self) -> None:
        """Close every websocket from the server's side, as a restarting proxy would."""

        async def close_all() -> None:
            for link in self.links.values():
                if link.ws is not None:
                    await link.ws.close()
                    link.ws = None

        self.run(close_all())

    def press(self, question: dict[str, Any], label: str, user: str) -> dict[str, Any]:
        """What the server does on a button click: POST the action's integration context to its URL."""
        action = next(a for a in question["props"]["attachments"][0]["actions"] if a["name"] == label)
        body = {
            "user_id": user,
            "channel_id": question["channel_id"],
            "post_id": question["id"],
            "context": action["integration"]["context"],
        }
        return httpx.post(action["integration"]["url"], json=body, timeout=10).json()

    def texts(self, channel: str) -> list[str]:
        return [p["message"] for p in self.posts if p["channel_id"] == channel and p.get("message")]

    def wait_posts(self, pred: Any, timeout: float = 15.0) -> list[dict[str, Any]]:
        return wait_until(
            self.cond,
            lambda: [p for p in self.posts if pred(p)],
            lambda: f"posts so far: {[p.get('message') for p in self.posts]}",
            timeout,
        )
