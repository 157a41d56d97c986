"""Issue 33's findings about grove's MCP server over streamable HTTP, one test each, spoken as raw JSON-RPC (what
any client sends): logging, completion and subscriptions answered; an invalid tools/list cursor refused; a
priming event with `retry:`; a 401 with WWW-Authenticate; a lower-case `bearer` accepted; a server version."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="grove's MCP server needs the mcp extra")
uvicorn = pytest.importorskip("uvicorn", reason="the MCP HTTP transport needs uvicorn")
httpx = pytest.importorskip("httpx")

from grove.config import Settings  # noqa: E402
from grove.mcp_server.http import PATH, guarded, http_app  # noqa: E402
from grove.mcp_server.server import GroveService, build_server  # noqa: E402

TOKEN = "t0ken-for-tests"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def url(settings: Settings, tmp_path: Path) -> Iterator[str]:
    app = guarded(http_app(build_server(GroveService(settings, workspace=tmp_path / "ws"))), TOKEN)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}{PATH}"
    finally:
        server.should_exit = True
        thread.join(10)


class Rpc:
    def __init__(self, url: str, auth: str = f"Bearer {TOKEN}") -> None:
        self.url, self.headers, self.next_id, self.raw = url, {**ACCEPT, "Authorization": auth}, 1, ""

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            body["params"] = params
        self.next_id += 1
        r = httpx.post(self.url, json=body, headers=self.headers, timeout=20)
        assert r.status_code == 200, r.text
        if "mcp-session-id" in r.headers:
            self.headers["mcp-session-id"] = r.headers["mcp-session-id"]
        self.raw = r.text
        if r.headers["content-type"].startswith("application/json"):
            return r.json()
        messages = [
            json.loads(line[5:])
            for line in r.text.splitlines()
            if line.startswith("data:") and line[5:].strip()
        ]
        return next(m for m in messages if m.get("id") == body["id"])

    def start(self, version: str = "2025-11-25") -> dict[str, Any]:
        info = self.call(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        )
        self.headers["mcp-protocol-version"] = info["result"]["protocolVersion"]
        httpx.post(
            self.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=self.headers
        )
        return info


def test_the_server_names_its_version(url: str) -> None:
    assert Rpc(url).start()["result"]["serverInfo"]["version"]


def test_logging_completion_and_subscriptions_are_answered(url: str) -> None:
    rpc = Rpc(url)
    caps = rpc.start()["result"]["capabilities"]
    assert "logging" in caps and "completions" in caps and caps["resources"]["subscribe"] is True
    assert rpc.call("logging/setLevel", {"level": "warning"})["result"] == {}
    done = rpc.call(
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": ""}},
    )
    assert done["result"]["completion"]["values"] == []
    assert rpc.call("resources/subscribe", {"uri": "grove://memory"})["result"] == {}
    assert rpc.call("resources/unsubscribe", {"uri": "grove://memory"})["result"] == {}


def test_an_invalid_tools_list_cursor_is_refused(url: str) -> None:
    rpc = Rpc(url)
    rpc.start()
    assert rpc.call("tools/list")["result"]["tools"]
    assert rpc.call("tools/list", {"cursor": "bogus"})["error"]["code"] == -32602


def test_streams_start_with_a_priming_event_and_retry(url: str) -> None:
    rpc = Rpc(url)
    rpc.start()
    rpc.call("tools/list")
    if "retry:" not in rpc.raw:  # answered as one JSON body: the priming applies to SSE streams
        pytest.fail(f"no SSE priming event with retry: {rpc.raw[:200]!r}")


def test_a_401_says_bearer_and_lower_case_bearer_is_accepted(url: str) -> None:
    r = httpx.post(
        url,
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={**ACCEPT, "Authorization": "Bearer nope"},
    )
    assert r.status_code == 401 and r.headers["www-authenticate"].lower().startswith("bearer")
    assert Rpc(url, auth=f"bearer {TOKEN}").start()["result"]["serverInfo"]["name"] == "grove"
