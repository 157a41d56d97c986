"""A fake Slack Web API on 127.0.0.1 (auth.test, chat.*, the three-step file upload, file downloads), plus the
Slack side of HTTP events mode: signed event and button-press posts to the app's /slack/events endpoint."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlencode

from tests.gateway.fakes.base import Call, FakeServer, json_body

BOT_USER = "UBOT"


class FakeSlack(FakeServer):
    def __init__(self, signing_secret: str) -> None:
        super().__init__()
        self.signing_secret = signing_secret
        self.ts = itertools.count(1)
        self.files: dict[str, tuple[str, bytes]] = {}
        self.uploads: dict[str, tuple[str, bytes]] = {}

    # -- the Web API ---------------------------------------------------------------------------------------------
    def handle(self, handler: Any, verb: str, path: str, params: dict, files: dict, raw: bytes) -> Any:
        if path.startswith("/files/"):
            if handler.headers.get("Authorization") != "Bearer xoxb-test":
                return 403, b"", "text/plain"
            _name, data = self.files.get(path.rsplit("/", 1)[-1], ("", b""))
            return 200, data, "application/octet-stream"
        if path.startswith("/upload/"):
            upload_id = path.rsplit("/", 1)[-1]
            self.uploads[upload_id] = ("", raw if not files else next(iter(files.values()))[1])
            return 200, b"OK", "text/plain"
        method = path.removeprefix("/api/")
        self.record(Call(method, params, files))
        if method == "auth.test":
            return json_body(
                {"ok": True, "user_id": BOT_USER, "bot_id": "B1", "team_id": "T1", "user": "grove"}
            )
        if method in ("chat.postMessage", "chat.update", "chat.postEphemeral"):
            return json_body({"ok": True, "channel": params.get("channel"), "ts": f"{next(self.ts)}.000"})
        if method == "files.getUploadURLExternal":
            upload_id = f"F{next(self.ts)}"
            return json_body(
                {"ok": True, "upload_url": f"{self.url}/upload/{upload_id}", "file_id": upload_id}
            )
        if method == "files.completeUploadExternal":
            return json_body({"ok": True, "files": [{"id": f["id"]} for f in _json(params.get("files"))]})
        return json_body({"ok": True})

    def uploaded(self, file_id: str) -> bytes:
        return self.uploads[file_id][1]

    # -- what Slack posts to the app ---------------------------------------------------------------------------
    def signed_post(self, url: str, body: bytes, ctype: str, secret: str | None = None) -> int:
        stamp = str(int(time.time()))
        base = f"v0:{stamp}:".encode() + body
        sig = "v0=" + hmac.new((secret or self.signing_secret).encode(), base, hashlib.sha256).hexdigest()
        headers = {"Content-Type": ctype, "X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": sig}
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as resp:
                return resp.status
        except urllib.error.HTTPError as e:
            return e.code

    def user_says(
        self, app_url: str, channel: str, user: str, text: str, secret: str | None = None, **extra: Any
    ) -> int:
        event = {"type": "message", "channel": channel, "channel_type": "im", "user": user, "text": text}
        event.update({"ts": f"{next(self.ts)}.000", **extra})
        payload = {"type": "event_callback", "team_id": "T1", "api_app_id": "A1", "event": event}
        payload.update({"event_id": f"Ev{next(self.ts)}", "event_time": int(time.time())})
        return self.signed_post(app_url, json.dumps(payload).encode(), "application/json", secret)

    def user_sends_file(
        self, app_url: str, channel: str, user: str, name: str, data: bytes, text: str = ""
    ) -> int:
        file_id = f"F{next(self.ts)}"
        self.files[file_id] = (name, data)
        info = {
            "id": file_id,
            "name": name,
            "size": len(data),
            "url_private_download": f"{self.url}/files/{file_id}",
        }
        return self.user_says(app_url, channel, user, text, subtype="file_share", files=[info])

    def user_presses(self, app_url: str, channel: str, user: str, question: Call, index: int) -> int:
        blocks = _json(question.params.get("blocks"))
        button = blocks[1]["elements"][index]
        payload = {
            "type": "block_actions",
            "team": {"id": "T1"},
            "api_app_id": "A1",
            "user": {"id": user, "username": user.lower()},
            "channel": {"id": channel},
            "container": {"type": "message", "channel_id": channel},
            "message": {"ts": "1.000", "text": question.params.get("text", "")},
            "trigger_id": "t1",
            "actions": [
                {
                    "type": "button",
                    "action_id": button["action_id"],
                    "block_id": "b",
                    "value": button["value"],
                }
            ],
        }
        body = urlencode({"payload": json.dumps(payload)}).encode()
        return self.signed_post(app_url, body, "application/x-www-form-urlencoded")


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value
