"""A fake Discord on 127.0.0.1 (aiohttp in its own thread): the REST calls grove makes and a gateway websocket
that says HELLO, takes IDENTIFY, sends READY, then whatever events the test dispatches (MESSAGE_CREATE,
INTERACTION_CREATE). Every REST call is recorded like the other fakes' calls."""

from __future__ import annotations

import itertools
import json
import threading
from datetime import UTC, datetime
from typing import Any

from aiohttp import WSMsgType, web
from tests.gateway.fakes.aio import AioFake
from tests.gateway.fakes.base import Call, FakeServer

BOT = {
    "id": "999",
    "username": "grove",
    "discriminator": "0",
    "avatar": None,
    "bot": True,
    "global_name": None,
}


def _json(data: Any) -> web.Response:
    # exactly "application/json": discord.py decodes nothing else (aiohttp's json_response adds a charset)
    return web.Response(body=json.dumps(data).encode(), headers={"Content-Type": "application/json"})


def user(user_id: int, name: str) -> dict[str, Any]:
    return {"id": str(user_id), "username": name, "discriminator": "0", "avatar": None, "global_name": name}


class FakeDiscord(AioFake, FakeServer):
    """aiohttp serves REST and the websocket (FakeServer's http.server is not used: only its call log)."""

    def __init__(self) -> None:
        AioFake.__init__(self)
        self.calls: list[Call] = []
        self.cond = threading.Condition()
        self.ids = itertools.count(1000)
        self.seq = itertools.count(1)
        self.sockets: list[web.WebSocketResponse] = []
        self.identified = threading.Event()

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{path:.*}", self._rest)

    async def before_stop(self) -> None:
        for ws in list(self.sockets):
            await ws.close()

    # -- REST ------------------------------------------------------------------------------------------------------
    async def _rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["path"]
        params: dict[str, Any] = {}
        files: dict[str, tuple[str, bytes]] = {}
        if request.content_type == "application/json":
            params = await request.json()
        elif request.content_type == "multipart/form-data":
            reader = await request.multipart()
            async for part in reader:
                if part.filename:
                    files[part.name or "file"] = (part.filename, await part.read())
                elif part.name == "payload_json":
                    params = json.loads(await part.text())
        reply = None
        if path.endswith("/messages") and request.method == "POST":
            reply = self.message(path.split("/")[2], BOT, params.get("content") or "")
            params = {**params, "_message": reply}  # a later button press refers to this message
        self.record(Call(f"{request.method} {path}", params, files))
        if reply is not None:
            return _json(reply)
        if path == "/users/@me":
            return _json(BOT)
        if path.startswith("/interactions/") and path.endswith("/callback"):
            interaction_id = path.split("/")[2]
            return _json(
                {
                    "interaction": {"id": interaction_id, "type": 3},
                    "resource": {"type": params.get("type", 4)},
                }
            )
        if path == "/oauth2/applications/@me":
            app = {"id": "999", "name": "grove", "description": "", "icon": None, "bot_public": False}
            app.update(
                {"bot_require_code_grant": False, "owner": user(1, "owner"), "verify_key": "k", "flags": 0}
            )
            return _json(app)
        if path == "/gateway/bot":
            limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
            return _json(
                {"url": f"ws://127.0.0.1:{self.port}/gateway", "shards": 1, "session_start_limit": limit}
            )
        return web.Response(status=204)

    def message(self, channel: str, author: dict[str, Any], content: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": str(next(self.ids)),
            "channel_id": channel,
            "author": author,
            "content": content,
            "timestamp": datetime.now(UTC).isoformat(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
            **extra,
        }

    # -- the gateway websocket ---------------------------------------------------------------------------------
    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.sockets.append(ws)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 45000}}))
        async for frame in ws:
            if frame.type != WSMsgType.TEXT:
                break
            data = json.loads(frame.data)
            if data.get("op") == 1:
                await ws.send_str(json.dumps({"op": 11}))
            elif data.get("op") == 2:
                ready = {
                    "v": 10,
                    "user": BOT,
                    "guilds": [],
                    "session_id": "s1",
                    "resume_gateway_url": f"ws://127.0.0.1:{self.port}/gateway",
                    "application": {"id": "999", "flags": 0},
                }
                await ws.send_str(json.dumps({"op": 0, "t": "READY", "s": next(self.seq), "d": ready}))
                self.identified.set()
        self.sockets.remove(ws)
        return ws

    def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send one event to the connected bot (waits until it has identified)."""
        assert self.identified.wait(20), "the bot never identified"

        async def send() -> None:
            frame = {"op": 0, "t": event, "s": next(self.seq), "d": data}
            for ws in self.sockets:
                await ws.send_str(json.dumps(frame))

        self.run(send())

    def user_presses(
        self, channel: int, user_id: int, question: Call, index: int, name: str = "alice"
    ) -> None:
        """A press on button `index` of a message the bot sent with buttons (an INTERACTION_CREATE)."""
        button = question.params["components"][0]["components"][index]
        interaction = {
            "id": str(next(self.ids)),
            "application_id": "999",
            "type": 3,
            "token": f"itok{next(self.ids)}",
            "version": 1,
            "attachment_size_limit": 8 * 2**20,
            "channel_id": str(channel),
            "channel": {"id": str(channel), "type": 1, "recipients": [user(user_id, name)]},
            "user": user(user_id, name),
            "data": {"custom_id": button["custom_id"], "component_type": 2},
            "message": question.params["_message"],
        }
        self.dispatch("INTERACTION_CREATE", interaction)

    def user_says(self, channel: int, user_id: int, text: str, name: str = "alice") -> None:
        self.dispatch("MESSAGE_CREATE", self.message(str(channel), user(user_id, name), text))
