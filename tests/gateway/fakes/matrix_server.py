"""A fake Matrix homeserver (client-server API v3 as documented): /sync long-polls over a room event log,
invites, joins, sends (one event per transaction id), media upload and authenticated download, typing; the test
can inject room messages, refuse syncs (502) and rate-limit (429 M_LIMIT_EXCEEDED with retry_after_ms)."""

from __future__ import annotations

import itertools
import json
import threading
import time
from typing import Any
from urllib.parse import unquote

from tests.gateway.fakes.base import Call, FakeServer, json_body

SERVER = "fake.test"


class FakeMatrix(FakeServer):
    def __init__(self, token: str, bot: str = f"@grove:{SERVER}") -> None:
        super().__init__()
        self.token, self.bot = token, bot
        self.log: list[tuple[str, dict[str, Any]]] = []  # (room id, event) in order; a sync token is an index
        self.invites: list[str] = []
        self.media: dict[str, tuple[str, bytes]] = {}
        self.txns: dict[str, str] = {}
        self.ids = itertools.count(1)
        self.changed = threading.Condition()
        self.fail_syncs = 0
        self.limit_next = 0

    # -- what the test does ---------------------------------------------------------------------------------------
    def _append(self, room: str, event: dict[str, Any]) -> str:
        event_id = f"${next(self.ids)}:{SERVER}"
        with self.changed:
            self.log.append(
                (room, {"event_id": event_id, "origin_server_ts": int(time.time() * 1000), **event})
            )
            self.changed.notify_all()
        return event_id

    def user_says(self, room: str, sender: str, text: str) -> str:
        return self._append(
            room, {"type": "m.room.message", "sender": sender, "content": {"msgtype": "m.text", "body": text}}
        )

    def user_sends_file(self, room: str, sender: str, name: str, data: bytes) -> str:
        media_id = f"m{next(self.ids)}"
        self.media[media_id] = ("application/octet-stream", data)
        content = {
            "msgtype": "m.file",
            "body": name,
            "url": f"mxc://{SERVER}/{media_id}",
            "info": {"size": len(data)},
        }
        return self._append(room, {"type": "m.room.message", "sender": sender, "content": content})

    def invite(self, room: str) -> None:
        with self.changed:
            self.invites.append(room)
            self.changed.notify_all()

    def bot_events(self, room: str) -> list[dict[str, Any]]:
        return [e["content"] for r, e in self.log if r == room and e["sender"] == self.bot]

    def bot_texts(self, room: str) -> list[str]:
        return [c["body"] for c in self.bot_events(room) if c.get("msgtype") == "m.text"]

    # -- the API ----------------------------------------------------------------------------------------------------
    def handle(
        self, handler: Any, verb: str, path: str, params: dict[str, Any], files: dict[str, Any], raw: bytes
    ) -> tuple[int, bytes, str]:
        if handler.headers.get("Authorization") != f"Bearer {self.token}":
            return json_body({"errcode": "M_UNKNOWN_TOKEN", "error": "Invalid access token"}, 401)
        parts = [unquote(p) for p in path.split("/")]
        kind = next(
            (k for k in ("typing", "send", "join", "sync", "upload", "download", "whoami") if k in parts), "?"
        )
        self.record(Call(f"{verb} {kind}", params))
        if self.limit_next > 0 and "/send/" in path:
            self.limit_next -= 1
            return json_body(
                {"errcode": "M_LIMIT_EXCEEDED", "error": "Too many requests", "retry_after_ms": 100}, 429
            )
        if path.endswith("/account/whoami"):
            return json_body({"user_id": self.bot})
        if path.endswith("/sync"):
            return self._sync(params)
        if "/join/" in path:
            with self.changed:
                self.invites = [r for r in self.invites if r != parts[-1]]
            return json_body({"room_id": parts[-1]})
        if "/send/m.room.message/" in path:
            room, txn = parts[-4], parts[-1]
            if txn not in self.txns:
                self.txns[txn] = self._append(
                    room, {"type": "m.room.message", "sender": self.bot, "content": json.loads(raw)}
                )
            return json_body({"event_id": self.txns[txn]})
        if "/typing/" in path:
            return json_body({})
        if path.startswith("/_matrix/media/v3/upload"):
            media_id = f"u{next(self.ids)}"
            self.media[media_id] = (handler.headers.get("Content-Type", ""), raw)
            return json_body({"content_uri": f"mxc://{SERVER}/{media_id}"})
        if path.startswith("/_matrix/client/v1/media/download/"):
            kind, data = self.media[parts[-1]]
            return 200, data, kind or "application/octet-stream"
        return json_body({"errcode": "M_UNRECOGNIZED", "error": path}, 404)

    def fail(self, syncs: int) -> None:
        """The next `syncs` syncs (the one waiting now too) answer 502, as a restarting proxy would."""
        with self.changed:
            self.fail_syncs = syncs
            self.changed.notify_all()

    def _sync(self, params: dict[str, Any]) -> tuple[int, bytes, str]:
        since = int(params.get("since", "0") or 0)
        deadline = time.monotonic() + int(params.get("timeout", "0")) / 1000
        with self.changed:
            while (
                len(self.log) <= since
                and not self.invites
                and not self.fail_syncs
                and time.monotonic() < deadline
            ):
                self.changed.wait(max(0.0, deadline - time.monotonic()))
            if self.fail_syncs > 0:
                self.fail_syncs -= 1
                return 502, b"<html>bad gateway</html>", "text/html"
            events = self.log[since:] if "since" in params else self.log
            invites = list(self.invites)
            position = len(self.log)
        join: dict[str, Any] = {}
        for room, event in events:
            join.setdefault(room, {"timeline": {"events": []}})["timeline"]["events"].append(event)
        body = {
            "next_batch": str(position),
            "rooms": {"join": join, "invite": {r: {"invite_state": {"events": []}} for r in invites}},
        }
        return json_body(body)
