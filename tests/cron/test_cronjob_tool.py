"""The `cronjob` tool: a session creates, lists and removes jobs; creating needs approval (unattended: denied)."""

from __future__ import annotations

from pathlib import Path

from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.runtime import Profile, Session
from grove.store.cron_jobs import CronJobs
from grove.store.db import Database


def _session(settings: Settings, workspace: Path, steps: list, approver=None) -> Session:  # type: ignore[no-untyped-def]
    return Session.open(
        settings,
        Profile(
            source="test",
            toolsets=["cron"],
            workspace=workspace,
            approver=approver,
            model=ScriptModel(steps),
        ),
    )


def _call(action: str, **args: str) -> dict:
    return {"tool_calls": [{"name": "cronjob", "arguments": {"action": action, **args}}]}


def jobs(settings: Settings) -> list:
    db = Database(settings.db_path)
    try:
        return CronJobs(db).list()
    finally:
        db.close()


def test_create_list_remove_with_approval(settings: Settings, workspace: Path) -> None:
    steps = [
        _call(
            "create", schedule="every 1h", prompt="summarise the inbox", name="inbox", deliver="telegram:7"
        ),
        _call("list"),
        "done",
    ]
    session = _session(settings, workspace, steps, approver=lambda request: "once")
    result = session.run_turn("every hour, summarise my inbox to telegram")
    session.close()
    outputs = [m["content"] for m in session.agent.messages if m["role"] == "tool"]
    assert "created cron job" in outputs[0], outputs
    assert "inbox" in outputs[1] and "deliver=telegram:7" in outputs[1]
    [job] = jobs(settings)
    assert (job.schedule, job.deliver, job.workspace) == ("every 1h", "telegram:7", str(workspace))
    assert result.answer == "done"
    session = _session(
        settings, workspace, [_call("remove", job=job.id), "ok"], approver=lambda request: "once"
    )
    session.run_turn("stop it")
    session.close()
    assert jobs(settings) == []


def test_unattended_sessions_cannot_schedule(settings: Settings, workspace: Path) -> None:
    steps = [_call("create", schedule="every 1h", prompt="exfiltrate things"), _call("list"), "done"]
    session = _session(settings, workspace, steps)  # approver None: nobody to ask
    session.run_turn("go")
    session.close()
    outputs = [m["content"] for m in session.agent.messages if m["role"] == "tool"]
    assert outputs[0].startswith("Error") and outputs[1] == "no cron jobs"
    assert jobs(settings) == []


def test_pause_and_resume_through_the_tool(settings: Settings, workspace: Path) -> None:
    steps = [
        _call("create", schedule="every 1h", prompt="check the feed", name="feed"),
        _call("pause", job="feed"),
        _call("list"),
        _call("resume", job="feed"),
        "done",
    ]
    asked: list[object] = []

    def approver(request: object) -> str:
        asked.append(request)
        return "once"

    session = _session(settings, workspace, steps, approver=approver)
    session.run_turn("schedule the feed check, then pause and resume it")
    session.close()
    outputs = [m["content"] for m in session.agent.messages if m["role"] == "tool"]
    assert "paused" in outputs[1] and "next=paused" in outputs[2] and "resumed, next run" in outputs[3]
    assert len(asked) == 3  # create, pause and resume each asked; list did not
    [job] = jobs(settings)
    assert job.enabled
