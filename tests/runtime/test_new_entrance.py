"""A new entrance is an adapter of a few dozen lines: a webhook-like entrance (nobody to ask) written only here
drives a full turn with tools through the runtime; what needs approval is denied, the review is scheduled, and
everything it shows is redacted. Also: plan-then-act survives a context overflow during planning."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from grove.agent.events import AgentEvents
from grove.config import Settings
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.script import ScriptModel
from grove.llm.types import Message, ToolCall, ToolSchema
from grove.plan.steps import PLAN_TOOL
from grove.runtime import Profile, Session
from grove.tools.registry import ToolResult

KEY = "ghp_" + "Zq9" * 12


# --- the whole entrance: ≤ 40 lines ----------------------------------------------------------------------------
@dataclass
class WebhookEntrance(AgentEvents):
    """Takes requests from a queue, answers each in its own session; nobody can approve anything."""

    settings: Settings
    workspace: Path
    shown: list[str] = field(default_factory=list)  # what would go back to the caller

    def on_tool_end(self, call: ToolCall, result: ToolResult) -> None:
        self.shown.append(f"{call.name}: {result.content}")

    def on_notice(self, text: str) -> None:
        self.shown.append(f"notice: {text}")

    def handle(self, text: str, model: ScriptModel) -> tuple[Session, str]:
        profile = Profile(
            source="webhook",
            toolsets=["files", "terminal"],
            allow_terminal=True,
            workspace=self.workspace,
            review="thread",
            model=model,
        )
        session = Session.open(self.settings, profile, self)
        try:
            answer = session.run_turn(text).answer
        finally:
            session.close(wait_review=True)
        self.shown.append(answer)
        return session, answer


# ---------------------------------------------------------------------------------------------------------------


def call(name: str, **args: object) -> dict:
    return {"tool_calls": [{"name": name, "arguments": args}]}


def test_a_new_entrance_gets_the_whole_runtime(tmp_path: Path, workspace: Path, monkeypatch) -> None:
    reviewer = tmp_path / "reviewer.yaml"
    reviewer.write_text("- text: nothing to keep\n")
    monkeypatch.setenv("GROVE_LEARNING__REVIEW_MODEL", f"script:{reviewer}")
    monkeypatch.setenv("GROVE_LEARNING__REVIEW_TOOL_CALLS", "2")
    from grove.config import load_settings

    (workspace / ".env").write_text(f"GITHUB_TOKEN={KEY}\n")
    model = ScriptModel(
        [
            call("read_file", path=".env"),
            call("terminal", command="git push --force origin main"),
            call("write_file", path="out.txt", content="ok"),
            {"text": f"done; the token was {KEY}"},
        ]
    )
    entrance = WebhookEntrance(load_settings(), workspace)
    session, answer = entrance.handle("publish it", model)
    shown = "\n".join(entrance.shown)
    assert (workspace / "out.txt").read_text() == "ok"  # tools ran
    assert "terminal: Error: denied" in shown and "nobody can be asked" in shown  # approvals denied
    assert KEY not in shown and KEY not in answer  # redacted in results, notices and the answer
    assert "notice: skill review of" in shown  # the review was scheduled, ran, and reported in the stream
    stored = json.dumps(session.store.messages(session.id))
    assert KEY not in stored and "git push --force" in stored


def test_plan_then_act_compresses_and_retries_on_a_context_overflow(
    settings: Settings, workspace: Path
) -> None:
    calls: list[int] = []

    def model(messages: list[Message], tools: list[ToolSchema]) -> object:
        calls.append(len(messages))
        names = [t["function"]["name"] for t in tools]
        if len(calls) == 1:  # the first planning call does not fit
            return ModelError(ErrorKind.CONTEXT_OVERFLOW, "prompt is too long")
        if names == [PLAN_TOOL]:
            return call(PLAN_TOOL, steps=[{"kind": "done", "detail": "nothing left"}])
        return {"text": "summary of the earlier work"}  # the compressor's summary call

    scripted = ScriptModel(model)  # it says 128K tokens fit; the provider disagrees at ~17K
    profile = Profile(workspace=workspace, toolsets=["files"], model=scripted)
    session = Session.open(settings, profile)
    for i in range(30):  # an earlier conversation worth compressing
        session.agent.append({"role": "user", "content": f"request {i}: " + "words " * 200})
        session.agent.append({"role": "assistant", "content": f"answer {i}: " + "more " * 200})
    result = session.run_plan("finish up")
    session.close()
    assert result.answer == "nothing left"
    reports = session.agent.compressor.reports
    assert reports and reports[0].reason == "context_overflow"
    assert reports[0].tokens_after < reports[0].tokens_before / 2
    assert session.store.get_session(session.id).model_calls >= 2  # the retried call was counted
