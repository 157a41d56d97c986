"""Sub-agents through the runtime: children run at once (a barrier all three must reach), a failing child is a
report, a child cannot call a forbidden tool, the parent's usage includes the children's, and the depth limit."""

from __future__ import annotations

import threading
from pathlib import Path

from tests.runtime.delegate_helpers import call, children_of, open_parent, reports, task_of, tool_names

from grove.config import Settings
from grove.config.delegation import DelegationConfig
from grove.llm.errors import ErrorKind, ModelError
from grove.llm.script import ScriptModel, Step
from grove.llm.types import Message, ToolSchema
from grove.runtime.children import _is_serial

THREE = {"goal": "survey", "tasks": [{"goal": "alpha"}, {"goal": "beta"}, {"goal": "gamma"}]}


def test_three_children_run_at_once(settings: Settings, workspace: Path) -> None:
    barrier = threading.Barrier(3, timeout=10)  # run one after another, the first would wait here in vain
    met: list[str] = []

    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        if messages[-1]["role"] == "user":
            barrier.wait()
            met.append(task_of(messages))
            return call("read_file", path="notes.txt")
        return {"text": f"{task_of(messages)}: read {len(str(messages[-1]['content']))} chars"}

    (workspace / "notes.txt").write_text("a note\n")
    session = open_parent(settings, workspace, THREE, child)
    answer = session.run_turn("survey the project").answer
    session.close()
    got = reports(session)
    assert [r["status"] for r in got] == ["done"] * 3, got
    assert [r["goal"] for r in got] == ["alpha", "beta", "gamma"]  # reports come back in task order
    assert [r["result"].split(":")[0] for r in got] == ["alpha", "beta", "gamma"]
    assert sorted(met) == ["alpha", "beta", "gamma"] and "parent done" in answer
    kids = children_of(session)
    assert len(kids) == 3 and {k.source for k in kids} == {"delegate"}
    assert {r["session_id"] for r in got} == {k.id for k in kids}


def test_more_tasks_than_slots_wait_their_turn(tmp_path: Path, workspace: Path) -> None:
    settings = Settings(home=tmp_path / "home", delegation=DelegationConfig(max_parallel=2))
    active, peak, arrivals, lock = [0], [0], [0], threading.Lock()
    pair = threading.Barrier(2, timeout=10)  # the first two run together...

    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
            arrivals[0] += 1
            first_two = arrivals[0] <= 2
        if first_two:
            pair.wait()
            threading.Event().wait(0.05)  # ...and a third, were it let in, would overlap them here
        with lock:
            active[0] -= 1
        return {"text": "ok"}

    session = open_parent(settings, workspace, THREE, child)
    session.run_turn("go")
    session.close()
    assert [r["status"] for r in reports(session)] == ["done"] * 3 and peak[0] == 2


def test_a_failing_child_is_a_report_not_a_crash(settings: Settings, workspace: Path) -> None:
    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        if task_of(messages) == "beta":
            return ModelError(ErrorKind.AUTH, "bad key for the child")
        return {"text": "fine\n\nOpen questions:\n- is gamma needed?"}

    session = open_parent(settings, workspace, THREE, child)
    answer = session.run_turn("go").answer
    session.close()
    alpha, beta, gamma = reports(session)
    assert beta["status"] == "failed" and "bad key for the child" in beta["error"]
    assert alpha["status"] == gamma["status"] == "done" and "parent done" in answer
    assert alpha["result"] == "fine" and alpha["open_questions"] == ["is gamma needed?"]


def test_a_child_cannot_call_a_forbidden_tool(settings: Settings, workspace: Path) -> None:
    seen: list[list[str]] = []
    forbidden = [
        call("memory", action="add", content="a child's note"),
        call("write_file", path="child.txt", content="x"),  # the parent's workspace is a read-only view
        call("terminal", command="touch child.txt"),
        call("delegate", goal="a grandchild"),  # depth 1 by default
    ]

    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        seen.append(tool_names(tools))
        done = sum(m["role"] == "tool" for m in messages)
        return forbidden[done] if done < len(forbidden) else {"text": "tried"}

    session = open_parent(
        settings,
        workspace,
        {"goal": "try everything"},
        child,
        toolsets=["files", "todo", "memory", "terminal", "delegate"],
        allow_terminal=True,
    )
    session.run_turn("go")
    session.close()
    (report,) = reports(session)
    assert report["status"] == "done" and report["files_touched"] == []
    assert set(seen[0]) == {"read_file", "search_files", "todo"}
    results = [m for m in session.store.messages(report["session_id"]) if m["role"] == "tool"]
    assert len(results) == 4 and all("unknown tool" in str(m["content"]) for m in results)
    assert not (workspace / "child.txt").exists()
    assert not (settings.home / "memory" / "MEMORY.md").exists()


