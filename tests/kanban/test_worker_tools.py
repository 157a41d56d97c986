"""A kanban worker's tools are a session's tools plus the board's: its toolsets keep the configured MCP servers'
tools and the learned tools, and a small local model's filter applies to them as in any session."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from grove.config import Settings
from grove.config.mcp import McpConfig, McpServerConfig
from grove.kanban.leases import Leases
from grove.kanban.worker import run_worker
from grove.llm.script import ScriptModel
from grove.store.sessions import SessionStore
from grove.tools import code_skills
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry

ADD_CODE = '''def solve(a: int, b: int) -> int:
    """The sum of two integers."""
    return a + b
'''
ADD_TESTS = """from skill import solve


def test_add():
    assert solve(2, 3) == 5
"""
BOARD_TOOLS = {"kanban_show", "kanban_heartbeat", "kanban_complete"}


class Offered(ScriptModel):
    """The script model, noting the tools each call offered."""

    def __init__(self, steps: list[Any], name: str = "script") -> None:
        super().__init__(steps, name=name)
        self.offered: list[set[str]] = []

    def complete(self, messages, tools, settings, on_text=None):  # type: ignore[no-untyped-def]
        self.offered.append({t["function"]["name"] for t in tools})
        return super().complete(messages, tools, settings, on_text)


def learned_add_tool(settings: Settings, workspace: Path) -> None:
    """A code skill grove made and tested itself: a learned tool of the sessions with the skills toolset."""
    store = SessionStore.open(settings.db_path)
    try:
        ctx = ToolContext(workspace=workspace, settings=settings, store=store)
        args = {"name": "add-two", "description": "Add two integers.", "code": ADD_CODE, "tests": ADD_TESTS}
        out = ToolRegistry(code_skills.tools()).call(ctx, "skill_code_create", args)
        assert out.ok, out.content
    finally:
        store.db.close()


def worker_tools(settings: Settings, board: Leases, toolsets: list[str], name: str = "script") -> set[str]:
    task = board.add("answer", "say done")
    model = Offered(["done"], name=name)
    result = run_worker(settings, board, task.id, model_override=model, toolsets=toolsets, review="off")
    assert result.outcome == "done"
    return model.offered[0]


def test_a_worker_gets_the_learned_tools_and_the_boards(
    settings: Settings, board: Leases, tmp_path: Path
) -> None:
    learned_add_tool(settings, tmp_path)
    offered = worker_tools(settings, board, ["files", "skills"])
    assert "add-two" in offered and offered >= BOARD_TOOLS and {"read_file", "skill_view"} <= offered
    assert "add-two" not in worker_tools(settings, board, ["files"])  # learned tools join "skills" only


@pytest.mark.skipif(importlib.util.find_spec("mcp") is None, reason="the MCP SDK is not installed")
def test_a_worker_gets_the_configured_mcp_servers_tools(settings: Settings, board: Leases) -> None:
    # a lazy server: its three small tools are offered and it is never started by this turn
    server = McpServerConfig(name="time", command="mcp-server-time", timeout=30)
    with_mcp = dataclasses.replace(settings, mcp=McpConfig(servers={"time": server}))
    offered = worker_tools(with_mcp, board, ["files", "mcp"])
    assert {"mcp_list", "mcp_call", "mcp_read"} <= offered and offered >= BOARD_TOOLS
    assert not {"mcp_list"} & worker_tools(with_mcp, board, ["files"])  # an explicit list without "mcp"


def test_a_small_local_models_worker_is_filtered_like_its_sessions(settings: Settings, board: Leases) -> None:
    offered = worker_tools(settings, board, ["files", "memory", "todo", "skills"], name="local:tiny")
    assert not {"memory", "todo", "skill_manage"} & offered  # left out for a small model, as in any session
    assert offered >= BOARD_TOOLS and "skill_view" in offered  # the board's own tools are never left out
