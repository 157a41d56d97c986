"""The terminal tool end to end: policy gate, approval, sandboxed run, redacted output."""

from __future__ import annotations

from pathlib import Path

import pytest

from grove.sandbox import make_scratch
from grove.security.approval.flow import ApprovalRequest
from grove.security.approval.policy import SafetyPolicy
from grove.tools.context import ToolContext
from grove.tools.terminal import tools


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_scratch(tmp_path)


def _call(ctx: ToolContext, command: str) -> tuple[bool, str]:
    result = tools()[0].call(ctx, {"command": command, "timeout": 20})
    return result.ok, result.content


def test_disabled_by_default(workspace: Path) -> None:
    ok, text = _call(ToolContext(workspace), "echo hi")
    assert not ok and "--allow-terminal" in text


def test_runs_in_the_sandbox_and_redacts(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-canaryCANARYcanary0123456789abcd")
    ctx = ToolContext(workspace, policy=SafetyPolicy(allow_terminal=True))
    ok, text = _call(
        ctx,
        "echo made > f.txt; cat f.txt; env | grep -c OPENAI_API_KEY; echo sk-proj-canaryCANARYcanary0123456789abcd",
    )
    assert ok and text.startswith("exit=0")
    assert "made" in text and "\n0\n" in text  # the key never reached the child
    assert "canaryCANARY" not in text


def test_dangerous_command_asks_and_denial_reaches_the_model(workspace: Path) -> None:
    asked: list[str] = []

    def deny(req: ApprovalRequest) -> str:
        asked.append(req.command)
        return "deny"

    ctx = ToolContext(workspace, policy=SafetyPolicy(allow_terminal=True, approver=deny))
    ok, text = _call(ctx, "rm -rf ~/project")
    assert not ok and asked == ["rm -rf ~/project"] and "denied" in text


def test_unattended_run_denies_without_asking(workspace: Path) -> None:
    ctx = ToolContext(workspace, policy=SafetyPolicy(allow_terminal=True, unattended=True))
    ok, text = _call(ctx, "git push --force")
    assert not ok and "nobody can be asked" in text
