"""The registry enforces tool flags through the session's policy (needs_approval, subagent_ok), and smart
approval asks a judge model (`security.approval_model`, else the session's own)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.runtime import Profile, Session
from grove.security.approval.flow import ApprovalRequest
from grove.security.approval.policy import SafetyPolicy
from grove.tools.builtin import builtin_registry
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry, make_tool

RAN: list[str] = []


def publish(ctx: ToolContext, channel: str) -> str:
    """Post to a channel.

    Args:
        channel: where to post
    """
    RAN.append(channel)
    return f"posted to {channel}"


def publishing_tools() -> ToolRegistry:
    return ToolRegistry([make_tool(publish, toolset="social", needs_approval=True, subagent_ok=False)])


def test_a_tool_flagged_needs_approval_passes_the_policy_first(workspace: Path) -> None:
    RAN.clear()
    tool = publishing_tools().get("publish")
    assert tool is not None
    denied = tool.call(ToolContext(workspace, policy=SafetyPolicy(unattended=True)), {"channel": "news"})
    assert not denied.ok and "nobody can be asked" in denied.content and RAN == []
    asked: list[str] = []

    def approve(request: ApprovalRequest) -> str:
        asked.append(request.command)
        return "once"

    allowed = tool.call(ToolContext(workspace, policy=SafetyPolicy(approver=approve)), {"channel": "news"})
    assert allowed.ok and RAN == ["news"] and asked and "publish" in asked[0] and "news" in asked[0]


def test_a_child_agent_gets_only_subagent_ok_tools() -> None:
    everything = builtin_registry()
    child = everything.for_subagent()
    assert "terminal" in everything.names() and "terminal" not in child.names()
    assert "read_file" in child.names() and len(publishing_tools().for_subagent()) == 0


@pytest.mark.parametrize(("ruling", "runs"), [("approve", True), ("deny", False)])
def test_smart_mode_asks_the_judge_model(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch, ruling: str, runs: bool
) -> None:
    judge = tmp_path / "judge.yaml"
    judge.write_text(f"- text: {ruling}\n")
    monkeypatch.setenv("GROVE_SECURITY__APPROVAL_MODE", "smart")
    monkeypatch.setenv("GROVE_SECURITY__APPROVAL_MODEL", f"script:{judge}")
    from grove.config import load_settings

    settings: Settings = load_settings()
    model = ScriptModel(
        [
            {"tool_calls": [{"name": "terminal", "arguments": {"command": "git push --force origin main"}}]},
            {"text": "done"},
        ]
    )
    asked: list[str] = []
    profile = Profile(
        toolsets=["terminal"],
        allow_terminal=True,
        workspace=workspace,
        approver=lambda request: asked.append(request.command) or "deny",
        model=model,
    )
    session = Session.open(settings, profile)
    session.run_turn("publish")
    session.close()
    result = next(m for m in session.agent.messages if m["role"] == "tool")["content"]
    assert asked == []  # the judge decided; the user was not asked
    if runs:
        assert result.startswith("exit=")  # it ran (and failed: no git repo here), it was not refused
    else:
        assert "denied by the smart judge" in result


def test_code_skills_are_refused_unattended_without_isolation(settings: Settings, workspace: Path) -> None:
    from grove.tools.code_skills import tools as code_skill_tools

    create = ToolRegistry(code_skill_tools()).get("skill_code_create")
    assert create is not None
    code = "def solve(x: int) -> int:\n    return x + 1\n"
    tests = "from skill import solve\n\ndef test_one():\n    assert solve(1) == 2\n"
    args = {"name": "add-one", "description": "Add one to a number.", "code": code, "tests": tests}
    policy = SafetyPolicy(unattended=True, sandbox="rlimit")
    refused = create.call(ToolContext(workspace, policy=policy, settings=settings), args)
    assert not refused.ok and "--allow-unisolated" in refused.content
    policy = SafetyPolicy(unattended=True, sandbox="rlimit", allow_unisolated=True)
    allowed = create.call(ToolContext(workspace, policy=policy, settings=settings), args)
    assert allowed.ok, allowed.content
