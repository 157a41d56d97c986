"""The memory tool as the model calls it, the frozen prompt block, and the full-memory notice."""

from __future__ import annotations

import json
from pathlib import Path

from grove.agent.loop import Agent
from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.memory.prompt import memory_notice, memory_prompt_block
from grove.store.sessions import SessionStore
from grove.tools import memory as memory_tools
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry


def ctx_for(settings: Settings, workspace: Path) -> ToolContext:
    return ToolContext(workspace=workspace, settings=settings)


def call(ctx: ToolContext, **args: object) -> tuple[bool, str]:
    result = ToolRegistry(memory_tools.tools()).call(ctx, "memory", json.dumps(args))
    return result.ok, result.content


def test_tool_adds_and_reports_fill_level(settings: Settings, workspace: Path) -> None:
    ctx = ctx_for(settings, workspace)
    ok, text = call(ctx, action="add", target="user", content="prefers British spelling")
    assert ok and "USER.md: added an entry" in text and "USER.md [2% full — 24/1,375 chars]" in text
    assert "next session" in text


def test_tool_batch_and_argument_errors(settings: Settings, workspace: Path) -> None:
    ctx = ctx_for(settings, workspace)
    ok, text = call(
        ctx,
        operations=[
            {"action": "add", "target": "memory", "content": "repo uses ruff"},
            {"action": "add", "target": "user", "content": "works in UTC"},
        ],
    )
    assert ok and "MEMORY.md: added" in text and "USER.md: added" in text
    ok, text = call(ctx, action="add")
    assert not ok and "give 'action' and 'target'" in text
    ok, text = call(ctx, action="delete", target="memory")
    assert not ok and "action" in text


def test_nearly_full_memory_warns_the_model_and_leaves_a_notice_for_the_user(
    tmp_path: Path, workspace: Path
) -> None:
    settings = Settings(home=tmp_path / "h")
    notices: list[str] = []
    ctx = ToolContext(workspace=workspace, settings=settings, notify=notices.append)
    ok, text = call(ctx, action="add", target="memory", content="x" * 2100)
    assert ok and "nearly full" in text
    assert notices and "grove memory show" in notices[0]
    assert memory_notice(settings) is not None and "MEMORY.md [95% full" in (memory_notice(settings) or "")
    ok, text = call(ctx, action="add", target="memory", content="y" * 200)
    assert ok and "MEMORY.md was full: 1 entry moved to memory/archive/MEMORY.md" in text
    assert "memory(query=...) finds them" in text and "nothing lost" in notices[-1]


def test_prompt_block_is_empty_without_memory_and_frozen_per_session(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    assert memory_prompt_block(settings) == ""
    ctx = ctx_for(settings, workspace)
    call(ctx, action="add", target="memory", content="the CI runs on Fridays")
    block = memory_prompt_block(settings)
    assert (
        block.startswith("# Memory") and "MEMORY.md [1% full" in block and "the CI runs on Fridays" in block
    )
    assert "USER.md" not in block  # an empty file adds no section

    # a session's prompt is built once: a write during the session does not change the messages it sends
    system = "SYS\n\n" + block
    sid = store.create_session("script", system_prompt=system)
    model = ScriptModel(
        [
            {
                "tool_calls": [
                    {"name": "memory", "arguments": {"action": "add", "target": "user", "content": "Ada"}}
                ]
            },
            "ok",
        ]
    )
    tool_ctx = ToolContext(workspace=workspace, settings=settings, store=store, session_id=sid)
    agent = Agent(
        model,
        ToolRegistry(memory_tools.tools()),
        tool_ctx,
        store,
        sid,
        [{"role": "system", "content": system}],
    )
    agent.run_turn("remember my name is Ada")
    assert model.requests[0][0][0]["content"] == model.requests[1][0][0]["content"] == system
    assert "Ada" in memory_prompt_block(settings)  # ...and the next session sees it
