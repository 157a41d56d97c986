"""`grove run --plan TEXT`: plans and steps shown on the terminal and stored with the session."""

from __future__ import annotations

import json
from pathlib import Path

from grove.cli.main import main
from grove.plan.steps import PLAN_TOOL


def grove(*args: str) -> None:
    try:
        main(list(args))
    except SystemExit as e:
        assert not e.code, e.code


def test_grove_run_plan_shows_and_stores_the_plan(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    plan1 = {
        "steps": [{"kind": "write_result", "detail": "write hello.txt"}, {"kind": "done", "detail": "ok"}]
    }
    plan2 = {"steps": [{"kind": "done", "detail": "hello.txt holds the greeting"}]}
    steps = [
        {"tool_calls": [{"name": PLAN_TOOL, "arguments": plan1}]},
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hi"}}]},
        {"text": "wrote hello.txt"},
        {"tool_calls": [{"name": PLAN_TOOL, "arguments": plan2}]},
    ]
    (tmp_path / "s.yaml").write_text(json.dumps(steps))
    grove("run", "--plan", "greet in hello.txt", "-m", f"script:{tmp_path / 's.yaml'}", "--json")
    data = json.loads(capsys.readouterr().out)
    assert data["answer"] == "hello.txt holds the greeting" and data["model_calls"] == 4
    assert (tmp_path / "hello.txt").read_text() == "hi"
    grove("sessions", "show", data["session_id"], "--json")
    messages = json.loads(capsys.readouterr().out)["messages"]
    plans = [
        c["function"]["arguments"]
        for m in messages
        for c in m.get("tool_calls") or []
        if c["function"]["name"] == PLAN_TOOL
    ]
    assert [json.loads(p) if isinstance(p, str) else p for p in plans] == [plan1, plan2]
    assert any("[grove act] Step 1 of the plan: write_result" in str(m.get("content")) for m in messages)


def test_plan_mode_shows_plans_on_the_terminal(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    steps = [
        {
            "tool_calls": [
                {"name": PLAN_TOOL, "arguments": {"steps": [{"kind": "done", "detail": "nothing to do"}]}}
            ]
        }
    ]
    (tmp_path / "s.yaml").write_text(json.dumps(steps))
    grove("run", "--plan", "nothing", "-m", f"script:{tmp_path / 's.yaml'}")
    out = capsys.readouterr()
    assert "nothing to do" in out.out and "plan, round 1" in out.err and "1. done: nothing to do" in out.err
