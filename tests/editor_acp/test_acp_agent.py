"""`grove acp` driven by the ACP SDK's own client over stdio: a full turn with a permission request, cancel,
and a malformed request answered with a JSON-RPC error."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

acp = pytest.importorskip("acp")
from acp import schema  # noqa: E402


class Editor:
    """The editor's side: records updates and answers permission requests with a fixed option."""

    def __init__(self, answer: str | None) -> None:
        self.answer = answer
        self.asked: list[str] = []
        self.updates: list[Any] = []

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def request_permission(self, options: list[Any], session_id: str, tool_call: Any, **kw: Any) -> Any:
        self.asked.append(tool_call.title)
        if self.answer is None:
            return schema.RequestPermissionResponse(outcome=schema.DeniedOutcome(outcome="cancelled"))
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id=self.answer)
        )

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        self.updates.append(update)


def script(tmp_path: Path, steps: list[dict[str, Any]]) -> str:
    path = tmp_path / "script.yaml"
    path.write_text(json.dumps(steps))  # JSON is YAML
    return f"script:{path}"


async def turn(tmp_path: Path, workspace: Path, answer: str | None, steps: list[dict[str, Any]]) -> Editor:
    editor = Editor(answer)
    args = ["-m", "grove", "acp", "--model", script(tmp_path, steps), "--allow-terminal", "-t", "terminal"]
    async with acp.spawn_agent_process(editor, sys.executable, *args, env=dict(os.environ)) as (conn, _proc):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        done = await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("clean up")])
        assert done.stop_reason == "end_turn"
    return editor


STEPS = [
    {"tool_calls": [{"name": "terminal", "arguments": {"command": "touch made; git reset --hard"}}]},
    {"text": "cleaned"},
]


@pytest.mark.parametrize(("answer", "runs"), [("once", True), ("deny", False), (None, False)])
def test_a_risky_command_asks_the_editor_and_the_answer_holds(
    tmp_path: Path, workspace: Path, answer: str | None, runs: bool
) -> None:
    editor = asyncio.run(turn(tmp_path, workspace, answer, STEPS))
    assert editor.asked == ["Run: touch made; git reset --hard"]
    assert (workspace / "made").exists() is runs
    kinds = [u.session_update for u in editor.updates]
    assert "tool_call" in kinds and "tool_call_update" in kinds and "agent_message_chunk" in kinds
    text = "".join(u.content.text for u in editor.updates if u.session_update == "agent_message_chunk")
    assert "cleaned" in text


def test_a_malformed_request_gets_a_json_rpc_error(tmp_path: Path) -> None:
    async def go() -> list[dict[str, Any]]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "grove", "acp", "--model", script(tmp_path, [{"text": "hi"}]),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        answers = []
        for line in [b"{not json\n", b'{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}\n',
                     b'{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}\n']:  # fmt: skip
            proc.stdin.write(line)
            await proc.stdin.drain()
            if b"id" in line:
                answers.append(json.loads(await asyncio.wait_for(proc.stdout.readline(), 30)))
        proc.stdin.close()
        await proc.wait()
        return answers

    bad, good = asyncio.run(go())
    assert bad["id"] == 1 and bad["error"]["code"] == -32602
    assert good["id"] == 2 and good["result"]["protocolVersion"] == acp.PROTOCOL_VERSION


class Canceller(Editor):
    """An editor whose user presses stop while grove asks: session/cancel, then the pending request cancelled."""

    async def request_permission(self, options: list[Any], session_id: str, tool_call: Any, **kw: Any) -> Any:
        self.asked.append(tool_call.title)
        await self.conn.cancel(session_id=session_id)
        return schema.RequestPermissionResponse(outcome=schema.DeniedOutcome(outcome="cancelled"))


def test_cancel_stops_the_turn(tmp_path: Path, workspace: Path) -> None:
    async def go() -> tuple[str, Canceller]:
        editor = Canceller(None)
        steps = [*STEPS[:1], *STEPS]  # were the turn not stopped, the model would ask to run it again
        args = [
            "-m",
            "grove",
            "acp",
            "--model",
            script(tmp_path, steps),
            "--allow-terminal",
            "-t",
            "terminal",
        ]
        async with acp.spawn_agent_process(editor, sys.executable, *args, env=dict(os.environ)) as (conn, _):
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
            done = await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("clean up")])
        return done.stop_reason, editor

    reason, editor = asyncio.run(go())
    assert reason == "cancelled"
    assert len(editor.asked) == 1 and not (workspace / "made").exists()
