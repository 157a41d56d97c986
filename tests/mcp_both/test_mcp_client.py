"""grove as an MCP client against real servers: the reference servers mcp-server-time and mcp-server-git over
stdio, and an SDK server over streamable HTTP on 127.0.0.1. Servers start once per module."""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp.client.stdio")

from tests.mcp_both import mcp_fake_http as fake_http

from grove.agent.events import AgentEvents
from grove.config import Settings
from grove.config.mcp import McpConfig, McpServerConfig
from grove.llm.script import ScriptModel
from grove.llm.types import ToolCall
from grove.mcp_client.connection import McpUnavailable
from grove.mcp_client.manager import McpManager, close_shared
from grove.runtime import Profile, Session
from grove.tools.registry import ToolResult

TIME = McpServerConfig(name="time", command="mcp-server-time", args=["--local-timezone", "UTC"], timeout=30)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("mcp-home")
    close_shared()


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    os.environ["FAKE_MCP_TOKEN"] = fake_http.TOKEN  # the header is configured as a ${VAR} reference
    with fake_http.running() as u:
        yield u


def fake(url: str, **kw: Any) -> McpServerConfig:
    return McpServerConfig(
        **{"name": "fake", "url": url, "headers": {"X-Token": "${FAKE_MCP_TOKEN}"}, "timeout": 10, **kw}
    )


@pytest.fixture(scope="module")
def manager(home: Path, url: str) -> Iterator[McpManager]:
    git = McpServerConfig(name="git", command="mcp-server-git", timeout=30)
    m = McpManager([TIME, git, fake(url), fake(url, name="slow", timeout=0.5)], home)
    yield m
    m.close()


class Sink(AgentEvents):
    def __init__(self) -> None:
        self.results: list[tuple[str, ToolResult]] = []

    def on_tool_end(self, call: ToolCall, result: ToolResult) -> None:
        self.results.append((call.name, result))


def turn(
    home: Path, servers: list[McpServerConfig], calls: list[tuple[str, dict[str, Any]]], approver: Any = None
) -> tuple[list[tuple[str, ToolResult]], Session]:
    """One turn whose script makes `calls` in order, on settings naming `servers`."""
    settings = Settings(home=home, mcp=McpConfig(servers={s.name: s for s in servers}))
    steps: list[Any] = [{"tool_calls": [{"name": n, "arguments": a}]} for n, a in calls] + [{"text": "done"}]
    sink = Sink()
    profile = Profile(source="test", model=ScriptModel(steps), workspace=home, approver=approver)
    session = Session.open(settings, profile, sink)
    try:
        session.run_turn("go")
    finally:
        session.close()
    return sink.results, session


def children_running(word: str) -> list[int]:
    """This process's child processes whose command line holds `word` (the stdio servers it started)."""
    pids = []
    for path in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        for pid in Path(path).read_text().split():
            try:
                if word in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                    pids.append(int(pid))
            except OSError:
                continue
    return pids


# --- the reference servers over stdio ------------------------------------------------------------------------


def test_time_server_lists_and_answers(manager: McpManager, home: Path) -> None:
    names = [t["name"] for t in manager.list_tools("time")]
    assert {"get_current_time", "convert_time"} <= set(names)
    assert (home / "cache" / "mcp" / "time.json").is_file()  # later sessions describe it without starting it
    result = manager.call_tool(
        "time", "convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
    )
    assert not result.is_error and "21:00" in result.content[0].text


def test_git_server_reads_a_repository(manager: McpManager, tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "new.txt").write_text("x")
    result = manager.call_tool("git", "git_status", {"repo_path": str(tmp_path)})
    assert not result.is_error and "new.txt" in result.content[0].text


def test_a_killed_server_is_restarted_by_the_next_call(manager: McpManager) -> None:
    manager.call_tool("time", "get_current_time", {"timezone": "UTC"})
    before = manager.connection("time").connects
    pids = children_running("mcp-server-time")
    assert pids, "the time server should be running"
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    result = manager.call_tool("time", "get_current_time", {"timezone": "UTC"})
    assert not result.is_error and "UTC" in result.content[0].text
    assert manager.connection("time").connects == before + 1


# --- streamable HTTP -----------------------------------------------------------------------------------------


def test_http_server_with_headers_tools_resources_prompts(manager: McpManager) -> None:
    assert {"echo", "leak", "weather"} <= {t["name"] for t in manager.list_tools("fake")}
    assert manager.call_tool("fake", "echo", {"text": "hi"}).content[0].text == "echo: hi"
    assert manager.read_resource("fake", "notes://today").contents[0].text == "buy milk"
    assert (
        "Please review: x = 1"
        in manager.get_prompt("fake", "review", {"code": "x = 1"}).messages[0].content.text
    )


