"""`grove review` by hand (dry run writes nothing, shows the change), the user-priority gate, failures logged."""

from __future__ import annotations

import threading
from pathlib import Path

import typer
import yaml
from typer.testing import CliRunner

from grove.cli.review import review
from grove.config import Settings
from grove.learning.review import GatedModel
from grove.learning.runs import runs
from grove.llm.script import ScriptModel
from grove.llm.types import ModelSettings
from grove.runtime.review import review_session
from grove.skills.discover import discover
from grove.store.sessions import SessionStore

SKILL = "---\nname: tidy-imports\ndescription: Sort and group Python imports. Use when imports are messy.\n---\n# Steps\n"


def app() -> typer.Typer:
    a = typer.Typer()
    a.command()(review)
    return a


def stored_session(store: SessionStore) -> str:
    sid = store.create_session("script", title="imports")
    store.add_message(sid, {"role": "user", "content": "tidy the imports in app.py"})
    store.add_message(sid, {"role": "assistant", "content": "sorted and grouped them"})
    return sid


def test_dry_run_shows_the_change_and_writes_nothing(
    settings: Settings, store: SessionStore, tmp_path: Path, workspace: Path
) -> None:
    sid = stored_session(store)
    script = tmp_path / "reviewer.yaml"
    create = {
        "name": "skill_manage",
        "arguments": {"action": "create", "name": "tidy-imports", "content": SKILL},
    }
    script.write_text(yaml.safe_dump([{"tool_calls": [create]}, {"text": "Would create tidy-imports."}]))
    out = CliRunner().invoke(app(), [sid[:10], "--dry-run", "-m", f"script:{script}", "-w", str(workspace)])
    assert out.exit_code == 0, out.output
    assert f"skill review of {sid} (dry run: nothing written)" in out.output
    assert "would apply: skill create 'tidy-imports'" in out.output and "Sort and group" in out.output
    assert discover(settings, workspace).get("tidy-imports") is None
    [run] = runs(store.db)
    assert run.dry_run and run.status == "done" and run.changes[0]["applied"] is False


def test_reviewing_a_review_session_is_refused(store: SessionStore) -> None:
    sid = store.create_session("script", source="review")
    out = CliRunner().invoke(app(), [sid, "--dry-run", "-m", "script:/nope.yaml"])
    assert out.exit_code == 2 and "is itself a review" in out.output


def test_a_failing_reviewer_is_logged_not_raised(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    sid = stored_session(store)
    report = review_session(settings, ScriptModel([{"error": "auth"}]), sid, workspace=workspace, store=store)
    assert report.error and "auth" in report.error
    assert runs(store.db)[0].status == "failed"


def test_the_gate_holds_the_reviewer_while_a_user_turn_runs() -> None:
    gate = threading.Event()
    model = GatedModel(ScriptModel(["ok"]), gate)
    done: list[str] = []
    worker = threading.Thread(target=lambda: done.append(model.complete([], [], ModelSettings()).text))
    worker.start()
    worker.join(timeout=0.2)
    assert done == [] and worker.is_alive()  # paused: the user has priority
    gate.set()
    worker.join(timeout=10)
    assert done == ["ok"]


def test_without_a_reviewer_model_the_session_goes_on_and_the_report_says_why(
    settings: Settings, store: SessionStore, workspace: Path
) -> None:
    from grove.agent.loop import Agent
    from grove.runtime.reviews import ReviewScheduler
    from grove.tools import files
    from grove.tools.context import ToolContext
    from grove.tools.registry import ToolRegistry

    steps = [{"tool_calls": [{"name": "read_file", "arguments": {"path": "nope"}}]}] * 5
    model = ScriptModel([*steps, "could not read it"], name="script")  # a spec no factory can rebuild
    sid = store.create_session("script", system_prompt="SYS")
    ctx = ToolContext(workspace=workspace, settings=settings, store=store, session_id=sid)
    agent = Agent(model, ToolRegistry(files.tools()), ctx, store, sid, [{"role": "system", "content": "SYS"}])
    scheduler = ReviewScheduler(settings)  # default: a router for the session's model
    assert scheduler.after_turn(agent, agent.run_turn("read nope")) is not None
    assert scheduler.wait(timeout=30)
    [report] = scheduler.reports
    assert report.error is not None and report.error.startswith("no reviewer model")
