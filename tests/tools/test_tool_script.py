"""run_tool_script: one model call runs a Python script in the sandbox whose tool calls go through the same
registry, policy and approvals as direct calls (a 20-file task in 2 model calls)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.runtime import Profile, Session

SCRIPT = """
names = [f"notes/n{i:02d}.txt" for i in range(20)]
total = 0
for name in names:
    text = tools.read_file(path=name)
    total += sum(int(w) for w in text.split() if w.isdigit())
tools.write_file(path="total.txt", content=f"{total}\\n")
print("total", total)
"""


def _session(settings: Settings, workspace: Path, steps: list[Any], approver: Any = None) -> Session:
    notes = workspace / "notes"
    notes.mkdir()
    for i in range(20):
        (notes / f"n{i:02d}.txt").write_text(f"day {i} sold {i * 3} cups\n")
    return Session.open(
        settings,
        Profile(
            source="test",
            toolsets=["files", "scripts"],
            workspace=workspace,
            allow_terminal=True,
            allow_unisolated=True,
            approver=approver,
            model=ScriptModel(steps),
        ),
    )


def test_twenty_files_in_one_model_call(settings: Settings, workspace: Path) -> None:
    model_steps = [{"tool_calls": [{"name": "run_tool_script", "arguments": {"code": SCRIPT}}]}, "done"]
    session = _session(settings, workspace, model_steps)
    session.run_turn("add up the cups sold in notes/")
    session.close()
    out = [m["content"] for m in session.agent.messages if m["role"] == "tool"]
    assert out[0].startswith("exit=0, 21 tool call(s): read_file, write_file"), out
    assert "total 760" in out[0]
    assert (workspace / "total.txt").read_text() == "760\n"
    assert not list(workspace.glob(".grove-rpc-*")), "the RPC folder outlived the script"


def test_calls_inside_a_script_meet_the_same_gates(
    settings: Settings, workspace: Path, tmp_path: Path
) -> None:
    """A write outside the workspace is asked about as a direct one would be (denied here), and a tool the session
    does not have is not reachable from a script."""
    outside = tmp_path / "outside.txt"
    code = (
        f"try:\n    tools.write_file(path={str(outside)!r}, content='x')\nexcept ToolError as e:\n    print('refused:', e)\n"
        "try:\n    tools.terminal(command='id')\nexcept ToolError as e:\n    print('no terminal:', e)\n"
    )
    asked: list[Any] = []
    steps = [{"tool_calls": [{"name": "run_tool_script", "arguments": {"code": code}}]}, "done"]
    session = _session(settings, workspace, steps, lambda r: asked.append(r) or "deny")
    session.run_turn("try it")
    session.close()
    out = next(m["content"] for m in session.agent.messages if m["role"] == "tool")
    assert "refused:" in out and not outside.exists(), out
    assert asked and str(outside) in asked[0].command, "the write outside the workspace was not asked"
    assert "no terminal: no tool 'terminal' for scripts" in out, out
