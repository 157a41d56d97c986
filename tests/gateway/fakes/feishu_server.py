"""A fake Feishu Open Platform on 127.0.0.1 as documented: tenant_access_token/internal, bot/v3/info, im/v1
messages (send, resources download) and files (upload), with `code`/`msg` answers, a rate limit (99991400) and
an expired token (99991663) on demand; `post_event` sends grove an event the way Feishu does, encrypted
(AES-256-CBC with sha256 of the encrypt key) and signed (X-Lark-Signature)."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import time
from typing import Any

import httpx
from tests.gateway.fakes.base import Call, FakeServer, json_body

from grove.gateway.feishu import signature

BOT_OPEN_ID = "ou_bot000000000000000000000000000"


def encrypt(key: str, data: bytes) -> str:
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    iv = os.urandom(16)
    padder = padding.PKCS7(128).padder()
    padded = padder.update(data) + padder.finalize()
    enc = Cipher(algorithms.AES(hashlib.sha256(key.encode()).digest()), modes.CBC(iv)).encryptor()
    return base64.b64encode(iv + enc.update(padded) + enc.finalize()).decode()


class FakeFeishu(FakeServer):
    def __init__(self, app_id: str, app_secret: str) -> None:
        super().__init__()
        self.app_id, self.app_secret = app_id, app_secret
        self.tokens: set[str] = set()
        self.resources: dict[str, bytes] = {}
        self.uploads: dict[str, tuple[str, bytes]] = {}
        self.ids = itertools.count(1)
        self.answers: list[int] = []  # codes for the next message sends (99991400, 99991663)

    def handle(
        self, handler: Any, verb: str, path: str, params: dict[str, Any], files: dict[str, Any], raw: bytes
    ) -> tuple[int, bytes, str]:
        if path == "/open-apis/auth/v3/tenant_access_token/internal":
            if (params.get("app_id"), params.get("app_secret")) != (self.app_id, self.app_secret):
                return json_body({"code": 10014, "msg": "app secret invalid"})
            token = f"t-{next(self.ids)}"
            self.tokens.add(token)
            self.record(Call("token", params))
            return json_body({"code": 0, "msg": "ok", "tenant_access_token": token, "expire": 7200})
        token = (handler.headers.get("Authorization") or "").removeprefix("Bearer ")
        if token not in self.tokens:
            return json_body({"code": 99991663, "msg": "Invalid access token"}, 400)
        if path == "/open-apis/bot/v3/info":
            return json_body({"code": 0, "msg": "ok", "bot": {"open_id": BOT_OPEN_ID, "app_name": "grove"}})
        if path.startswith("/open-apis/im/v1/messages/") and "/resources/" in path:
            return 200, self.resources[path.rsplit("/", 1)[1]], "application/octet-stream"
        if path == "/open-apis/im/v1/files":
            key = f"file_v3_{next(self.ids)}"
            self.uploads[key] = (params["file_name"], files["file"][1])
            return json_body({"code": 0, "msg": "ok", "data": {"file_key": key}})
        if path == "/open-apis/im/v1/messages":
            if self.answers:
                code = self.answers.pop(0)
                if code == 99991663:
                    self.tokens.discard(token)
                return json_body({"code": code, "msg": "try later"}, 429 if code == 99991400 else 400)
            self.record(Call(params["msg_type"], {**params, "content": json.loads(params["content"])}))
            return json_body({"code": 0, "msg": "ok", "data": {"message_id": f"om_{next(self.ids)}"}})
        return json_body({"code": 404, "msg": f"no {path}"}, 404)

    def texts(self, chat: str) -> list[str]:
        return [c.params["content"]["text"] for c in self.sent("text") if c.params["receive_id"] == chat]


def post_event(
    port: int, event: dict[str, Any], encrypt_key: str, sign_with: str | None = None
) -> httpx.Response:
    body = json.dumps({"encrypt": encrypt(encrypt_key, json.dumps(event).encode())}).encode()
    stamp, nonce = str(int(time.time())), "n0nce"
    headers = {
        "Content-Type": "application/json",
        "X-Lark-Request-Timestamp": stamp,
        "X-Lark-Request-Nonce": nonce,
        "X-Lark-Signature": signature(stamp, nonce, sign_with or encrypt_key, body),
    }
    return httpx.post(f"http://127.0.0.1:{port}/feishu/events", content=body, headers=headers, timeout=10)


def message_event(
    token: str,
    chat: str,
    open_id: str,
    content: dict[str, Any],
    kind: str = "text",
    p2p: bool = True,
    mention_bot: bool = False,
    message_id: str | None = None,
) -> dict[str, Any]:
    mentions = [{"key": "@_user_1", "id": {"open_id": BOT_OPEN_ID}, "name": "grove"}] if mention_bot else []
    return {
        "schema": "2.0",
        "header": {
            "event_id": f"ev{time.time_ns()}",
            "event_type": "im.message.receive_v1",
            "token": token,
            "app_id": "cli_test",
            "create_time": str(int(time.time() * 1000)),
        },
        "event": {
            "sender": {
                "sender_id": {"open_id": open_id, "union_id": "on_x", "user_id": "u"},
                "sender_type": "user",
            },
            "message": {
                "message_id": message_id or f"om_in{time.time_ns()}",
                "chat_id": chat,
                "chat_type": "p2p" if p2p else "group",
                "message_type": kind,
                "content": json.dumps(content),
                "mentions": mentions,
            },
        },
    }


def press_event(token: str, chat: str, open_id: str, data: str) -> dict[str, Any]:
    return {
        "schema": "2.0",
        "header": {"event_id": f"ev{time.time_ns()}", "event_type": "card.action.trigger", "token": token},
        "event": {
            "operator": {"open_id": open_id},
            "action": {"tag": "button", "value": {"data": data}},
            "context": {"open_message_id": "om_q", "open_chat_id": chat},
        },
    }
