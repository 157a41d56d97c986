"""The `delegate` tool itself: its schema, the runner it needs from the runtime, how tasks inherit the shared
goal, context and toolsets; and how a child's answer is split into its result and open questions."""

from __future__ import annotations

import json
from pathlib import Path

from grove.agent.loop import ToolCallRecord
from grove.runtime.child_report import files_touched, split_open_questions
from grove.tools.context import ToolContext
from grove.tools.delegate import ChildReport, DelegateTask, tools


def tool_call(ctx: ToolContext, **args: object) -> tuple[bool, str]:
    result = tools()[0].call(ctx, args)
    return result.ok, result.content


def test_schema_and_flags() -> None:
    (tool,) = tools()
    params = tool.schema["function"]["parameters"]
    assert params["required"] == ["goal"]
    assert set(params["properties"]) == {"goal", "context", "toolsets", "tasks", "workspace"}
    assert params["properties"]["tasks"]["items"]["required"] == ["goal"]
    assert not tool.subagent_ok and tool.mutating and not tool.needs_approval


def test_without_a_runner_the_model_is_told(tmp_path: Path) -> None:
    ok, content = tool_call(ToolContext(tmp_path), goal="anything")
    assert not ok and "delegation is not available" in content


def test_tasks_share_the_goal_context_and_toolsets(tmp_path: Path) -> None:
    got: list[DelegateTask] = []

    def runner(tasks: list[DelegateTask]) -> list[ChildReport]:
        got.extend(tasks)
        return [ChildReport(t.goal, "done", f"did {t.goal}") for t in tasks]

    ctx = ToolContext(tmp_path, children=runner)
    ok, content = tool_call(
        ctx,
        goal="audit",
        context="repo is at /src",
        toolsets=["files"],
        tasks=[
            {"goal": "a"},
            {"goal": "b", "context": "only tests/", "toolsets": ["todo"], "workspace": "own"},
        ],
    )
    assert ok
    assert [r["result"] for r in json.loads(content)["children"]] == ["did a", "did b"]
    a, b = got
    assert a.context == "Overall goal: audit\n\nrepo is at /src" and a.toolsets == ["files"]
    assert a.workspace == "view"
    assert b.context == "Overall goal: audit\n\nrepo is at /src\n\nonly tests/" and b.toolsets == ["todo"]
    assert b.workspace == "own"


def test_one_goal_is_one_child(tmp_path: Path) -> None:
    got: list[DelegateTask] = []

    def runner(tasks: list[DelegateTask]) -> list[ChildReport]:
        got.extend(tasks)
        return []

    ok, _ = tool_call(ToolContext(tmp_path, children=runner), goal="find the bug", context="in x.py")
    assert ok and got == [DelegateTask("find the bug", "in x.py", None, "view")]
    ok, content = tool_call(ToolContext(tmp_path, children=runner), goal="  ")
    assert not ok and "give a goal" in content


def test_open_questions_are_split_from_the_result() -> None:
    answer = "The limit is 42.\n\n**Open questions:**\n- which config wins?\n2. is v2 still used?\n\nthanks"
    assert split_open_questions(answer) == ("The limit is 42.", ["which config wins?", "is v2 still used?"])
    assert split_open_questions("done\nOpen questions: none") == ("done", [])
    assert split_open_questions("done\n## Open questions\n- none") == ("done", [])
    assert split_open_questions("Open questions: who owns it?") == ("", ["who owns it?"])
    assert split_open_questions("no section here\n") == ("no section here", [])


def test_files_touched_names_each_file_once(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("b")
    (tmp_path / "a.txt").write_text("a")
    calls = [
        ToolCallRecord("write_file", {"path": str(tmp_path / "a.txt")}, True),
        ToolCallRecord("write_file", {"path": "failed.txt"}, False),
        ToolCallRecord("read_file", {"path": "read.txt"}, True),
    ]
    assert files_touched(calls, {"write_file"}, tmp_path) == ["a.txt", "sub/b.txt"]
    assert files_touched(calls, {"write_file"}, None) == [str(tmp_path / "a.txt")]
