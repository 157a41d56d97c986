"""Through a real Session on the script model: a turn that deletes with the terminal and writes with a file tool
(or a code skill's output) is taken back by `grove undo`; a turn that only reads takes no checkpoint."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from tests.checkpoints.treehash import tree
from tests.clirun import grove

from grove.checkpoints.store import CheckpointStore
from grove.cli.output import TerminalEvents
from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.runtime import Profile, Session
from grove.runtime.stream import EventStream


def run_turn(settings: Settings, workspace: Path, steps: list[Any], toolsets: list[str], prompt: str) -> str:
    profile = Profile(
        workspace=workspace,
        toolsets=toolsets,
        model=ScriptModel(steps),
        allow_terminal=True,
        yolo=True,  # approvals off: the turn's own damage is the point
    )
    session = Session.open(settings, profile, EventStream(TerminalEvents(stream_text=False)))
    try:
        return session.run_turn(prompt).answer
    finally:
        session.close()


def seed(ws: Path) -> None:
    (ws / "notes.txt").write_text("my notes\n")
    (ws / "tool.sh").write_text("#!/bin/sh\n")
    os.chmod(ws / "tool.sh", 0o755)
    (ws / "data").mkdir()
    (ws / "data" / "x.bin").write_bytes(b"\x00\x01\xfe\xff" * 100)


def test_terminal_rm_and_write_file_undone_through_the_cli(
    settings: Settings, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(workspace)
    before = tree(workspace)
    steps = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "rm -rf data notes.txt"}}]},
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "tool.sh", "content": "gone\n"}}]},
        {"text": "done"},
    ]
    run_turn(settings, workspace, steps, ["terminal", "files"], "clean up the folder")
    assert not (workspace / "data").exists() and (workspace / "tool.sh").read_text() == "gone\n"
    capsys.readouterr()
    code, out, err = grove(capsys, "checkpoints", "--workspace", str(workspace))
    assert code == 0 and "clean up the folder" in out, err
    code, out, err = grove(capsys, "undo", "--dry-run", "--workspace", str(workspace))
    assert code == 0 and "notes.txt" in out and (workspace / "tool.sh").read_text() == "gone\n"
    code, out, err = grove(capsys, "undo", "--workspace", str(workspace))
    assert code == 0, err
    assert tree(workspace) == before


def test_undo_refuses_over_a_user_change_and_exits_non_zero(
    settings: Settings, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(workspace)
    steps = [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "agent\n"}}]},
        {"text": "done"},
    ]
    run_turn(settings, workspace, steps, ["files"], "edit notes")
    (workspace / "notes.txt").write_text("the user's edit\n")
    capsys.readouterr()
    code, _out, err = grove(capsys, "undo", "--workspace", str(workspace))
    assert code != 0 and "notes.txt" in err and "--force" in err
    assert (workspace / "notes.txt").read_text() == "the user's edit\n"
    code, _out, err = grove(capsys, "undo", "--force", "--workspace", str(workspace))
    assert code == 0 and (workspace / "notes.txt").read_text() == "my notes\n", err
    code, _out, err = grove(capsys, "undo", "--workspace", str(workspace))  # the undo of the undo
    assert code == 0 and (workspace / "notes.txt").read_text() == "the user's edit\n", err


def test_a_read_only_turn_takes_no_checkpoint(settings: Settings, workspace: Path) -> None:
    seed(workspace)
    steps = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"tool_calls": [{"name": "search_files", "arguments": {"pattern": "notes"}}]},
        {"text": "read"},
    ]
    run_turn(settings, workspace, steps, ["files"], "just look")
    assert CheckpointStore(settings.home, workspace, settings.checkpoints).list() == []
    steps = [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "a"}}]},
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "b.txt", "content": "b"}}]},
        {"text": "wrote"},
    ]
    run_turn(settings, workspace, steps, ["files"], "write two")
    cps = CheckpointStore(settings.home, workspace, settings.checkpoints).list()
    assert len(cps) == 1 and cps[0].changed == [
        "a.txt",
        "b.txt",
    ]  # one checkpoint per turn, sealed at its end


def test_bad_undo_input_is_a_clear_error(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = grove(capsys, "undo", "--workspace", str(workspace))
    assert code == 1 and "checkpoint" in err
    code, _out, err = grove(capsys, "undo", "--to", "abc", "--workspace", str(workspace))
    assert code == 1 and "grove checkpoints" in err
    code, _out, err = grove(capsys, "undo", "--workspace", str(workspace / "missing"))
    assert code == 2 and "--workspace" in err


def test_a_code_skills_output_is_undone(settings: Settings, workspace: Path) -> None:
    seed(workspace)
    before = tree(workspace)
    code = "def solve(n: int) -> list[int]:\n    return list(range(n))\n"
    tests = "from skill import solve\n\ndef test_solve():\n    assert solve(3) == [0, 1, 2]\n"
    create = {"name": "count-up", "description": "Counts up to n.", "code": code, "tests": tests}
    steps = [
        {"tool_calls": [{"name": "skill_code_create", "arguments": create}]},
        {"text": "made"},
    ]
    run_turn(settings, workspace, steps, ["code_skills"], "make a skill")
    run_args = {"name": "count-up", "args": {"n": 5}, "output_path": "notes.txt"}
    steps = [{"tool_calls": [{"name": "skill_run", "arguments": run_args}]}, {"text": "ran"}]
    run_turn(settings, workspace, steps, ["code_skills"], "run the skill over my notes")
    if (workspace / "notes.txt").read_text() == "my notes\n":
        pytest.skip("the code skill did not run here (no sandbox for code skills)")
    from grove.checkpoints.restore import last_turns, undo

    cps = CheckpointStore(settings.home, workspace, settings.checkpoints)
    assert cps.list()[-1].changed == ["notes.txt"]
    undo(cps, last_turns(cps, 1))
    assert tree(workspace) == before
