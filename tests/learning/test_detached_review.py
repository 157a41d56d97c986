"""One-shot runs: the review runs in a detached process after the answer; `wait` is what --wait-review uses."""

from __future__ import annotations

from pathlib import Path

import yaml

from grove.agent.loop import Agent
from grove.config import Settings
from grove.learning.runs import runs
from grove.llm.script import ScriptModel
from grove.runtime.reviews import ReviewScheduler
from grove.skills.discover import discover
from grove.store.sessions import SessionStore
from grove.tools import files
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry

SKILL = "---\nname: touch-files\ndescription: Create several empty files at once. Use for scaffolding.\n---\n# Steps\n"


def test_a_detached_review_outlives_the_turn_and_can_be_waited_for(
    settings: Settings, store: SessionStore, workspace: Path, tmp_path: Path
) -> None:
    steps = [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": f"f{i}", "content": ""}}]}
        for i in range(5)
    ]
    model = ScriptModel([*steps, "made five files"])
    sid = store.create_session("script", system_prompt="SYS")
    ctx = ToolContext(workspace=workspace, settings=settings, store=store, session_id=sid)
    agent = Agent(model, ToolRegistry(files.tools()), ctx, store, sid, [{"role": "system", "content": "SYS"}])
    reviewer = tmp_path / "reviewer.yaml"
    create = {
        "name": "skill_manage",
        "arguments": {"action": "create", "name": "touch-files", "content": SKILL},
    }
    reviewer.write_text(yaml.safe_dump([{"tool_calls": [create]}, {"text": "created touch-files"}]))

    scheduler = ReviewScheduler(settings, lambda: model, detach_model=f"script:{reviewer}")
    decision = scheduler.after_turn(agent, agent.run_turn("make files f0..f4"))
    assert decision is not None and decision.skill_review
    assert scheduler.wait(timeout=90)
    assert discover(settings, workspace).get("touch-files") is not None
    [run] = runs(store.db, kind="skill_review")
    assert run.status == "done" and run.session_id == sid
    assert "applied: skill create 'touch-files'" in (settings.home / "logs" / "review.log").read_text()
