"""Issue 33: a server's own requests to grove's MCP client, each driven by a real request of an SDK server
(tests/mcp_both/mcp_asking_server.py) over stdio and over streamable HTTP on 127.0.0.1, in both protocol eras
(2026-07-28: asked inside the call's answer; 2025-11-25 handshake: asked with requests mid-call). Sampling is
answered by the session's model, approved per the policy, counted in spend, its input screened and its answer
redacted; elicitation is asked on the user's terminal attended and declined unattended; roots are the session's
workspace, with list_changed; server log messages are recorded; a tool the server runs as a task (the
2026-07-28 tasks extension) is followed to its result, asks through its task, and is cancelled when given up;
a tool listed task-only on a 2025-11-25 connection (task-augmented calls, which the SDK does not send) is
refused by name."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp.client.stdio")

from tests.mcp_both import mcp_asking_server as asking
from tests.mcp_both.mcp_fake_http import INJECTION, SECRET

from grove.agent.events import AgentEvents
from grove.config import Settings
from grove.config.mcp import McpConfig, McpServerConfig
from grove.llm.script import ScriptModel
from grove.llm.types import ToolCall
from grove.mcp_client.caller import Caller, Callers
from grove.mcp_client.connection import McpUnavailable
from grove.mcp_client.manager import McpManager, close_shared
from grove.runtime import Profile, Session
from grove.security.approval.policy import SafetyPolicy
from grove.security.approval.prompt import tty_approver
from grove.tools.context import ToolContext
from grove.tools.registry import ToolResult

SERVER = str(Path(asking.__file__))


@pytest.fixture(scope="module", params=["stdio", "http", "stdio-legacy", "http-legacy"])
def transport(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """How the asking server is reached: the settings of an McpServerConfig."""
    kind: str = request.param
    legacy = kind.endswith("legacy")
    if kind.startswith("stdio"):
        yield {"command": sys.executable, "args": [SERVER, *(["--legacy"] if legacy else [])]}
        close_shared()
    else:
        with asking.running(legacy) as url:
            yield {"url": url}
            close_shared()  # before the server stops: the client ends its HTTP session


@pytest.fixture(scope="module")
def home(transport: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One grove home per transport: its sessions share one connection (one server process), as a process's do."""
    return tmp_path_factory.mktemp("asking-home")


def server(transport: dict[str, Any], trust: str = "trusted") -> McpServerConfig:
    return McpServerConfig(name="asking", trust=trust, timeout=30, **transport)  # type: ignore[arg-type]


class Sink(AgentEvents):
    def __init__(self) -> None:
        self.results: list[tuple[str, ToolResult]] = []
        self.notices: list[str] = []

    def on_tool_end(self, call: ToolCall, result: ToolResult) -> None:
        self.results.append((call.name, result))

    def on_notice(self, text: str) -> None:
        self.notices.append(text)


def turn(
    home: Path,
    cfg: McpServerConfig,
    tool: str,
    args: dict[str, Any],
    answers: list[Any],
    approver: Any = None,
) -> tuple[str, ScriptModel, Sink]:
    """A turn whose model calls `tool` of the asking server through mcp_call, then answers each later request
    (the server's samples, then the turn's end) with `answers` in order; the tool's result text."""
    settings = Settings(home=home, mcp=McpConfig(servers={cfg.name: cfg}))
    call = {"name": "mcp_call", "arguments": {"server": cfg.name, "tool": tool, "arguments": args}}
    model = ScriptModel([{"tool_calls": [call]}, *answers, {"text": "done"}])
    sink = Sink()
    workspace = home / "work"
    workspace.mkdir(parents=True, exist_ok=True)
    profile = Profile(source="test", model=model, workspace=workspace, approver=approver)
    session = Session.open(settings, profile, sink)
    try:
        session.run_turn("go")
    finally:
        session.close()
    results = [r for name, r in sink.results if name == "mcp_call"]
    assert results, sink.results
    return results[0].content, model, sink


def charges(home: Path) -> int:
    """How many requests the spend ledger holds (0 before the first)."""
    if not (home / "spend.db").exists():
        return 0
    with sqlite3.connect(home / "spend.db") as db:
        return int(db.execute("SELECT COUNT(*) FROM charge WHERE scope = 'all'").fetchone()[0])


def terminal(*lines: str) -> tuple[Any, io.StringIO]:
    """A terminal whose user types `lines`: a real pipe (the reader waits with select) and what was shown."""
    r, w = os.pipe()
    os.write(w, "".join(line + "\n" for line in lines).encode())
    os.close(w)
    return os.fdopen(r, "r"), io.StringIO()


# --- sampling ---------------------------------------------------------------------------------------------


