"""The MCP tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, on 2026-07-28 connections): a server may
answer a tool call with a task handle in place of its result. grove follows the task with `tasks/get` at the
server's poll interval until it ends, answers what it asks meanwhile (`tasks/update`, through the same sampling,
elicitation and roots answers as a call's), and cancels it when the call is given up (the call's timeout). The
SDK ships the extension mechanism, not this extension; 2025-11-25's task-augmented requests it leaves out."""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar, Literal

import anyio
from mcp import types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext
from pydantic import TypeAdapter

IDENTIFIER = "io.modelcontextprotocol/tasks"
DEFAULT_POLL_MS = 500
MIN_POLL_MS = 20  # a server asking for 0 cannot make grove spin


class TaskHandle(types.Result):
    """What the server answers in place of the call's result."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class TaskState(types.Result):
    """`tasks/get`: the task as it stands, with its result, error or questions when it has them."""

    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = None


class TaskIdParams(types.RequestParams):
    task_id: str


class UpdateParams(TaskIdParams):
    input_responses: dict[str, Any]


class GetTask(types.Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams
    name_param: ClassVar[str | None] = "taskId"  # SEP-2663: tasks/* carry the id in Mcp-Name


class UpdateTask(types.Request[UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateParams
    name_param: ClassVar[str | None] = "taskId"


class CancelTask(types.Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams
    name_param: ClassVar[str | None] = "taskId"


_INPUT: TypeAdapter[Any] = TypeAdapter(types.InputRequest)


def _failed(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


async def _answers(session: Any, task_id: str, asked: dict[str, Any]) -> dict[str, Any] | str:
    """The responses to the task's questions, or why one got none."""
    out: dict[str, Any] = {}
    for key, raw in asked.items():
        request = _INPUT.validate_python(raw)
        answer = await session.dispatch_input_request(
            ClientRequestContext(session=session, request_id=f"{task_id}/{key}"), request
        )
        if isinstance(answer, types.ErrorData):
            return answer.message
        out[key] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
    return out


async def follow(handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
    """The call's result, once its task has ended."""
    session, task_id = ctx.session, handle.task_id
    interval = handle.poll_interval_ms
    try:
        while True:
            state = await session.send_request(GetTask(params=TaskIdParams(task_id=task_id)), TaskState)
            interval = state.poll_interval_ms or interval
            if state.status == "completed":
                return types.CallToolResult.model_validate(state.result or {"content": []})
            if state.status == "failed":
                why = (state.error or {}).get("message") or state.status_message or "no reason given"
                return _failed(f"the server's task for '{ctx.tool_name}' failed: {why}")
            if state.status == "cancelled":
                return _failed(f"the server cancelled its task for '{ctx.tool_name}'")
            if state.status == "input_required" and state.input_requests:
                answers = await _answers(session, task_id, state.input_requests)
                if isinstance(answers, str):
                    await _cancel(session, task_id)
                    return _failed(
                        f"the task for '{ctx.tool_name}' asked what grove could not answer: {answers}"
                    )
                update = UpdateTask(params=UpdateParams(task_id=task_id, input_responses=answers))
                await session.send_request(update, types.Result)
                continue
            await anyio.sleep(max(interval or DEFAULT_POLL_MS, MIN_POLL_MS) / 1000)
    except BaseException:  # given up (timeout, Ctrl-C, a broken link): the server need not go on with it
        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            await _cancel(session, task_id)
        raise


async def _cancel(session: Any, task_id: str) -> None:
    with contextlib.suppress(Exception):  # the task may be over already; cancelling is a courtesy
        await session.send_request(CancelTask(params=TaskIdParams(task_id=task_id)), types.Result)


class TasksExtension(ClientExtension):
    identifier = IDENTIFIER

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=follow)]
