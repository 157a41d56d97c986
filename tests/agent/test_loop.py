"""The turn loop on the script model: answers, tools, errors the model can fix, budget, interrupts, persistence."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from grove.agent.loop import GRACE_PROMPT, INTERRUPTED, Agent
from grove.config import Settings
from grove.llm.script import ScriptModel
from grove.store.sessions import SessionStore
from grove.tools.builtin import builtin_registry
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry, make_tool


def make_agent(
    store: SessionStore, workspace: Path, model: ScriptModel, tools: ToolRegistry | None = None, **kw: object
) -> Agent:
    tools = tools if tools is not None else builtin_registry().select(["files", "todo"])
    sid = store.create_session(model.name, system_prompt="SYS")
    ctx = ToolContext(workspace=workspace, store=store, session_id=sid, settings=Settings())
    return Agent(model, tools, ctx, store, sid, [{"role": "system", "content": "SYS"}], **kw)  # type: ignore[arg-type]


def call(name: str, **args: object) -> dict:
    return {"name": name, "arguments": args}


def test_plain_answer_is_one_model_call_and_stored(store: SessionStore, workspace: Path) -> None:
    agent = make_agent(store, workspace, ScriptModel(["Paris."]))
    result = agent.run_turn("What is the capital of France?")
    assert result.answer == "Paris."
    assert result.model_calls == 1
    assert [m["role"] for m in store.messages(agent.session_id)] == ["user", "assistant"]
    assert store.get_session(agent.session_id).title == "What is the capital of France?"


def test_tool_call_then_answer_and_messages_match_the_store(store: SessionStore, workspace: Path) -> None:
    model = ScriptModel(
        [
            {"tool_calls": [call("write_file", path="a.txt", content="alpha\n")]},
            {"tool_calls": [call("read_file", path="a.txt")]},
            {"text": "done"},
        ]
    )
    agent = make_agent(store, workspace, model)
    result = agent.run_turn("write and read")
    assert result.answer == "done"
    assert (workspace / "a.txt").read_text() == "alpha\n"
    assert [c.ok for c in result.tool_calls] == [True, True]
    # what the model saw on the third call includes the read result
    last_messages, _ = model.requests[-1]
    assert "1|alpha" in last_messages[-1]["content"]
    assert store.messages(agent.session_id) == agent.messages[1:]


def test_invalid_arguments_and_unknown_tool_become_error_results(
    store: SessionStore, workspace: Path
) -> None:
    model = ScriptModel(
        [
            {"tool_calls": [call("read_file", offset=3), call("no_such_tool", x=1)]},
            {"tool_calls": [{"name": "read_file", "arguments": "{not json"}]},
            "sorry",
        ]
    )
    agent = make_agent(store, workspace, model)
    result = agent.run_turn("go")
    tool_msgs = [m for m in agent.messages if m["role"] == "tool"]
    assert "path: Field required" in tool_msgs[0]["content"]
    assert "unknown tool 'no_such_tool'" in tool_msgs[1]["content"] and "read_file" in tool_msgs[1]["content"]
    assert "not valid JSON" in tool_msgs[2]["content"]
    assert [c.ok for c in result.tool_calls] == [False, False, False]
    assert result.answer == "sorry"


def test_read_only_calls_run_concurrently_and_results_keep_call_order(
    store: SessionStore, workspace: Path
) -> None:
    barrier = threading.Barrier(2, timeout=5)

    def wait_a(ctx: ToolContext) -> str:
        """Waits for its sibling."""
        barrier.wait()
        return "A"

    def wait_b(ctx: ToolContext) -> str:
        """Waits for its sibling."""
        barrier.wait()
        return "B"

    tools = ToolRegistry([make_tool(wait_a, toolset="t"), make_tool(wait_b, toolset="t")])
    model = ScriptModel([{"tool_calls": [call("wait_b"), call("wait_a")]}, "ok"])
    agent = make_agent(store, workspace, model, tools)
    agent.run_turn("go")  # sequential execution would break the barrier and return errors
    assert [m["content"] for m in agent.messages if m["role"] == "tool"] == ["B", "A"]


def test_mutating_calls_run_in_order(store: SessionStore, workspace: Path) -> None:
    model = ScriptModel(
        [
            {
                "tool_calls": [
                    call("write_file", path="f.txt", content="one"),
                    call("read_file", path="f.txt"),
                    call("patch", path="f.txt", old_string="one", new_string="two"),
                    call("read_file", path="f.txt"),
                ]
            },
            "ok",
        ]
    )
    agent = make_agent(store, workspace, model)
    result = agent.run_turn("go")
    tool_msgs = [m["content"] for m in agent.messages if m["role"] == "tool"]
    assert all(c.ok for c in result.tool_calls)
    assert "1|one" in tool_msgs[1] and "1|two" in tool_msgs[3]


def test_iteration_budget_ends_with_a_tool_free_grace_call(store: SessionStore, workspace: Path) -> None:
    loop_step = {"tool_calls": [call("todo")]}
    model = ScriptModel([loop_step, loop_step, loop_step, {"text": "here is where I got", **loop_step}])
    agent = make_agent(store, workspace, model, max_iterations=3)
    result = agent.run_turn("never ends")
    assert result.budget_exhausted and result.model_calls == 4
    assert result.answer == "here is where I got"
    messages, tools = model.requests[-1]
    assert tools == [] and messages[-1]["content"] == GRACE_PROMPT
    assert "tool_calls" not in agent.messages[-1]


def test_interrupt_during_a_tool_keeps_the_conversation_valid(store: SessionStore, workspace: Path) -> None:
    def slow(ctx: ToolContext) -> str:
        """Raises like Ctrl-C would in the main thread."""
        raise KeyboardInterrupt

    tools = ToolRegistry([make_tool(slow, toolset="t", mutating=True), builtin_registry().get("todo")])
    model = ScriptModel([{"tool_calls": [call("todo"), call("slow"), call("todo")]}])
    agent = make_agent(store, workspace, model, tools)
    result = agent.run_turn("go")
    assert result.interrupted
    stored = store.messages(agent.session_id)
    call_ids = [c["id"] for c in stored[1]["tool_calls"]]
    answered = [m["tool_call_id"] for m in stored if m["role"] == "tool"]
    assert answered == call_ids  # every call has a result, in order
    assert stored[-1]["content"] == INTERRUPTED


def test_usage_is_accumulated_on_the_session(store: SessionStore, workspace: Path) -> None:
    agent = make_agent(store, workspace, ScriptModel([{"tool_calls": [call("todo")]}, "ok"]))
    result = agent.run_turn("hi")
    info = store.get_session(agent.session_id)
    assert info.model_calls == 2
    assert info.prompt_tokens == result.usage.prompt_tokens > 0


def test_tool_arguments_are_recorded_parsed(store: SessionStore, workspace: Path) -> None:
    agent = make_agent(
        store, workspace, ScriptModel([{"tool_calls": [call("todo", items=[{"content": "x"}])]}, "k"])
    )
    result = agent.run_turn("plan")
    assert result.tool_calls[0].as_dict() == {
        "name": "todo",
        "arguments": {"items": [{"content": "x"}]},
        "ok": True,
    }
    assert json.loads(store.messages(agent.session_id)[1]["tool_calls"][0]["function"]["arguments"])