def test_sampling_is_answered_by_the_sessions_model_and_counted_in_spend(
    transport: dict[str, Any], home: Path
) -> None:
    before = charges(home)
    text, model, _ = turn(home, server(transport), "summarize", {"question": "Capital of France?"}, ["Paris"])
    assert "said: Paris" in text, text
    sampled_messages, sampled_tools = model.requests[1]
    assert sampled_tools == []  # the server's request gets none of grove's tools
    assert sampled_messages[0]["role"] == "system" and "'asking'" in sampled_messages[0]["content"]
    assert "Answer in one word." in sampled_messages[1]["content"]  # the server's system prompt is user text
    assert sampled_messages[-1] == {"role": "user", "content": "Capital of France?"}
    assert len(model.requests[1][0]) == 3  # nothing of the session's own conversation
    assert charges(home) - before == 3  # the turn's two model calls and the sample, under the same caps


def test_sampling_input_is_screened_and_the_answer_redacted(transport: dict[str, Any], home: Path) -> None:
    text, model, _ = turn(
        home, server(transport), "summarize", {"question": INJECTION}, [f"the key is {SECRET}"]
    )
    assert (
        "[grove security:" in model.requests[1][0][-1]["content"]
    )  # the injection reached it as quoted data
    assert SECRET not in text and "the key is" in text, text


# --- elicitation ------------------------------------------------------------------------------------------


def test_elicitation_is_asked_of_the_user_on_the_terminal(transport: dict[str, Any], home: Path) -> None:
    fin, shown = terminal("Grace", "12", "3", "large", "")  # 12 cups is out of range: asked again
    text, _, _ = turn(home, server(transport), "order", {}, [], tty_approver(fin, shown))
    assert text.startswith("accepted"), text
    assert json.loads(text.removeprefix("accepted ")) == {
        "name": "Grace",
        "cups": 3,
        "size": "large",
        "urgent": False,  # Enter kept the default
    }
    assert "the MCP server 'asking' asks you" in shown.getvalue() and "Your coffee order?" in shown.getvalue()


def test_an_accepted_form_carries_every_default(transport: dict[str, Any], home: Path) -> None:
    fin, shown = terminal("", "", "", "")
    text, _, _ = turn(home, server(transport), "order", {}, [], tty_approver(fin, shown))
    assert json.loads(text.removeprefix("accepted ")) == {
        "name": "Ada",
        "cups": 2,
        "size": "small",
        "urgent": False,
    }


def test_the_user_can_decline_a_question(transport: dict[str, Any], home: Path) -> None:
    fin, shown = terminal("-")
    text, _, _ = turn(home, server(transport), "order", {}, [], tty_approver(fin, shown))
    assert "outcome decline" in text, text


def test_elicitation_is_declined_unattended(transport: dict[str, Any], home: Path) -> None:
    text, _, sink = turn(home, server(transport), "order", {}, [], approver=None)
    assert "outcome decline" in text, text
    assert any("asked you a question; declined" in n for n in sink.notices), sink.notices


# --- roots and logging -------------------------------------------------------------------------------------


def test_roots_are_the_sessions_workspace(transport: dict[str, Any], home: Path) -> None:
    text, _, _ = turn(home, server(transport), "roots", {}, [])
    assert text.strip() == (home / "work").resolve().as_uri(), text


def test_server_log_messages_are_recorded_redacted(transport: dict[str, Any], home: Path) -> None:
    text, _, _ = turn(home, server(transport), "chatty", {}, [])
    assert "chatted" in text
    log = (home / "logs" / "mcp-asking.log").read_text(encoding="utf-8")
    assert "[info] starting the chatty work" in log and "token in use" in log
    assert asking.LOGGED_SECRET not in log


# last of the transport's tests: its other trust restarts the shared connection once
def test_sampling_asks_the_user_when_the_server_is_not_trusted(transport: dict[str, Any], home: Path) -> None:
    asked: list[str] = []

    def approver(request: Any) -> str:
        asked.append(request.command)
        return "deny" if "asks the session's model" in request.command else "once"

    text, model, _ = turn(
        home, server(transport, "ask"), "summarize", {"question": "Capital of Peru?"}, [], approver
    )
    assert any("Capital of Peru?" in a for a in asked), asked  # the user saw what the server asks
    assert "said:" not in text and model.calls == 2, text  # refused: the model was never asked for it


# --- the manager directly: several sessions on one connection ------------------------------------------------


