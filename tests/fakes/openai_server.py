"""A real HTTP fake of the OpenAI chat-completions API on 127.0.0.1: queued replies, errors, delays, streaming.

In tests: `with FakeOpenAIServer() as srv: srv.queue(FakeReply(text="hi")); ... srv.url, srv.requests`.
As a process: `python tests/fakes/openai_server.py --port 0 --text "Hello!" [--script replies.json]` prints its
URL on the first stdout line and serves until killed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

DEFAULT_ERRORS = {  # status -> (type, code, message), shaped like the real API's error bodies
    400: ("invalid_request_error", None, "Bad request"),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided"),
    403: ("permission_error", None, "You are not allowed to use this model"),
    404: (
        "invalid_request_error",
        "model_not_found",
        "The model does not exist or you do not have access to it",
    ),
    413: ("invalid_request_error", None, "Request entity too large"),
    429: ("rate_limit_error", "rate_limit_exceeded", "Rate limit reached, please retry later"),
    500: ("server_error", None, "The server had an error while processing your request"),
    503: ("server_error", None, "The engine is currently overloaded, please try again later"),
}


@dataclass
class FakeReply:
    """One answer of a fake server. A status other than 200 answers an error (error_body, or a default body)."""

    text: str | None = None
    tool_calls: list[tuple[str, dict[str, Any]]] | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error_body: dict[str, Any] | str | None = None
    delay: float = 0.0  # seconds to wait before answering (to provoke client timeouts)
    usage: dict[str, Any] | None = None  # provider-format usage; None = estimated from the text sizes
    finish_reason: str | None = None
    drop: bool = False  # close the connection without answering (a connection error for the client)
    stream_error: dict[str, Any] | None = None  # streams only: this error (type, message) after the content
    cut_stream: bool = False  # streams only: end the connection after the content, before the stream is done

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FakeReply:
        """From a --script entry: {"text": ..., "tool_calls": [{"name": ..., "arguments": {...}}], "status": ...}."""
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown reply keys {sorted(unknown)}; use {sorted(cls.__dataclass_fields__)}")
        calls = []
        for call in data.get("tool_calls") or []:
            if isinstance(call, dict):
                calls.append((call["name"], call.get("arguments", {})))
            else:
                calls.append((call[0], call[1]))
        return cls(**{**data, "tool_calls": calls or None})


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any  # parsed JSON, or None
    raw: bytes = b""  # the body's bytes as they came over the wire


class FakeServer:
    """Shared machinery: a threaded HTTP server, a reply queue, a request log. Subclasses speak a provider's API."""

    url_suffix: ClassVar[str] = ""

    def __init__(self, default: FakeReply | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        self.default = default or FakeReply(text="ok")
        self.requests: list[RecordedRequest] = []
        self._replies: deque[FakeReply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer((host, port), self._handler_class())
        self._httpd.daemon_threads = True  # a handler still sleeping on a delay must not block close()
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.url_suffix}"

    def queue(self, *replies: FakeReply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def next_reply(self) -> FakeReply:
        with self._lock:
            return self._replies.popleft() if self._replies else self.default

    def start(self) -> FakeServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def serve_forever(self) -> None:
        self._httpd.serve_forever(poll_interval=0.2)

    # --- hooks for subclasses -------------------------------------------------------------------------------
    def handle_get(self, h: Handler, path: str) -> None:
        h.send_json(404, {"error": {"message": f"no route GET {path}", "type": "invalid_request_error"}})

    def handle_post(self, h: Handler, path: str, body: Any) -> None:
        h.send_json(404, {"error": {"message": f"no route POST {path}", "type": "invalid_request_error"}})

    def error_body(self, reply: FakeReply) -> dict[str, Any] | str:
        kind, code, message = DEFAULT_ERRORS.get(reply.status, ("api_error", None, f"HTTP {reply.status}"))
        return {"error": {"message": message, "type": kind, "param": None, "code": code}}

    # --- shared reply behaviour ---------------------------------------------------------------------------
    def wait_and_maybe_fail(self, h: Handler, reply: FakeReply) -> bool:
        """Apply delay, drop and error status. True when the request was answered here (or abandoned)."""
        if reply.delay and self._stopping.wait(reply.delay):
            return True
        if reply.drop:
            h.close_connection = True
            h.connection.close()
            return True
        if reply.status != 200:
            body = reply.error_body if reply.error_body is not None else self.error_body(reply)
            h.send_json(reply.status, body, reply.headers)
            return True
        return False

    def _handler_class(self) -> type[Handler]:
        server = self

        class BoundHandler(Handler):
            fake = server

        return BoundHandler


class Handler(BaseHTTPRequestHandler):
    fake: ClassVar[FakeServer]

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _record(self, body: Any, raw: bytes = b"") -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        with self.fake._lock:
            self.fake.requests.append(RecordedRequest(self.command, self.path, headers, body, raw))

    def do_GET(self) -> None:
        self._record(None)
        self.fake.handle_get(self, self.path)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError as e:
            self._record(raw.decode("utf-8", "replace"), raw)
            self.send_json(
                400, {"error": {"message": f"body is not JSON: {e}", "type": "invalid_request_error"}}
            )
            return
        self._record(body, raw)
        with contextlib.suppress(
            BrokenPipeError, ConnectionResetError
        ):  # the client gave up (a timeout test)
            self.fake.handle_post(self, self.path, body)

    def send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def start_sse(self, headers: dict[str, str] | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.close_connection = True  # no length: the end of the body is the end of the connection

    def send_sse(self, data: Any, event: str | None = None) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        prefix = f"event: {event}\n" if event else ""
        self.wfile.write(f"{prefix}data: {text}\n\n".encode())
        self.wfile.flush()


def estimate_tokens(obj: Any) -> int:
    text = obj if isinstance(obj, str) else json.dumps(obj)
    return max(1, len(text) // 4)


def text_pieces(text: str) -> list[str]:
    """Split text into word-sized deltas so a stream carries several chunks."""
    pieces, start = [], 0
    for i, ch in enumerate(text):
        if ch == " " and i > start:
            pieces.append(text[start:i])
            start = i
    pieces.append(text[start:])
    return [p for p in pieces if p]


class FakeOpenAIServer(FakeServer):
    """POST /v1/chat/completions (plain and stream=true) and GET /v1/models, in the OpenAI wire format."""

    url_suffix = "/v1"
    model_ids: ClassVar[list[str]] = ["fake-model"]

    def handle_get(self, h: Handler, path: str) -> None:
        if path.rstrip("/") == "/v1/models":
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.model_ids]
            h.send_json(200, {"object": "list", "data": data})
        else:
            super().handle_get(h, path)

    def handle_post(self, h: Handler, path: str, body: Any) -> None:
        if path.rstrip("/") != "/v1/chat/completions":
            return super().handle_post(h, path, body)
        if not isinstance(body, dict) or not body.get("model") or not isinstance(body.get("messages"), list):
            msg = "a chat completion needs 'model' and a list of 'messages'"
            return h.send_json(400, {"error": {"message": msg, "type": "invalid_request_error"}})
        reply = self.next_reply()
        if self.wait_and_maybe_fail(h, reply):
            return None
        calls = [
            {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for i, (name, args) in enumerate(reply.tool_calls or [])
        ]
        finish = reply.finish_reason or ("tool_calls" if calls else "stop")
        usage = reply.usage or {
            "prompt_tokens": estimate_tokens(body["messages"]),
            "completion_tokens": estimate_tokens((reply.text or "") + json.dumps(calls)),
        }
        usage = {"total_tokens": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0), **usage}
        head = {"id": "chatcmpl-fake", "created": int(time.time()), "model": body["model"]}
        if body.get("stream"):
            return self._stream(h, reply, head, calls, finish, usage, body)
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if calls:
            message["tool_calls"] = calls
        choice = {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
        h.send_json(
            200, {**head, "object": "chat.completion", "choices": [choice], "usage": usage}, reply.headers
        )
        return None

    def _stream(
        self,
        h: Handler,
        reply: FakeReply,
        head: dict[str, Any],
        calls: list[dict[str, Any]],
        finish: str,
        usage: dict[str, Any],
        body: dict[str, Any],
    ) -> None:
        head = {**head, "object": "chat.completion.chunk"}

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
            return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

        h.start_sse(reply.headers)
        h.send_sse(chunk({"role": "assistant", "content": ""}))
        for piece in text_pieces(reply.text or ""):
            h.send_sse(chunk({"content": piece}))
        for i, call in enumerate(calls):
            # Like the real API: id and name first, then the arguments in fragments.
            first = {
                "index": i,
                "id": call["id"],
                "type": "function",
                "function": {"name": call["function"]["name"]},
            }
            h.send_sse(chunk({"tool_calls": [{**first, "function": {**first["function"], "arguments": ""}}]}))
            args = call["function"]["arguments"]
            for start in range(0, len(args), 7):
                h.send_sse(
                    chunk({"tool_calls": [{"index": i, "function": {"arguments": args[start : start + 7]}}]})
                )
        if reply.stream_error:
            h.send_sse({"error": reply.stream_error})
            return
        if reply.cut_stream:
            return
        h.send_sse(chunk({}, finish))
        if (body.get("stream_options") or {}).get("include_usage"):
            h.send_sse({**head, "choices": [], "usage": usage})
        h.send_sse("[DONE]")


def load_script(path: str) -> list[FakeReply]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise SystemExit(f'{path}: a script is a JSON list of replies, e.g. [{{"text": "Hello"}}]')
    return [FakeReply.from_dict(item) for item in data]


def main(server_class: type[FakeServer] = FakeOpenAIServer, argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=f"Run {server_class.__name__} until killed.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 = any free port (the URL is printed)")
    parser.add_argument("--text", default="ok", help="the answer when no scripted reply is queued")
    parser.add_argument(
        "--script", help="JSON list of replies to give in order (text, tool_calls, status...)"
    )
    args = parser.parse_args(argv)
    server = server_class(FakeReply(text=args.text), host=args.host, port=args.port)
    if args.script:
        server.queue(*load_script(args.script))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"http://{args.host}:{server.port}{server.url_suffix}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
