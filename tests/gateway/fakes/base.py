"""What the fake platform servers share: a threaded stdlib HTTP server on 127.0.0.1, request bodies decoded
(JSON, form or multipart), a log of every call, and a bounded wait for a call to arrive."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qsl, urlparse

from tests.gateway.fakes.waiting import wait_until


@dataclass
class Call:
    method: str  # the API method ("sendMessage", "chat.postMessage", "POST /channels/1/messages")
    params: dict[str, Any]
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # field -> (file name, bytes)


def decode_body(headers: Any, body: bytes) -> tuple[dict[str, Any], dict[str, tuple[str, bytes]]]:
    ctype = headers.get("Content-Type", "") or ""
    if not body:
        return {}, {}
    if ctype.startswith("application/json"):
        data = json.loads(body)
        return (data if isinstance(data, dict) else {"_": data}), {}
    if ctype.startswith("multipart/form-data"):
        msg = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
        params: dict[str, Any] = {}
        files: dict[str, tuple[str, bytes]] = {}
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            filename = part.get_filename()
            payload = part.get_payload(decode=True) or b""
            if filename is not None:
                files[name] = (filename, payload)
            else:
                params[name] = payload.decode()
        return params, files
    return dict(parse_qsl(body.decode())), {}


class LocalHttp:
    """A threaded stdlib HTTP server on 127.0.0.1 (any free port) for `handler`, run as a context manager."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class FakeServer(LocalHttp):
    """Subclass and implement `handle(handler, method, path, params, files, raw) -> (status, body, ctype)`."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.cond = threading.Condition()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet tests
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                url = urlparse(self.path)
                params, files = decode_body(self.headers, raw)
                params.update(dict(parse_qsl(url.query)))
                status, body, ctype = server.handle(self, self.command, url.path, params, files, raw)
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve

        super().__init__(Handler)

    def handle(
        self, handler: Any, verb: str, path: str, params: dict[str, Any], files: dict[str, Any], raw: bytes
    ) -> tuple[int, bytes, str]:
        raise NotImplementedError

    def record(self, call: Call) -> None:
        with self.cond:
            self.calls.append(call)
            self.cond.notify_all()

    def wait_for(self, pred: Callable[[Call], bool], count: int = 1, timeout: float = 20.0) -> list[Call]:
        """The first `count` recorded calls matching `pred`; fails (AssertionError) if they do not come in time."""

        def found() -> list[list[Call]]:
            matching = [c for c in self.calls if pred(c)]
            return [matching[:count]] if len(matching) >= count else []

        def failure() -> str:
            return f"expected {count} matching call(s); calls so far: {[c.method for c in self.calls]}"

        return wait_until(self.cond, found, failure, timeout)[0]

    def sent(self, method: str) -> list[Call]:
        with self.cond:
            return [c for c in self.calls if c.method == method]


def json_body(data: Any, status: int = 200) -> tuple[int, bytes, str]:
    return status, json.dumps(data).encode(), "application/json"
