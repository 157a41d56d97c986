"""grove's MCP server offers the tasks extension (SEP-2663) for `run_task` on 2026-07-28: driven over streamable
HTTP on 127.0.0.1 by the SDK's client (with grove's own tasks types) and by grove's client, and over stdio by
`grove mcp serve`. A task is polled to its (redacted) answer, cancelled mid-turn (the turn stops), unreadable by
another token's client, and a client without the extension gets the plain result."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="grove's MCP server needs the mcp extra")
uvicorn = pytest.importorskip("uvicorn", reason="the MCP HTTP transport needs uvicorn")

from mcp import Client, types  # noqa: E402
from mcp.client.extension import ClientExtension, ResultClaim  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from grove.config import Settings  # noqa: E402
from grove.config.mcp import McpServerConfig  # noqa: E402
from grove.llm.script import ScriptModel  # noqa: E402
from grove.mcp_client.manager import McpManager  # noqa: E402
from grove.mcp_client.tasks import (  # noqa: E402
    IDENTIFIER,
    CancelTask,
    GetTask,
    TaskHandle,
    TaskIdParams,
    TaskState,
)
from grove.mcp_server.http import PATH, guarded, http_app  # noqa: E402
from grove.mcp_server.server import GroveService, build_server  # noqa: E402

TOKENS = {"alice": "alice-token-" + "a" * 20, "bob": "bob-token-" + "b" * 20}
SECRET = "sk-proj-" + "Qw8eR7tY6uI5oP4aS3dF2gH1jK0lZ9xC" * 2


class Turns:
    """The served model: answers at once, or (`hold`) blocks its first call until released, then asks for a
    tool, so a cancelled turn shows as no second model call."""

    def __init__(self) -> None:
        self.hold = False
        self.started = threading.Event()
        self.release = threading.Event()
        self.model = ScriptModel(self.step)

    def step(self, messages: list[Any], _schemas: list[Any]) -> Any:
        if not self.hold:
            return f"the answer is 42 (key {SECRET})"
        self.started.set()
        self.release.wait(20)
        if messages[-1].get("role") == "tool":
            return "finished anyway"
        return {"tool_calls": [{"name": "no_such_tool", "arguments": {}}]}


class KeepHandle(ClientExtension):
    """A client that declares tasks and keeps each task handle as it came (the test follows it); the call itself
    ends there, as an error result (a result with no content must not be checked against the output schema)."""

    identifier = IDENTIFIER

    def __init__(self) -> None:
        self.handles: list[TaskHandle] = []

    def claims(self) -> list[ResultClaim[Any]]:
        async def keep(handle: TaskHandle, _ctx: Any) -> types.CallToolResult:
            self.handles.append(handle)
            return types.CallToolResult(content=[], is_error=True)

        return [ResultClaim(result_type="task", model=TaskHandle, resolve=keep)]


async def start(c: Client, task: str) -> TaskHandle:
    """run_task called; the handle it answered with."""
    (keeper,) = c.extensions or []
    await c.call_tool("run_task", {"task": task})
    return keeper.handles[-1]  # type: ignore[attr-defined]


@pytest.fixture
def turns() -> Turns:
    return Turns()


@pytest.fixture
def url(settings: Settings, tmp_path: Path, turns: Turns) -> Iterator[str]:
    service = GroveService(settings, workspace=tmp_path / "ws", model=turns.model)
    app = guarded(http_app(build_server(service)), TOKENS)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}{PATH}"
    finally:
        turns.release.set()
        server.should_exit = True
        thread.join(10)


@contextlib.asynccontextmanager
async def transport(url: str, who: str) -> AsyncIterator[Any]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKENS[who]}"}, timeout=30)
    async with http, streamable_http_client(url, http_client=http) as streams:
        yield streams


def client(url: str, who: str = "alice", tasks: bool = True, mode: str = "auto") -> Client:
    return Client(transport(url, who), extensions=[KeepHandle()] if tasks else None, cache=None, mode=mode)


async def get(c: Client, task_id: str) -> TaskState:
    return await c.session.send_request(GetTask(params=TaskIdParams(task_id=task_id)), TaskState)


async def until(c: Client, task_id: str, done: Any, seconds: float = 20) -> TaskState:
    deadline = time.monotonic() + seconds
    while True:
        state = await get(c, task_id)
        if done(state) or time.monotonic() > deadline:
            return state
        await asyncio.sleep(0.02)


def test_a_declaring_client_gets_a_task_and_polls_it_to_the_redacted_answer(url: str) -> None:
    async def main() -> None:
        async with client(url) as c:
            assert IDENTIFIER in (c.server_capabilities.extensions or {})
            handle = await start(c, "six times seven?")
            assert isinstance(handle, TaskHandle) and handle.status == "working", handle
            state = await until(c, handle.task_id, lambda s: s.status != "working")
            assert state.status == "completed", state
            result = types.CallToolResult.model_validate(state.result)
            text = result.content[0].text  # type: ignore[union-attr]
            assert text.startswith("the answer is 42") and not result.is_error
            assert SECRET not in str(state.result), "a task's result is redacted like a tool result"

    asyncio.run(main())


def test_cancelling_a_task_stops_its_grove_turn(url: str, turns: Turns) -> None:
    turns.hold = True

    async def main() -> None:
        async with client(url) as c:
            handle = await start(c, "a long job")
            assert await asyncio.to_thread(turns.started.wait, 10)
            await c.session.send_request(
                CancelTask(params=TaskIdParams(task_id=handle.task_id)), types.Result
            )
            assert (await get(c, handle.task_id)).status == "cancelled"
            turns.release.set()  # the first model call ends; the turn must stop before a second one
            state = await until(c, handle.task_id, lambda s: "stopped" in (s.status_message or ""))
            assert state.status == "cancelled" and "turn stopped" in (state.status_message or ""), state
            assert state.result is None

    asyncio.run(main())
    assert turns.model.calls == 1, "the cancelled turn went on to another model call"


def test_another_client_cannot_read_or_cancel_a_task(url: str, turns: Turns) -> None:
    turns.hold = True

    async def main() -> None:
        async with client(url, "alice") as alice, client(url, "bob") as bob:
            handle = await start(alice, "alice's job")
            for ask in (get(bob, handle.task_id), bob.session.send_request(
                CancelTask(params=TaskIdParams(task_id=handle.task_id)), types.Result
            )):  # fmt: skip
                with pytest.raises(MCPError) as refused:
                    await ask
                assert refused.value.error.code == types.INVALID_PARAMS
                assert "not found" in refused.value.error.message  # the same answer as for an unknown id
            assert (await get(alice, handle.task_id)).status == "working"
            turns.release.set()
            assert (await until(alice, handle.task_id, lambda s: s.status != "working")).status == "completed"

    asyncio.run(main())


def test_an_owner_has_at_most_four_turns_running_at_once(url: str, turns: Turns) -> None:
    turns.hold = True

    async def main() -> None:
        async with client(url) as c, client(url, "bob") as bob:
            handles = [await start(c, f"job {i}") for i in range(4)]
            (keeper,) = c.extensions or []
            refused = await c.call_tool("run_task", {"task": "one too many"})
            assert refused.is_error and "at most 4" in refused.content[0].text  # type: ignore[union-attr]
            assert len(keeper.handles) == 4  # type: ignore[attr-defined]
            await start(bob, "bob's own job")  # another owner's count is its own
            await c.session.send_request(
                CancelTask(params=TaskIdParams(task_id=handles[0].task_id)), types.Result
            )
            turns.release.set()
            await until(c, handles[0].task_id, lambda s: "stopped" in (s.status_message or ""))
            await start(c, "now there is room")
            assert len(keeper.handles) == 5  # type: ignore[attr-defined]

    asyncio.run(main())


def test_a_client_without_the_extension_gets_the_plain_result(url: str) -> None:
    async def main() -> None:
        async with client(url, tasks=False) as c:
            result = await c.call_tool("run_task", {"task": "six times seven?"})
            assert isinstance(result, types.CallToolResult), result
            assert result.content[0].text.startswith("the answer is 42")  # type: ignore[union-attr]
            with pytest.raises(MCPError) as refused:  # tasks/* need the extension declared
                await get(c, "whatever")
            assert refused.value.error.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY

    asyncio.run(main())


def test_a_handshake_era_client_gets_the_plain_result_though_it_declares_tasks(url: str) -> None:
    """SEP-2663 is a 2026-07-28 extension: a 2025-11-25 session that declares it at initialize (raw JSON-RPC:
    the SDK's client declares extensions on 2026-07-28 only) still waits for its result, as before."""
    import httpx

    headers = {
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {TOKENS['alice']}",
    }

    def rpc(body: dict[str, Any]) -> dict[str, Any]:
        r = httpx.post(url, json={"jsonrpc": "2.0", **body}, headers=headers, timeout=20)
        assert r.status_code in (200, 202), r.text
        headers.setdefault("mcp-session-id", r.headers.get("mcp-session-id", ""))
        data = [line[5:] for line in r.text.splitlines() if line.startswith("data:") and line[5:].strip()]
        return json.loads(data[-1]) if data else (r.json() if r.text else {})

    caps = {"extensions": {IDENTIFIER: {}}}
    info = {
        "protocolVersion": "2025-11-25",
        "capabilities": caps,
        "clientInfo": {"name": "t", "version": "1"},
    }
    assert rpc({"id": 1, "method": "initialize", "params": info})["result"]["protocolVersion"] == "2025-11-25"
    headers["mcp-protocol-version"] = "2025-11-25"
    rpc({"method": "notifications/initialized"})
    call = {"name": "run_task", "arguments": {"task": "six times seven?"}}
    result = rpc({"id": 2, "method": "tools/call", "params": call})["result"]
    assert result.get("resultType") != "task" and result["content"][0]["text"].startswith("the answer is 42")


def test_grove_s_own_client_follows_grove_s_task_over_http(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROVE_TEST_MCP_TOKEN", TOKENS["alice"])
    manager = McpManager(
        [McpServerConfig(name="g", url=url, headers={"Authorization": "Bearer ${GROVE_TEST_MCP_TOKEN}"})]
    )
    try:
        result = manager.call_tool("g", "run_task", {"task": "six times seven?"})
    finally:
        manager.close()
    assert not result.is_error and result.content[0].text.startswith("the answer is 42"), result
    assert SECRET not in result.content[0].text


def test_over_stdio_a_task_runs_to_its_answer(tmp_path: Path) -> None:
    """`grove mcp serve` over stdio, with the SDK's client holding the handle, then grove's client."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "script.yaml").write_text("- text: the answer is 42\n- text: the answer is 42\n")
    args = [
        "-m",
        "grove",
        "mcp",
        "serve",
        "--model",
        f"script:{home / 'script.yaml'}",
        "--workspace",
        str(home),
    ]
    env = {"GROVE_HOME": str(home)}
    from mcp import StdioServerParameters

    async def main() -> None:
        params = StdioServerParameters(command=sys.executable, args=args, env=env)
        async with Client(params, extensions=[KeepHandle()], cache=None) as c:
            handle = await start(c, "six times seven?")
            assert isinstance(handle, TaskHandle), handle
            with pytest.raises(MCPError):  # an id it never gave out
                await get(c, handle.task_id[::-1])
            state = await until(c, handle.task_id, lambda s: s.status != "working")
            assert state.status == "completed" and "the answer is 42" in str(state.result), state

    asyncio.run(main())
    manager = McpManager(
        [McpServerConfig(name="grove", command=sys.executable, args=args, env=env, timeout=60)]
    )
    try:
        result = manager.call_tool("grove", "run_task", {"task": "again?"})
    finally:
        manager.close()
    assert not result.is_error and result.content[0].text == "the answer is 42", result