def test_a_new_workspace_is_announced_to_a_handshake_era_server(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    cfg = McpServerConfig(name="asking", command=sys.executable, args=[SERVER, "--legacy"], timeout=30)
    manager = McpManager([cfg], tmp_path)
    try:
        first = manager.call_tool("asking", "roots", {}, Caller(ToolContext(workspace=one)))
        assert first.content[0].text == one.resolve().as_uri()
        second = manager.call_tool("asking", "roots", {}, Caller(ToolContext(workspace=two)))
        assert second.content[0].text == two.resolve().as_uri()
        heard = manager.call_tool("asking", "roots_changes", {}, Caller(ToolContext(workspace=two)))
        assert heard.content[0].text == "1"  # told once, when the second session's call came
    finally:
        manager.close()


def test_a_url_request_is_shown_on_the_terminal_not_opened(tmp_path: Path) -> None:
    cfg = McpServerConfig(name="asking", command=sys.executable, args=[SERVER, "--legacy"], timeout=30)
    fin, shown = terminal("y")
    ctx = ToolContext(workspace=tmp_path, policy=SafetyPolicy(approver=tty_approver(fin, shown)))
    manager = McpManager([cfg], tmp_path)
    try:
        result = manager.call_tool("asking", "open_page", {}, Caller(ctx))
    finally:
        manager.close()
    assert result.content[0].text == "outcome accept", result.content
    assert "https://example.com/login" in shown.getvalue() and "Sign in to continue" in shown.getvalue()
    assert "\x1b" not in shown.getvalue()  # the server's escape never reaches the terminal


def test_with_several_calls_in_flight_nobody_is_answered_for() -> None:
    """A handshake-era server's request names no call: with two sessions' calls in flight it has no caller."""
    import asyncio

    callers = Callers()
    a, b = Caller(ToolContext(workspace=Path("/a"))), Caller(ToolContext(workspace=Path("/b")))
    seen: list[Any] = []

    async def main() -> None:
        gate = asyncio.Event()

        async def call(who: Caller) -> None:
            with callers.calling(who):
                seen.append(callers.current())  # inside its own call: itself
                await gate.wait()

        tasks = [asyncio.create_task(call(a)), asyncio.create_task(call(b))]
        await asyncio.sleep(0)
        seen.append(callers.current())  # the connection's reader: two in flight, none known
        gate.set()
        await asyncio.gather(*tasks)
        seen.append(callers.current())

    asyncio.run(main())
    assert seen == [a, b, None, None]


def test_a_tool_that_runs_only_as_a_task_is_refused_by_name(tmp_path: Path) -> None:
    cfg = McpServerConfig(
        name="asking",
        command=sys.executable,
        args=[SERVER, "--legacy", "--task-only"],
        trust="trusted",
        timeout=30,
    )
    settings = Settings(home=tmp_path, mcp=McpConfig(servers={"asking": cfg}))
    steps = [
        {"tool_calls": [{"name": "mcp_list", "arguments": {"server": "asking"}}]},
        {
            "tool_calls": [
                {"name": "mcp_call", "arguments": {"server": "asking", "tool": "roots", "arguments": {}}}
            ]
        },
        {"text": "done"},
    ]
    sink = Sink()
    profile = Profile(source="test", model=ScriptModel(steps), workspace=tmp_path)
    session = Session.open(settings, profile, sink)
    try:
        session.run_turn("go")
    finally:
        session.close()
        close_shared()
    listed, called = (r.content for _, r in sink.results)
    assert "roots:" in listed and "only as a task" in listed
    assert "only as a task" in called and not sink.results[1][1].ok


# --- tasks (the 2026-07-28 tasks extension) -----------------------------------------------------------------


@pytest.fixture(scope="module", params=["stdio", "http"])
def modern(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    if request.param == "stdio":
        yield {"command": sys.executable, "args": [SERVER]}
        close_shared()
    else:
        with asking.running() as url:
            yield {"url": url}
            close_shared()


@pytest.fixture(scope="module")
def modern_home(modern: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tasks-home")


def test_a_tool_run_as_a_task_is_followed_to_its_result(modern: dict[str, Any], modern_home: Path) -> None:
    text, _, _ = turn(modern_home, server(modern), "long_job", {}, [])
    assert text == "long job done", text  # answered with a task handle, polled until completed


def test_a_task_asks_its_question_through_the_same_answers(modern: dict[str, Any], modern_home: Path) -> None:
    fin, shown = terminal("Grace")
    text, _, _ = turn(modern_home, server(modern), "long_question", {}, [], tty_approver(fin, shown))
    assert text == "job done for Grace", text
    assert "Your name, for the job?" in shown.getvalue()


def test_a_task_given_up_on_is_cancelled(tmp_path: Path) -> None:
    with asking.running() as url:  # in this process: connecting takes well under the call's 1 s
        manager = McpManager([McpServerConfig(name="asking", url=url, timeout=1)], tmp_path)
        try:
            assert manager.call_tool("asking", "tasks_cancelled", {}).content[0].text == "0"
            with pytest.raises(McpUnavailable, match="did not answer within 1s"):
                manager.call_tool("asking", "endless", {})
            assert manager.call_tool("asking", "tasks_cancelled", {}).content[0].text == "1"
        finally:
            manager.close()
