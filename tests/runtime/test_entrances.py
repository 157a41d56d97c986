"""Every entrance opens its agent through the runtime: after a busy turn the self-review is scheduled (and runs,
as a session of source 'review' under the entrance's session), and notices reach the entrance through the one
stream. Driven as a user drives them: the CLI's commands, chat through a real prompt_toolkit input."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from tests.clirun import grove

from grove.cli.main import main
from grove.plan.steps import PLAN_TOOL

READ = {"name": "read_file", "arguments": {"path": "notes.txt"}}
NOTICE = "iteration budget (2) used up"  # what the turn loop says when a turn runs out of model calls


@pytest.fixture(autouse=True)
def busy_turns_are_reviewed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn with one tool call is 'busy', and the reviewer is a scripted model that keeps nothing."""
    reviewer = tmp_path / "reviewer.yaml"
    reviewer.write_text("- text: Nothing here is worth keeping.\n")
    monkeypatch.setenv("GROVE_LEARNING__REVIEW_TOOL_CALLS", "1")
    monkeypatch.setenv("GROVE_LEARNING__REVIEW_MODEL", f"script:{reviewer}")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("the build uses make\n")


# plan-then-act: a plan of one step (write out.txt), the step, then a plan that says done
PLAN_WRITING_OUT_TXT = [
    {
        "tool_calls": [
            {"name": PLAN_TOOL, "arguments": {"steps": [{"kind": "write_result", "detail": "write it"}]}}
        ]
    },
    {"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "x"}}]},
    {"text": "wrote it"},
    {
        "tool_calls": [
            {"name": PLAN_TOOL, "arguments": {"steps": [{"kind": "done", "detail": "out.txt is written"}]}}
        ]
    },
]


def script(tmp_path: Path, steps: list[dict], name: str = "s.yaml") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(steps))
    return f"script:{path}"


def reviews_of(session_id: str) -> list[str]:
    """Ids of the review sessions run for `session_id` (the reviewer's own session names its parent)."""
    from grove.config import load_settings

    with sqlite3.connect(load_settings().db_path) as db:
        rows = db.execute(
            "SELECT id FROM sessions WHERE source = 'review' AND parent_id = ?", (session_id,)
        ).fetchall()
    return [r[0] for r in rows]


def latest_session(source: str) -> str:
    from grove.config import load_settings

    with sqlite3.connect(load_settings().db_path) as db:
        row = db.execute(
            "SELECT id FROM sessions WHERE source = ? ORDER BY created_at DESC LIMIT 1", (source,)
        ).fetchone()
    return str(row[0])


def test_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = script(tmp_path, [{"tool_calls": [READ]}, {"tool_calls": [READ]}, {"text": "It uses make."}])
    code, out, err = grove(capsys, "run", "how is it built?", "-m", spec, "--max-iterations", "2", "--json",
                           "--wait-review")  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["answer"] == "It uses make."
    assert any(NOTICE in n for n in data["notices"])  # a notice of the turn loop, through the stream
    assert len(reviews_of(data["session_id"])) == 1 and "skill review of" in err


def test_run_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = script(tmp_path, PLAN_WRITING_OUT_TXT)
    code, out, _ = grove(capsys, "run", "--plan", "write out.txt", "-m", spec, "--json", "--wait-review")
    data = json.loads(out)
    assert code == 0 and data["answer"] == "out.txt is written"
    assert any(n.startswith("plan, round 1") for n in data["notices"])  # the plan loop's notices, one stream
    assert len(reviews_of(data["session_id"])) == 1


def test_goal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = script(tmp_path, [{"tool_calls": [READ]}, {"text": "It uses make."}])
    judge = script(tmp_path, [{"text": '{"verdict": "done", "reason": "answered"}'}], "judge.yaml")
    code, out, _ = grove(capsys, "goal", "find how it is built", "-m", spec, "--judge-model", judge, "--json")
    final = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and final["status"] == "done"
    assert "· judge: done — answered" in out  # the goal loop's notices reach the command's output
    assert len(reviews_of(final["session_id"])) == 1


def chat(tmp_path: Path, spec: str, lines: list[str]) -> tuple[str, str]:
    """`grove chat` with its input typed into prompt_toolkit; returns the session id and stderr."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    with create_pipe_input() as typed, create_app_session(input=typed, output=DummyOutput()):
        typed.send_text("".join(f"{line}\r" for line in [*lines, "/exit"]))
        try:
            main(["chat", "-m", spec])
        except SystemExit as e:
            assert not e.code
    return latest_session("chat"), ""


def test_chat_turn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = script(tmp_path, [{"tool_calls": [READ]}, {"text": "It uses make."}])
    sid, _ = chat(tmp_path, spec, ["how is it built?"])
    err = capsys.readouterr().err
    assert len(reviews_of(sid)) == 1
    assert "grove: skill review of" in err  # the review's report arrives as a notice in the terminal


def test_chat_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = script(tmp_path, PLAN_WRITING_OUT_TXT)
    sid, _ = chat(tmp_path, spec, ["/plan write out.txt"])
    err = capsys.readouterr().err
    assert (tmp_path / "out.txt").read_text() == "x" and "grove: plan, round 1" in err
    assert len(reviews_of(sid)) == 1


def test_chat_goal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the chat's model also judges: turn (tool call, answer), then the verdict
    spec = script(
        tmp_path,
        [{"tool_calls": [READ]}, {"text": "It uses make."}, {"text": '{"verdict": "done", "reason": "ok"}'}],
    )
    sid, _ = chat(tmp_path, spec, ["/goal find how it is built"])
    captured = capsys.readouterr()
    assert "[done]" in captured.out and "grove: judge: done — ok" in captured.err
    assert len(reviews_of(sid)) == 1


def test_the_reviewer_opens_its_agent_through_the_runtime(tmp_path: Path, capsys) -> None:
    """The reviewer's session is built like any other: redacted (a key it reads is never stored), and it is
    never reviewed itself."""
    key = "sk-proj-" + "R3v" * 16
    (tmp_path / "notes.txt").write_text(f"OPENAI_API_KEY={key}\n")
    reviewer = tmp_path / "reviewer.yaml"
    reviewer.write_text(json.dumps([{"tool_calls": [READ]}, {"text": f"nothing to keep; saw {key}"}]))
    spec = script(tmp_path, [{"tool_calls": [READ]}, {"text": "done"}])
    code, out, _ = grove(capsys, "run", "look at notes", "-m", spec, "--json", "--wait-review")
    sid = json.loads(out)["session_id"]
    (review,) = reviews_of(sid)
    code, out, _ = grove(capsys, "sessions", "show", review, "--json")
    assert code == 0 and key not in out and "read_file" in out
    assert reviews_of(review) == []
