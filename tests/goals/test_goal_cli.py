"""`grove goal` as a user drives it: start, status, blocked with its reason, pause then resume by id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.clirun import grove as run_grove


def grove(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code, out, err = run_grove(capsys, *args)
    return code, out + err


def script(tmp_path: Path, name: str, steps: list[str]) -> str:
    path = tmp_path / name
    path.write_text("".join(f"- {json.dumps(s)}\n" for s in steps))
    return f"script:{path}"


def v(verdict: str, reason: str) -> str:
    return json.dumps({"verdict": verdict, "reason": reason})


def test_goal_runs_until_the_judge_says_done_and_status_shows_the_history(
    tmp_path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    agent = script(tmp_path, "a.yaml", ["step one", "step two"])
    judge = script(tmp_path, "j.yaml", [v("continue", "do step two"), v("done", "both steps done")])
    code, out = grove(
        capsys, "goal", "do two steps", "-m", agent, "--judge-model", judge, "--max-turns", "4", "--json"
    )
    assert code == 0
    data = json.loads(out.strip().splitlines()[-1])
    assert data["status"] == "done" and data["turns_used"] == 2
    assert [x["verdict"] for x in data["verdicts"]] == ["continue", "done"]
    code, out = grove(capsys, "goal", "status", data["id"])
    assert code == 0 and "turn 1: continue — do step two" in out and "turn 2: done — both steps done" in out
    code, out = grove(capsys, "goal", "status")
    assert data["id"] in out and "done" in out


def test_blocked_goal_exits_nonzero_with_the_reason(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    agent = script(tmp_path, "a.yaml", ["I need a key"])
    judge = script(tmp_path, "j.yaml", [v("blocked", "no API key for the payment sandbox")])
    code, out = grove(capsys, "goal", "charge a test card", "-m", agent, "--judge-model", judge)
    assert code == 1 and "blocked" in out and "no API key for the payment sandbox" in out


def test_paused_goal_resumes_by_id_in_its_session(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    agent = script(tmp_path, "a.yaml", ["first try"])
    judge = script(tmp_path, "j.yaml", ["hmm", "hmm again"])
    code, out = grove(capsys, "goal", "tidy the repo", "-m", agent, "--judge-model", judge, "--json")
    first = json.loads(out.strip().splitlines()[-1])
    assert code == 1 and first["status"] == "paused"
    agent2 = script(tmp_path, "a2.yaml", ["second try"])
    judge2 = script(tmp_path, "j2.yaml", [v("continue", "one more pass"), v("done", "tidy")])
    code, out = grove(
        capsys, "goal", "resume", first["id"][:6], "-m", agent2, "--judge-model", judge2, "--json"
    )
    final = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and final["status"] == "done" and final["session_id"] == first["session_id"]
    assert [x["turn"] for x in final["verdicts"]] == [1, 2]  # the unjudged turn 1 was judged, then turn 2 ran


def test_chat_goal_commands_start_status_pause_and_resume(settings, store, workspace) -> None:
    from grove.cli.goal import chat_goal
    from grove.llm.script import ScriptModel
    from grove.runtime import Profile, Session

    replies = iter(["did a", v("continue", "do b"), "did b", "hmm", "nope", v("done", "a and b")])
    model = ScriptModel(lambda messages, tools: next(replies))  # the chat's model also judges
    session = Session.open(settings, Profile(workspace=workspace, model=model), store=store)
    said: list[str] = []
    chat_goal("do a then b", session, said.append, lambda sid: session)
    assert "[paused]" in said[-1] and "2/20 turns" in said[-1]  # turn 2's judge replies were not JSON
    said.clear()
    chat_goal("status", session, said.append, lambda sid: session)
    assert len(said) == 1 and "last verdict: continue — do b" in said[0]
    chat_goal("resume", session, said.append, lambda sid: session)
    assert "[done]" in said[-1] and "2/20 turns" in said[-1]  # turn 2 judged on resume, no new turn
    chat_goal("pause", session, said.append, lambda sid: session)
    assert "no open goal" in said[-1]
