"""The `kanban` toolset: what a worker may do on the board, only ever to its own task (the one it holds a lease
on). The board itself sits above the tools layer, so the tools reach it through a handle the worker puts in the
session state (`ctx.state["kanban"]`)."""

from __future__ import annotations

from typing import Protocol

from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool

STATE_KEY = "kanban"
CREATED_KEY = "kanban.created"  # how many tasks this worker's session created so far
DEPTH_KEY = (
    "kanban.depth"  # how deep the worker's task sits in a chain of worker-created tasks (0 = a person's)
)
MAX_CREATED = 10  # tasks one worker (one task) may create: 1 task became 205 in 75 s without a cap
MAX_DEPTH = 3  # a task created by a worker at this depth may not create more: growth stays bounded


class KanbanHandle(Protocol):
    """A worker's hold on its task; every method carries the lease's fencing token and fails once it is stale."""

    def show(self) -> str: ...

    def heartbeat(self) -> str: ...

    def complete(self, summary: str, artifacts: list[str]) -> str: ...

    def block(self, reason: str) -> str: ...

    def comment(self, text: str) -> str: ...

    def create(self, title: str, body: str, parents: list[int]) -> str: ...


def bounds_state(task_id: int, created_by: dict[int, int | None]) -> dict[str, int]:
    """What the worker puts in the session state for the caps, from the board's task -> creator map: how many
    tasks this task created already (earlier attempts count) and how deep it sits in a chain of created tasks."""
    depth, seen, at = 0, {task_id}, created_by.get(task_id)
    while at is not None and at not in seen:  # a cycle cannot happen on the board; bounded all the same
        seen.add(at)
        depth, at = depth + 1, created_by.get(at)
    return {CREATED_KEY: sum(1 for c in created_by.values() if c == task_id), DEPTH_KEY: depth}


def _handle(ctx: ToolContext) -> KanbanHandle:
    handle = ctx.state.get(STATE_KEY)
    if handle is None:
        raise ToolError("the kanban tools work only inside a kanban worker (`grove worker --task ID`)")
    return handle


def kanban_show(ctx: ToolContext) -> str:
    """Show your task: title, body, status, its parents' results, comments and earlier attempts."""
    return _handle(ctx).show()


def kanban_heartbeat(ctx: ToolContext) -> str:
    """Extend your lease on the task during long work (the worker also does this on its own)."""
    return _handle(ctx).heartbeat()


def kanban_complete(ctx: ToolContext, summary: str, artifacts: list[str] | None = None) -> str:
    """Mark your task done. Call once, when the work is finished and checked.

    Args:
        summary: what was done and where the results are
        artifacts: paths of the files the work produced
    """
    return _handle(ctx).complete(summary, list(artifacts or []))


def kanban_block(ctx: ToolContext, reason: str) -> str:
    """Stop: the task cannot be done now (missing input, a decision a person must make).

    Args:
        reason: what is missing and who or what could unblock it
    """
    return _handle(ctx).block(reason)


def kanban_comment(ctx: ToolContext, text: str) -> str:
    """Add a comment to your task (progress, a finding others should see).

    Args:
        text: the comment
    """
    return _handle(ctx).comment(text)


def kanban_create(ctx: ToolContext, title: str, body: str = "", parents: list[int] | None = None) -> str:
    """Add a new task to the board (follow-up work you found); it waits for `parents` to be done.

    Args:
        title: one line saying what to do
        body: the details a worker needs
        parents: ids of tasks that must be done first
    """
    handle = _handle(ctx)
    created = int(ctx.state.get(CREATED_KEY, 0))
    limit = int(ctx.state.get("kanban.max_created", MAX_CREATED))
    if created >= limit:
        raise ToolError(
            f"refused: this task already created {created} kanban tasks, the cap per task ({limit}); finish "
            "this task or block it and say in a comment what further work you found"
        )
    depth = int(ctx.state.get(DEPTH_KEY, 0))
    max_depth = int(ctx.state.get("kanban.max_depth", MAX_DEPTH))
    if depth >= max_depth:
        raise ToolError(
            f"refused: this task is {depth} levels down a chain of worker-created kanban tasks (depth cap "
            f"{max_depth}); it may not create more. Say in a comment what further work you found"
        )
    result = handle.create(title, body, list(parents or []))
    ctx.state[CREATED_KEY] = created + 1
    return result


def tools() -> list[Tool]:
    # never for sub-agents: a child must not act on its parent's lease
    return [
        make_tool(kanban_show, toolset="kanban", subagent_ok=False),
        make_tool(kanban_heartbeat, toolset="kanban", mutating=True, subagent_ok=False),
        make_tool(kanban_complete, toolset="kanban", mutating=True, subagent_ok=False),
        make_tool(kanban_block, toolset="kanban", mutating=True, subagent_ok=False),
        make_tool(kanban_comment, toolset="kanban", mutating=True, subagent_ok=False),
        make_tool(kanban_create, toolset="kanban", mutating=True, subagent_ok=False),
    ]
