"""The `delegate` toolset: hand sub-tasks to child agents that run at once, each in its own context with fewer
tools, and get one structured report back per child. The runtime installs the runner (tools sit below it)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool

Workspace = Literal["view", "own"]
Status = Literal["done", "budget", "failed", "timeout", "refused"]


@dataclass
class DelegateTask:  # a dataclass, not a pydantic model: pydantic loads only when a tool is called
    goal: str
    context: str | None = None
    toolsets: list[str] | None = None
    workspace: Workspace = "view"


@dataclass
class ChildReport:
    """What comes back from one child: its answer, what it changed, what it could not settle, what it cost."""

    goal: str
    # done; budget (its iterations, tokens or time ran out); failed; timeout; refused (it never started)
    status: Status
    result: str
    files_touched: list[str] = field(default_factory=list)
    open_questions: list[str] = field(default_factory=list)
    error: str | None = None
    session_id: str | None = None
    workspace: str | None = None
    model_calls: int = 0
    tokens: int = 0
    seconds: float = 0.0
    # the claims of its answer its own tool calls contradict or cannot show (grove.claims); None = none
    unsupported_claims: list[dict[str, Any]] | None = None


class ChildRunner(Protocol):
    def __call__(self, tasks: list[DelegateTask]) -> list[ChildReport]: ...


def delegate(
    ctx: ToolContext,
    goal: str,
    context: str | None = None,
    toolsets: list[str] | None = None,
    tasks: list[DelegateTask] | None = None,
    workspace: Workspace = "view",
) -> str:
    """Hand work to sub-agents. Each starts with an empty conversation (it sees only what you write here), has
    fewer tools than you, and returns its result, the files it touched and its open questions. Give several
    independent `tasks` to run them at the same time.

    Args:
        goal: the task (with `tasks`: the overall goal, shown to every child)
        context: facts, paths and constraints the child needs; it cannot see this conversation
        toolsets: toolsets the child may use (default: yours that children may have)
        tasks: independent sub-tasks to run in parallel, each {goal, context?, toolsets?, workspace?}
        workspace: view = your workspace, read-only; own = an empty scratch folder of its own, removed afterwards
    """
    runner = ctx.children  # a ChildRunner; the context types it loosely (it may not import this module)
    if runner is None:
        raise ToolError("delegation is not available in this session")
    if not goal.strip() and not tasks:
        raise ToolError("give a goal (or tasks)")
    if tasks:
        shared = "\n\n".join(p for p in (f"Overall goal: {goal}" if goal.strip() else "", context or "") if p)
        todo = [
            DelegateTask(
                t.goal,
                "\n\n".join(p for p in (shared, t.context or "") if p) or None,
                t.toolsets if t.toolsets is not None else toolsets,
                t.workspace,
            )
            for t in tasks
        ]
    else:
        todo = [DelegateTask(goal, context, toolsets, workspace)]
    reports = runner(todo)
    children = [{k: v for k, v in asdict(r).items() if v is not None} for r in reports]  # no "error": null
    return json.dumps({"children": children}, ensure_ascii=False, indent=1)


def tools() -> list[Tool]:
    # mutating: it runs alone, after the read-only calls of its batch; never a child's (depth is the runtime's)
    return [make_tool(delegate, toolset="delegate", mutating=True, subagent_ok=False)]
