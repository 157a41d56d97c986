"""The memory review: after N user turns a reviewer with only memory tools keeps a durable fact; the next session's
prompt block shows it, and the counter starts again."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from grove.agent.loop import Agent
from grove.config import Settings
from grove.config.learning import LearningConfig
from grove.llm.script import ScriptModel
from grove.memory.prompt import memory_prompt_block
from grove.runtime.reviews import ReviewScheduler
from grove.store.sessions import SessionStore
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry


def test_every_n_user_turns_a_memory_review_keeps_a_fact(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    settings = dataclasses.replace(settings, learning=LearningConfig(memory_review_turns=3))
    sid = store.create_session("script", system_prompt="SYS")
    ctx = ToolContext(workspace=workspace, settings=settings, store=store, session_id=sid)
    agent = Agent(
        ScriptModel(["ok"] * 3), ToolRegistry(), ctx, store, sid, [{"role": "system", "content": "SYS"}]
    )
    add = {"action": "add", "target": "user", "content": "Writes dates as YYYY-MM-DD."}
    reviewer = ScriptModel([{"tool_calls": [{"name": "memory", "arguments": add}]}, "kept one preference"])
    scheduler = ReviewScheduler(settings, lambda: reviewer)
    decisions = []
    for text in ("log for 2026-11-30", "and 2026-12-01", "now 2026-12-02"):
        scheduler.before_turn()
        decisions.append(scheduler.after_turn(agent, agent.run_turn(text)))
    assert [bool(d and d.memory_review) for d in decisions] == [False, False, True]
    assert scheduler.wait(timeout=30)
    [report] = scheduler.reports
    assert report.kind == "memory" and report.changes[0]["applied"]
    assert [t["function"]["name"] for t in reviewer.requests[0][1]] == [
        "memory",
        "read_file",
        "session_search",
    ]
    assert "Writes dates as YYYY-MM-DD." in memory_prompt_block(settings)
    agent.model.push("ok")  # type: ignore[attr-defined]
    again = scheduler.after_turn(agent, agent.run_turn("one more"))
    assert again is not None and not again.memory_review  # the review covered those turns