def test_a_missing_header_variable_is_named(home: Path, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    m = McpManager([fake(url, headers={"X-Token": "${NOT_SET_ANYWHERE}"})], home)
    try:
        with pytest.raises(McpUnavailable, match="NOT_SET_ANYWHERE"):
            m.list_tools("fake")
    finally:
        m.close()


def test_a_call_past_the_server_timeout_fails_cleanly(manager: McpManager) -> None:
    with pytest.raises(McpUnavailable, match=r"within 0\.5s"):
        manager.call_tool("slow", "sleep", {"seconds": 5})
    assert manager.call_tool("slow", "echo", {"text": "still here"}).content[0].text == "echo: still here"


# --- through a session: approval, scanning, redaction, token cost --------------------------------------------


def test_an_ask_server_tool_is_denied_unattended(home: Path, url: str) -> None:
    results, _ = turn(
        home,
        [fake(url, trust="ask")],
        [("mcp_call", {"server": "fake", "tool": "echo", "arguments": {"text": "hi"}})],
    )
    ((_name, result),) = results
    assert not result.ok and "nobody can be asked" in result.content and "echo: hi" not in result.content


def test_trusted_runs_ask_is_asked_and_untrusted_asked_every_time(home: Path, url: str) -> None:
    asked: list[str] = []

    def approver(request: Any) -> str:
        asked.append(request.command)
        return "always"

    call = ("mcp_call", {"server": "fake", "tool": "echo", "arguments": {"text": "hi"}})
    results, _ = turn(home, [fake(url, trust="trusted")], [call], approver)
    assert results[0][1].ok and not asked
    results, _ = turn(home, [fake(url, trust="untrusted")], [call, call], approver)
    assert [r.ok for _, r in results] == [True, True] and len(
        asked
    ) == 2  # "always" is not kept for untrusted
    results, _ = turn(home, [fake(url, trust="ask")], [call, call], approver)
    assert [r.ok for _, r in results] == [True, True] and len(asked) == 3  # ask: "always" holds


def test_eager_server_tools_are_registered_by_name_and_gated(home: Path, url: str) -> None:
    # its own name: the test before answered "always" for fake's echo, and that answer is kept in state.db
    results, session = turn(home, [fake(url, name="eager1", eager=True)], [("eager1__echo", {"text": "hi"})])
    assert "eager1__echo" in session.agent.tools.names()
    assert not results[0][1].ok and "nobody can be asked" in results[0][1].content


def test_output_is_injection_scanned_and_secrets_redacted(home: Path, url: str) -> None:
    server = fake(url, trust="trusted")
    calls = [
        ("mcp_call", {"server": "fake", "tool": "weather", "arguments": {"city": "Oslo"}}),
        ("mcp_call", {"server": "fake", "tool": "leak"}),
    ]
    results, session = turn(home, [server], calls)
    assert "untrusted-data" in results[0][1].content and "flagged" in results[0][1].content
    stored = [m for m in session.agent.store.messages(session.agent.session_id) if m["role"] == "tool"]
    assert "untrusted-data" in stored[0]["content"]
    assert fake_http.SECRET not in stored[1]["content"] and "OPENAI_API_KEY" in stored[1]["content"]


def test_an_untrusted_servers_output_is_always_quoted(home: Path, url: str) -> None:
    approve = lambda _request: "once"  # noqa: E731
    results, _ = turn(
        home,
        [fake(url, trust="untrusted")],
        [("mcp_call", {"server": "fake", "tool": "echo", "arguments": {"text": "hi"}})],
        approve,
    )
    assert "<untrusted-data" in results[0][1].content and "> echo: hi" in results[0][1].content


def test_resources_and_prompts_through_the_tools(home: Path, url: str) -> None:
    calls = [
        ("mcp_read", {"server": "fake", "uri": "notes://today"}),
        ("mcp_read", {"server": "fake", "prompt": "review", "arguments": {"code": "x = 1"}}),
        ("mcp_list", {"server": "fake"}),
    ]
    results, _ = turn(home, [fake(url)], calls)
    assert results[0][1].content == "buy milk"
    assert "Please review: x = 1" in results[1][1].content
    assert "echo: Echo the text back." in results[2][1].content and "notes://today" in results[2][1].content


def test_an_unused_lazy_server_costs_three_small_tools_and_is_never_started(home: Path, url: str) -> None:
    many = [McpServerConfig(name=f"s{i}", command="mcp-server-time", timeout=30) for i in range(3)]
    _, session = turn(home, many, [])
    names = session.agent.tools.names()
    assert [n for n in names if n.startswith("mcp_")] == ["mcp_list", "mcp_call", "mcp_read"]
    assert not any("__" in n for n in names)
    from grove.mcp_client.manager import _SHARED

    manager = _SHARED[str(home)]
    assert all(manager.connection(s.name).connects == 0 for s in many)


def test_a_stdio_server_gets_only_its_configured_environment(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    monkeypatch.setenv("GROVE_TEST_PASSED_ON", "yes")
    script = str(Path(fake_http.__file__))
    server = McpServerConfig(
        name="envcheck", command=sys.executable, args=[script], env={"ONLY_THIS": "${GROVE_TEST_PASSED_ON}"}
    )
    m = McpManager([server], home)
    try:
        names = m.call_tool("envcheck", "env_names", {}).content[0].text.split()
    finally:
        m.close()
    assert "ONLY_THIS" in names and "PATH" in names
    assert "OPENAI_API_KEY" not in names and "GROVE_TEST_PASSED_ON" not in names
