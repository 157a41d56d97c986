"""A fake signal-cli HTTP daemon on 127.0.0.1 speaking its JSON-RPC wire format: POST /api/v1/rpc (send,
sendTyping, getAttachment) and GET /api/v1/events, a server-sent event stream of `receive` notifications with
signal-cli's envelope shape. `drop()` ends every open stream, as a daemon restart would."""

from __future__ import annotations

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.gateway.fakes.base import LocalHttp
from tests.gateway.fakes.waiting import wait_until

ACCOUNT = "+15550001111"


class FakeSignalDaemon(LocalHttp):
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []  # JSON-RPC requests grove made
        self.queue: list[dict[str, Any]] = []  # notifications, in order; a stream sends from where it joined
        self.attachments: dict[str, bytes] = {}
        self.cond = threading.Condition()
        self.generation = 0  # bumped by drop(): streams of an older generation end
        self.streams = 0
        self.down = False  # while True the event stream is refused (503), as a daemon that is restarting
        daemon = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                result = daemon.rpc(body)
                data = json.dumps({"jsonrpc": "2.0", "id": body.get("id"), **result}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if not self.path.startswith("/api/v1/events") or daemon.down:
                    self.send_response(503 if daemon.down else 404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                with daemon.cond:
                    generation, position = daemon.generation, len(daemon.queue)
                    daemon.streams += 1
                    daemon.cond.notify_all()
                try:
                    while True:
                        with daemon.cond:
                            while len(daemon.queue) <= position and daemon.generation == generation:
                                daemon.cond.wait(0.5)
                                self.wfile.write(b":\n\n")  # a keep-alive comment, as the daemon sends
                                self.wfile.flush()
                            if daemon.generation != generation:
                                return
                            events = daemon.queue[position:]
                            position = len(daemon.queue)
                        for event in events:
                            self.wfile.write(b"event: receive\ndata: " + json.dumps(event).encode() + b"\n\n")
                            self.wfile.flush()
                except OSError:
                    return

        super().__init__(Handler)

    def __exit__(self, *exc: object) -> None:
        self.drop()  # the streams end, so the server's threads do
        super().__exit__(*exc)

    def rpc(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.cond:
            self.calls.append(body)
            self.cond.notify_all()
        params = body.get("params") or {}
        if body.get("method") == "getAttachment":
            data = self.attachments.get(params.get("id", ""))
            if data is None:
                return {"error": {"code": -1, "message": "Attachment not found"}}
            return {"result": {"data": base64.b64encode(data).decode()}}
        if body.get("method") in ("send", "sendTyping"):
            return {"result": {"timestamp": int(time.time() * 1000), "results": [{"type": "SUCCESS"}]}}
        return {"error": {"code": -32601, "message": "Method not implemented"}}

    # -- what the test does ------------------------------------------------------------------------------------
    def user_says(
        self,
        uuid: str,
        number: str,
        text: str,
        group: str | None = None,
        attachments: dict[str, bytes] | None = None,
    ) -> int:
        stamp = int(time.time() * 1000) + len(self.queue)
        infos = []
        for name, data in (attachments or {}).items():
            ident = f"att{len(self.attachments) + 1}.bin"
            self.attachments[ident] = data
            infos.append(
                {"contentType": "application/octet-stream", "filename": name, "id": ident, "size": len(data)}
            )
        message: dict[str, Any] = {
            "timestamp": stamp,
            "message": text,
            "expiresInSeconds": 0,
            "viewOnce": False,
        }
        if infos:
            message["attachments"] = infos
        if group:
            message["groupInfo"] = {"groupId": group, "type": "DELIVER"}
        envelope = {
            "source": number,
            "sourceNumber": number,
            "sourceUuid": uuid,
            "sourceName": uuid[:4],
            "sourceDevice": 1,
            "timestamp": stamp,
            "dataMessage": message,
        }
        with self.cond:
            self.queue.append(
                {"jsonrpc": "2.0", "method": "receive", "params": {"envelope": envelope, "account": ACCOUNT}}
            )
            self.cond.notify_all()
        return stamp

    def drop(self) -> None:
        with self.cond:
            self.generation += 1
            self.cond.notify_all()

    def sent(self, method: str = "send") -> list[dict[str, Any]]:
        with self.cond:
            return [c["params"] for c in self.calls if c.get("method") == method]

    def texts(self, to: str) -> list[str]:
        return [
            p["message"]
            for p in self.sent()
            if (p.get("recipient") == [to] or p.get("groupId") == to) and p.get("message")
        ]

    def wait(self, pred: Any, timeout: float = 15.0) -> list[dict[str, Any]]:
        return wait_until(
            self.cond,
            lambda: [p for p in self.sent() if pred(p)],
            lambda: f"sent so far: {self.sent()}",
            timeout,
        )

    def wait_streams(self, count: int, timeout: float = 15.0) -> None:
        wait_until(
            self.cond, lambda: self.streams >= count, lambda: "grove did not open the event stream", timeout
        )
