"""`grove chat` in a real pseudo-terminal: Ctrl-C in a streaming answer keeps the partial text in the session
(marked interrupted), and nothing of it shows up in the next answer."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import re
import select
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

STORY = "Once upon a time there was a grove.\n"
HALF_LINE = "and then the half line"  # no newline: the stream holds it back until the line ends
SECOND = "Second answer here."
ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]|\x1b[()][A-Z0-9]|\x1b[=>]|\r")


class _Handler(BaseHTTPRequestHandler):
    release = threading.Event()  # set when the test is over: a stalled answer may end
    stalled = threading.Event()  # set when an answer is stalled mid-stream

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        last = next((m for m in reversed(body["messages"]) if m["role"] == "user"), {})
        story = "tell me a story" in str(last.get("content"))
        # one chunk: once the story's line shows, the half line is surely held back in the client
        pieces = [STORY + HALF_LINE] if story else [SECOND]
        if not body.get("stream"):
            if story:  # `grove run` in a script does not stream: stall before answering
                self.stalled.set()
                self.release.wait(60)
                return
            text = "".join(pieces)
            data = json.dumps(
                {"id": "x", "object": "chat.completion", "model": "fake",
                 "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                 "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
            ).encode()  # fmt: skip
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.close_connection = True
        try:
            for piece in pieces:
                chunk = {"id": "x", "object": "chat.completion.chunk", "model": "fake",
                         "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}  # fmt: skip
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
            if story:  # stall mid-answer until the test is over: the user's Ctrl-C has to end it
                self.stalled.set()
                self.release.wait(60)
                return
            done = {"id": "x", "object": "chat.completion.chunk", "model": "fake",
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}  # fmt: skip
            self.wfile.write(f"data: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode())
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


@contextlib.contextmanager
def serve() -> Iterator[str]:
    """The fake OpenAI-compatible server on 127.0.0.1; yields its base URL."""
    _Handler.release.clear()
    _Handler.stalled.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        _Handler.release.set()
        server.shutdown()
        server.server_close()


@pytest.fixture
def fake_url() -> Iterator[str]:
    with serve() as url:
        yield url


class Terminal:
    """A child process on a pty: type into it, wait (bounded) for what it shows."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        pid, self.master = pty.fork()  # the pty is the child's controlling terminal: Ctrl-C sends SIGINT
        if pid == 0:
            os.execve(argv[0], argv, env)
        self.pid = pid
        self.code: int | None = None
        self.seen = ""

    def alive(self) -> bool:
        if self.code is None:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.code = os.waitstatus_to_exitcode(status)
        return self.code is None

    def wait(self, timeout: float) -> int | None:
        end = time.monotonic() + timeout
        while self.alive() and time.monotonic() < end:
            self.drain(0.2)
        return self.code

    def drain(self, wait: float) -> None:
        ready, _, _ = select.select([self.master], [], [], wait)
        if ready:
            with contextlib.suppress(OSError):
                self.seen += os.read(self.master, 65536).decode(errors="replace")

    def read_until(self, text: str, timeout: float = 60) -> str:
        end = time.monotonic() + timeout
        while text not in ANSI.sub("", self.seen):
            left = end - time.monotonic()
            if left <= 0 or not self.alive():
                raise AssertionError(f"never saw {text!r}; screen so far:\n{ANSI.sub('', self.seen)}")
            self.drain(min(left, 0.5))
        return ANSI.sub("", self.seen)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> None:
        if self.alive():
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.master)


def test_ctrl_c_keeps_the_partial_answer_and_nothing_leaks(grove_home: Path, fake_url: str) -> None:
    env = {**os.environ, "GROVE_HOME": str(grove_home), "GROVE_API_KEY": "test-key", "TERM": "xterm"}
    term = Terminal(
        [sys.executable, "-m", "grove", "chat", "-m", f"openai-compat:fake@{fake_url}", "-t", ""], env
    )
    try:
        term.read_until("/help for commands")
        term.type("tell me a story\r")
        term.read_until(STORY.strip())
        term.type("\x03")  # Ctrl-C while the answer is still streaming
        screen = term.read_until("turn cancelled")
        mark = len(screen)
        term.type("and now?\r")
        screen = term.read_until(SECOND)
        term.type("/exit\r")
        assert term.wait(30) == 0, term.seen
    finally:
        term.close()
    next_turn = screen[mark:]
    assert HALF_LINE not in next_turn, next_turn  # the held-back half line did not open the next answer
    with sqlite3.connect(grove_home / "state.db") as db:
        rows = db.execute("SELECT role, content FROM messages ORDER BY rowid").fetchall()
    assistant = [content for role, content in rows if role == "assistant"]
    assert any(STORY.strip() in c and HALF_LINE in c and "interrupted" in c for c in assistant), rows
    assert any(c == SECOND for c in assistant), rows