def test_the_parents_usage_includes_the_childrens(settings: Settings, workspace: Path) -> None:
    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        if messages[-1]["role"] == "user":
            return call("todo")
        return {"text": "child answer " + "words " * 50}

    session = open_parent(settings, workspace, THREE, child)
    session.run_turn("go")
    session.close()
    kids = children_of(session)
    parent = session.store.get_session(session.id)
    own = session.agent.model.inner if hasattr(session.agent.model, "inner") else session.agent.model
    assert own.calls == 2 and all(k.model_calls == 2 for k in kids)
    assert parent.model_calls == 2 + sum(k.model_calls for k in kids)
    child_prompt_tokens = sum(k.prompt_tokens for k in kids)
    assert child_prompt_tokens > 0 and parent.prompt_tokens > child_prompt_tokens
    assert parent.completion_tokens > sum(k.completion_tokens for k in kids)
    assert sum(r["model_calls"] for r in reports(session)) == 6


def test_depth_limit(tmp_path: Path, workspace: Path) -> None:
    settings = Settings(home=tmp_path / "home", delegation=DelegationConfig(max_depth=2))
    tools_by_depth: dict[int, list[str]] = {}

    def child(messages: list[Message], tools: list[ToolSchema]) -> Step:
        depth = 1 if task_of(messages) == "level one" else 2
        tools_by_depth.setdefault(depth, tool_names(tools))
        if depth == 1 and messages[-1]["role"] == "user":
            return call("delegate", goal="level two")
        if depth == 1:
            return {"text": "from below: " + str(messages[-1]["content"])}
        return {"text": f"answer at depth {depth}"}

    session = open_parent(settings, workspace, {"goal": "level one"}, child)
    session.run_turn("go")
    session.close()
    (report,) = reports(session)
    assert report["status"] == "done" and "answer at depth 2" in report["result"]
    assert "delegate" in tools_by_depth[1] and "delegate" not in tools_by_depth[2]
    (grandchild,) = [s for s in session.store.list_sessions(100) if s.parent_id == report["session_id"]]
    assert grandchild.model_calls == 1
    # the grandchild's call counts in its parent and in the root: 2 own + 2 child + 1 grandchild
    assert session.store.get_session(session.id).model_calls == 5


def test_the_depth_limit_holds_even_if_the_tool_is_reached(settings: Settings, workspace: Path) -> None:
    from grove.runtime.children import Children
    from grove.tools.delegate import DelegateTask
    from grove.tools.registry import ToolError

    session = open_parent(settings, workspace, {"goal": "x"}, lambda m, t: {"text": "x"})
    runner = Children(session, type(session).open, depth=1, ancestors=[session.id])
    try:
        runner([DelegateTask("one level too deep")])
        raise AssertionError("a child at the depth limit delegated")
    except ToolError as e:
        assert "depth limit (1)" in str(e)
    finally:
        session.close()


def test_children_on_the_embedded_model_run_one_at_a_time() -> None:
    assert _is_serial(ScriptModel([], name="local:qwen2.5-1.5b"))
    assert not _is_serial(ScriptModel([], name="openai:gpt-4o-mini"))


def test_children_may_run_on_their_own_model(tmp_path: Path, workspace: Path) -> None:
    cheap = tmp_path / "cheap.yaml"
    cheap.write_text("- text: from the cheap model\n")  # each child builds its own, so each replays it
    settings = Settings(home=tmp_path / "home", delegation=DelegationConfig(model=f"script:{cheap}"))
    from tests.runtime.delegate_helpers import parent_model

    from grove.runtime import Profile, Session

    session = Session.open(
        settings,
        Profile(
            toolsets=["files", "delegate"],
            workspace=workspace,
            model=parent_model(THREE),
        ),
    )
    session.run_turn("go")
    session.close()
    assert [r["result"] for r in reports(session)] == ["from the cheap model"] * 3
    assert {k.model for k in children_of(session)} == {f"script:{cheap}"}
    assert session.store.get_session(session.id).model == "script-parent"
