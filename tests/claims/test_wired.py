"""Claims through the real turn path: `grove run` marks on stderr and in --json, the verdicts are stored with the
session, and a sub-agent's report says which of its claims its own tool calls do not show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from tests.runtime.delegate_helpers import call, open_parent, reports
from typer.testing import CliRunner

from grove.claims.store import session_verdicts
from grove.cli.main import build_app
from grove.config import Settings
from grove.llm.script import Step
from grove.llm.types import Message, ToolSchema
from grove.store.sessions import SessionStore

ANSWER = "I wrote notes.txt. All tests pass, and I created the skill note-taker."


def _script(tmp_path: Path) -> Path:
    script = tmp_path / "s.yaml"
    steps = [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "hi\n"}}]},
        {"text": ANSWER},
    ]
    script.write_text(yaml.safe_dump(steps), encoding="utf-8")
    return script


def test_grove_run_marks_claims_on_stderr_and_in_json_and_stores_them(
    tmp_path: Path, workspace: Path, grove_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    script = _script(tmp_path)
    runner = CliRunner()
    plain = runner.invoke(build_app(["run"]), ["run", "-m", f"script:{script}", "-t", "files", "write notes"])
    assert plain.exit_code == 0, plain.output
    assert ANSWER in plain.stdout
    stderr = " ".join(plain.stderr.split())  # rich wraps long lines
    assert "claims checked against this turn's tool calls" in stderr
    assert '? unverifiable: "All tests pass' in stderr
    assert '✗ contradicted: "I created the skill note-taker' in stderr
    assert "I wrote notes.txt" not in stderr  # supported claims are not marked

    as_json = runner.invoke(
        build_app(["run"]), ["run", "-m", f"script:{script}", "-t", "files", "--json", "x"]
    )
    payload = json.loads(as_json.stdout)
    got = {c["kind"]: c["verdict"] for c in payload["claims"]}
    assert got == {"write": "supported", "tests_pass": "unverifiable", "skill": "contradicted"}

    store = SessionStore.open(grove_home / "state.db")
    stored = session_verdicts(store.db, payload["session_id"])
    assert [v["verdict"] for v in stored] == ["supported", "unverifiable", "contradicted"]
    assert all(v["message_id"] for v in stored)  # next to the answer's message


def test_a_sub_agents_report_names_the_claims_its_tool_calls_do_not_show(
    settings: Settings, workspace: Path
) -> None:
    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        if messages[-1]["role"] == "user":
            return call("read_file", path="notes.txt")
        return {"text": "I read notes.txt and fixed the typo in notes.txt. The tests pass."}

    (workspace / "notes.txt").write_text("a nte\n")
    session = open_parent(settings, workspace, {"goal": "fix the typo"}, child)
    session.run_turn("fix the typo in notes.txt")
    session.close()
    (report,) = reports(session)
    flagged = {c["kind"]: c["verdict"] for c in report["unsupported_claims"]}
    assert flagged == {
        "fix": "contradicted",
        "tests_pass": "unverifiable",
    }  # the read is supported: not listed
    assert any("child 1: claims checked" in n for n in session.stream.notices)  # and the user is told


def test_a_goals_judge_reads_the_turns_unsupported_claims(settings: Settings, workspace: Path) -> None:
    from grove.llm.script import ScriptModel
    from grove.runtime import Profile, Session

    worker = ScriptModel(lambda m, t: "Done: I wrote parser.py and all tests pass.")
    judge = ScriptModel([json.dumps({"verdict": "done", "reason": "ok"})])
    session = Session.open(settings, Profile(source="goal", workspace=workspace, model=worker, toolsets=[]))
    try:
        session.run_goal("ship the parser", max_turns=2, judge_model=judge)
    finally:
        session.close()
    seen = str(judge.requests[-1][0][-1]["content"])
    assert "<note>claims checked against this turn's tool calls:" in seen
    assert '✗ contradicted: "I wrote parser.py' in seen and '? unverifiable: "all tests pass' in seen
