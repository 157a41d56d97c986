"""A fake Telegram Bot API on 127.0.0.1: long-polled getUpdates fed by the test (messages, documents, button
presses), and the methods grove's adapter calls, each recorded (`server.sent("sendMessage")`)."""

from __future__ import annotations

import itertools
import json
import threading
import time
from typing import Any
from urllib.parse import unquote

from tests.gateway.fakes.base import Call, FakeServer, json_body

BOT = {"id": 999, "is_bot": True, "first_name": "grove", "username": "grove_bot"}


class FakeTelegram(FakeServer):
    def __init__(self, token: str = "123:TEST") -> None:
        super().__init__()
        self.token = token
        self.updates: list[dict[str, Any]] = []
        self.update_ids = itertools.count(1)
        self.message_ids = itertools.count(100)
        self.files: dict[str, bytes] = {}
        self.new_update = threading.Condition()
        self.fail_polls = 0  # answer this many getUpdates with 502, as Telegram's front does in an outage

    # -- what the test does ---------------------------------------------------------------------------------------
    def _push(self, update: dict[str, Any]) -> None:
        with self.new_update:
            self.updates.append({"update_id": next(self.update_ids), **update})
            self.new_update.notify_all()

    def user_says(
        self, chat_id: int, user_id: int, text: str = "", username: str = "alice", **extra: Any
    ) -> None:
        message = {
            "message_id": next(self.message_ids),
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": "private"},
            "from": {"id": user_id, "is_bot": False, "first_name": username, "username": username},
            **({"text": text} if text else {}),
            **extra,
        }
        self._push({"message": message})

    def user_sends_file(self, chat_id: int, user_id: int, name: str, data: bytes, caption: str = "") -> None:
        file_id = f"f{len(self.files) + 1}"
        self.files[file_id] = data
        doc = {"file_id": file_id, "file_unique_id": f"u{file_id}", "file_name": name, "file_size": len(data)}
        self.user_says(chat_id, user_id, "", document=doc, **({"caption": caption} if caption else {}))

    def user_sends_photo(self, chat_id: int, user_id: int, data: bytes, caption: str = "") -> None:
        """A photo as the Bot API sends one: a list of PhotoSize, smallest first (grove takes the last)."""
        file_id = f"f{len(self.files) + 1}"
        self.files[file_id] = data
        sizes = [
            {"file_id": f"{file_id}s", "file_unique_id": f"u{file_id}s", "width": 90, "height": 90},
            {
                "file_id": file_id,
                "file_unique_id": f"u{file_id}",
                "width": 800,
                "height": 800,
                "file_size": len(data),
            },
        ]
        self.user_says(chat_id, user_id, "", photo=sizes, **({"caption": caption} if caption else {}))

    def user_presses(
        self, chat_id: int, user_id: int, question: Call, data: str, username: str = "alice"
    ) -> None:
        """A press on a button of the message `question` (a recorded sendMessage with a keyboard)."""
        message = self._message(question.params, question.params.get("_message_id", 1))
        query = {
            "id": str(next(self.message_ids)),
            "from": {"id": user_id, "is_bot": False, "first_name": username, "username": username},
            "message": {**message, "chat": {"id": chat_id, "type": "private"}},
            "chat_instance": "1",
            "data": data,
        }
        self._push({"callback_query": query})

    def texts_to(self, chat: int | str | None = None) -> list[str]:
        """The texts grove sent (to `chat`, else to every chat), in order."""
        return [
            c.params.get("text", "")
            for c in self.sent("sendMessage")
            if chat is None or str(c.params["chat_id"]) == str(chat)
        ]

    @staticmethod
    def buttons(call: Call) -> list[dict[str, Any]]:
        markup = call.params.get("reply_markup")
        if isinstance(markup, str):
            markup = json.loads(markup)
        return [b for row in (markup or {}).get("inline_keyboard", []) for b in row]

    # -- the Bot API ---------------------------------------------------------------------------------------------
    def _message(self, params: dict[str, Any], message_id: int) -> dict[str, Any]:
        return {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": {"id": int(params.get("chat_id", 0)), "type": "private"},
            "from": BOT,
            "text": params.get("text", ""),
        }

    def handle(self, handler: Any, verb: str, path: str, params: dict, files: dict, raw: bytes) -> Any:
        path = unquote(path)  # httpx quotes the token's colon in file URLs
        prefix, file_prefix = f"/bot{self.token}/", f"/file/bot{self.token}/"
        if path.startswith(file_prefix):
            data = self.files.get(path[len(file_prefix) :].rsplit("/", 1)[-1])
            return (200, data, "application/octet-stream") if data is not None else (404, b"", "text/plain")
        if not path.startswith(prefix):
            return json_body({"ok": False, "error_code": 401, "description": f"Unauthorized {path}"}, 401)
        method = path[len(prefix) :]
        if method == "getUpdates":
            if self.fail_polls > 0:
                self.fail_polls -= 1
                self.record(Call("getUpdates-failed", {}))
                return json_body({"ok": False, "error_code": 502, "description": "Bad Gateway"}, 502)
            return json_body({"ok": True, "result": self._updates(params)})
        message_id = next(self.message_ids)
        self.record(Call(method, {**params, "_message_id": message_id}, files))
        if method == "getMe":
            return json_body({"ok": True, "result": BOT})
        if method in ("sendMessage", "editMessageText"):
            return json_body({"ok": True, "result": self._message(params, message_id)})
        if method == "sendDocument":
            name, data = files.get("document", ("file", b""))
            doc = {"file_id": "out", "file_unique_id": "uout", "file_name": name, "file_size": len(data)}
            return json_body({"ok": True, "result": {**self._message(params, message_id), "document": doc}})
        if method == "getFile":
            fid = params["file_id"]
            size = len(self.files.get(fid, b""))
            result = {
                "file_id": fid,
                "file_unique_id": f"u{fid}",
                "file_size": size,
                "file_path": f"docs/{fid}",
            }
            return json_body({"ok": True, "result": result})
        return json_body(
            {"ok": True, "result": True}
        )  # sendChatAction, answerCallbackQuery, deleteWebhook...

    def _updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset") or 0)
        wait = min(float(params.get("timeout") or 0), 0.5)  # short polls keep the test's shutdown quick
        with self.new_update:
            fresh = [u for u in self.updates if u["update_id"] >= offset]
            if not fresh and wait:
                self.new_update.wait(wait)
                fresh = [u for u in self.updates if u["update_id"] >= offset]
        return fresh
