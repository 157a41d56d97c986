"""A child's budgets (tokens, iterations, time), its own workspace, toolsets it may not have, and approvals as
the parent's policy says."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from tests.runtime.delegate_helpers import call, open_parent, parent_model, reports, tool_names

from grove.config import Settings
from grove.config.delegation import DelegationConfig
from grove.llm.script import ScriptModel, Step
from grove.llm.types import Completion, Message, ToolCall, ToolSchema, Usage
from grove.runtime import Profile, Session
from grove.security.approval.flow import ApprovalRequest
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry, make_tool


def with_delegation(tmp_path: Path, **kw: object) -> Settings:
    return Settings(home=tmp_path / "home", delegation=DelegationConfig(**kw))  # type: ignore[arg-type]


def test_a_child_stops_at_its_token_budget(tmp_path: Path, workspace: Path) -> None:
    settings = with_delegation(tmp_path, max_tokens=1000)

    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        return Completion(
            text="looked at half of it",
            tool_calls=[ToolCall(id=f"c{len(messages)}", name="todo", arguments="{}")],
            usage=Usage(prompt_tokens=4000, completion_tokens=20),
            finish_reason="tool_calls",
        )

    session = open_parent(settings, workspace, {"goal": "read everything"}, child)
    answer = session.run_turn("go").answer
    session.close()
    (report,) = reports(session)
    assert report["status"] == "budget" and "token budget of 1000" in report["error"]
    assert report["result"] == "looked at half of it" and report["model_calls"] == 1
    assert "parent done" in answer


def test_a_child_answers_when_its_iterations_run_out(tmp_path: Path, workspace: Path) -> None:
    settings = with_delegation(tmp_path, max_iterations=2)

    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        return call("todo") if tools else {"text": "partial: two rounds done"}

    session = open_parent(settings, workspace, {"goal": "loop"}, child)
    session.run_turn("go")
    session.close()
    (report,) = reports(session)
    assert report["status"] == "budget" and report["result"] == "partial: two rounds done"
    assert report["model_calls"] == 3  # two rounds, then the text-only final answer


def test_a_child_past_its_time_is_reported_and_stopped(tmp_path: Path, workspace: Path) -> None:
    settings = with_delegation(tmp_path, max_seconds=0.1)
    release = threading.Event()

    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        if messages[-1]["role"] == "user":
            release.wait(30)  # a model call that hangs until the parent has moved on
            return call("todo")
        return {"text": "too late"}

    session = open_parent(settings, workspace, {"goal": "hang"}, child)
    answer = session.run_turn("go").answer
    release.set()
    for thread in threading.enumerate():
        if thread.name.startswith("grove-child-"):
            thread.join(10)
    session.close()
    (report,) = reports(session)
    assert report["status"] == "timeout" and "no answer within 0.1s" in report["error"]
    assert "parent done" in answer
    # stopped before its next model call: the hung call was its last
    (child_session,) = [s for s in session.store.list_sessions(100) if s.parent_id == session.id]
    assert session.store.get_session(child_session.id).model_calls == 1


def test_a_child_writes_only_in_its_own_workspace(tmp_path: Path, workspace: Path) -> None:
    settings = Settings(
        home=tmp_path / "home", delegation=DelegationConfig(keep_workspaces=True)
    )  # to look in

    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        if messages[-1]["role"] == "user":
            return call("write_file", path="out.txt", content="child work\n")
        return {"text": "wrote out.txt\n\nOpen questions: none"}

    args = {"goal": "write", "tasks": [{"goal": "write it", "workspace": "own"}]}
    session = open_parent(settings, workspace, args, child)
    session.run_turn("go")
    session.close()
    (report,) = reports(session)
    own = Path(report["workspace"])
    try:
        assert report["status"] == "done" and report["files_touched"] == ["out.txt"]
        assert report["open_questions"] == [] and report["result"] == "wrote out.txt"
        assert own != workspace and (own / "out.txt").read_text() == "child work\n"
        assert not (workspace / "out.txt").exists()
    finally:
        shutil.rmtree(own, ignore_errors=True)


def test_a_toolset_the_parent_cannot_give_is_refused(settings: Settings, workspace: Path) -> None:
    args = {"goal": "x", "tasks": [{"goal": "shell", "toolsets": ["terminal"]}, {"goal": "read"}]}
    session = open_parent(settings, workspace, args, lambda m, t: {"text": "read it"})
    session.run_turn("go")
    session.close()
    shell, read = reports(session)
    assert shell["status"] == "refused" and "terminal" in shell["error"] and "files" in shell["error"]
    assert read["status"] == "done" and "session_id" not in shell and "error" not in read


POSTED: list[str] = []


def publish(ctx: ToolContext, channel: str) -> str:
    """Post to a channel.

    Args:
        channel: where to post
    """
    POSTED.append(channel)
    return f"posted to {channel}"


def publishing_parent(
    settings: Settings, workspace: Path, seen: list[list[str]], approver: object
) -> Session:
    tools = ToolRegistry([make_tool(publish, toolset="social", needs_approval=True)])

    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        seen.append(tool_names(tools))
        if messages[-1]["role"] == "user" and "publish" in tool_names(tools):
            return call("publish", channel="news")
        return {"text": "finished"}

    return Session.open(
        settings,
        Profile(
            toolsets=["files", "delegate"],
            tools=tools,  # added to the toolsets'
            workspace=workspace,
            model=parent_model({"goal": "announce", "toolsets": ["social"]}),
            child_model=lambda: ScriptModel(child),
            approver=approver,  # type: ignore[arg-type]
        ),
    )


def test_approvals_follow_the_parents_policy(tmp_path: Path, workspace: Path) -> None:
    asked: list[str] = []

    def approve(request: ApprovalRequest) -> str:
        asked.append(request.command)
        return "once"

    POSTED.clear()
    seen: list[list[str]] = []
    denying = publishing_parent(with_delegation(tmp_path / "a"), workspace, seen, approve)
    denying.run_turn("go")
    denying.close()
    assert seen == [[]] and POSTED == [] and asked == []  # by default a child gets nothing needing approval

    seen.clear()
    asking = publishing_parent(with_delegation(tmp_path / "b", approvals="parent"), workspace, seen, approve)
    asking.run_turn("go")
    asking.close()
    assert seen[0] == ["publish"] and POSTED == ["news"] and asked and "publish" in asked[0]


def test_an_interrupted_parent_stops_its_children(tmp_path: Path, workspace: Path) -> None:
    from grove.runtime.children import stop_children

    settings = with_delegation(tmp_path, max_parallel=1)
    holder: list[Session] = []

    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        stop_children(holder[0])  # as Session does when the user interrupts the parent's turn
        return call("todo")

    args = {"goal": "x", "tasks": [{"goal": "alpha"}, {"goal": "beta"}, {"goal": "gamma"}]}
    session = open_parent(settings, workspace, args, child)
    holder.append(session)
    session.run_turn("go")
    session.close()
    alpha, beta, gamma = reports(session)
    assert alpha["status"] == "failed" and "interrupted" in alpha["error"] and alpha["model_calls"] == 1
    assert beta["status"] == gamma["status"] == "refused" and "not started" in beta["error"]
