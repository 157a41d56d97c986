"""The MCP tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on grove's server: a 2026-07-28 client that
declares it gets a task handle for `run_task` at once, follows the turn with `tasks/get`, and stops it with
`tasks/cancel`. A task is its creator's only (its owner: the stdio connection, or the bearer token over HTTP);
a client that does not declare the extension gets the plain result, as before."""

from __future__ import annotations

import contextvars
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp import types
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver.server import require_client_extension
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from grove.mcp_server.http import PRINCIPAL_KEY
from grove.security.secrets.redact import redact

IDENTIFIER = "io.modelcontextprotocol/tasks"
TASK_TOOLS = frozenset({"run_task"})  # grove's long-running tool; the others answer in milliseconds
POLL_MS = 200
TTL_MS = 3_600_000  # a task is kept this long after it was created, then forgotten
RUNNING_PER_OWNER = 4  # grove turns one owner may have going at once: each is a thread and a model's work
KEPT_PER_OWNER = 100  # the oldest ended tasks are forgotten past this, so a busy client cannot fill memory

_stop: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar(
    "grove_task_stop", default=None
)


def stop_event() -> threading.Event | None:
    """The event that cancels the current task's turn, when the tool call runs as a task."""
    return _stop.get()


def owner_of(ctx: Any) -> str:
    """Who a request comes from: the HTTP principal the token check named, or the one stdio connection."""
    request = getattr(ctx, "request", None)
    if request is None:
        return "stdio"  # a stdio server process serves one client
    return str((request.scope.get("state") or {}).get(PRINCIPAL_KEY) or "http")


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass
class Task:
    task_id: str
    owner: str
    tool: str
    status: str = "working"
    status_message: str | None = "grove is working on it"
    created: float = field(default_factory=time.monotonic)
    created_at: str = field(default_factory=_now)
    updated_at: str = field(default_factory=_now)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    turn_ended: threading.Event = field(default_factory=threading.Event)

    def set(self, status: str, message: str | None, **payload: Any) -> None:
        if self.status in ("completed", "failed", "cancelled"):
            return  # terminal: a turn ending after its cancel does not bring the task back
        self.status, self.status_message, self.updated_at = status, message, _now()
        for key, value in payload.items():
            setattr(self, key, value)

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.updated_at,
            "ttlMs": TTL_MS,
            "pollIntervalMs": POLL_MS,
        }
        if self.status_message:
            out["statusMessage"] = self.status_message
        if self.status == "completed":
            out["result"] = self.result or {"content": []}
        if self.status == "failed":
            out["error"] = self.error or {"code": types.INTERNAL_ERROR, "message": "the task failed"}
        return out


class TaskIdParams(types.RequestParams):
    task_id: str


class UpdateParams(TaskIdParams):
    input_responses: dict[str, Any]


class GroveTasks(Extension):
    """Runs `run_task` as a task for a declaring client: the whole tool call (argument checks, the grove turn,
    redaction, error results) in a thread of its own, so nothing of it waits on the request that started it."""

    identifier = IDENTIFIER

    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}
        self._lock = threading.Lock()

    # -- tools/call ---------------------------------------------------------------------------------------------
    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        if not (params.name in TASK_TOOLS and ctx.protocol_version in MODERN_PROTOCOL_VERSIONS):
            return await call_next(ctx)
        caps = ctx.session.client_capabilities
        if caps is None or IDENTIFIER not in (caps.extensions or {}):
            # the client did not declare tasks: it waits for the result, as before
            return await call_next(ctx)
        task = Task(task_id=secrets.token_urlsafe(32), owner=owner_of(ctx), tool=params.name)
        with self._lock:
            self._forget_old(task.owner)
            running = sum(
                1 for t in self._tasks.values() if t.owner == task.owner and not t.turn_ended.is_set()
            )
            if running >= RUNNING_PER_OWNER:
                text = (
                    f"{running} grove tasks of yours are still running (at most {RUNNING_PER_OWNER} at once): "
                    "wait for one to end, or cancel one (tasks/cancel)"
                )
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text=text)], is_error=True
                )
            self._tasks[task.task_id] = task
        thread = threading.Thread(
            target=self._run,
            args=(task, call_next, ctx),
            name=f"grove-mcp-task-{task.task_id[:8]}",
            daemon=True,
        )
        thread.start()
        return {**task.body(), "resultType": "task"}

    def _run(self, task: Task, call_next: Any, ctx: Any) -> None:
        """The tool call, on its own event loop; its outcome becomes the task's. `run_task` never talks back to
        the client (no logging, progress or questions), so the request's context is not used across loops."""
        _stop.set(task.stop)  # the tool reads it (stop_event) to end the turn when the task is cancelled
        try:
            result = anyio.run(call_next, ctx)
            body = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            with self._lock:
                task.set("completed", "done", result=body)
        except MCPError as e:  # a JSON-RPC error, what `failed` is for (a tool's own error is a result)
            error = {"code": e.error.code, "message": redact(e.error.message)}
            with self._lock:
                task.set("failed", error["message"], error=error)
        except Exception as e:  # the thread must record every end, or the task would work forever
            error = {"code": types.INTERNAL_ERROR, "message": redact(f"{type(e).__name__}: {e}")}
            with self._lock:
                task.set("failed", error["message"], error=error)
        finally:
            with self._lock:
                if (
                    task.status == "cancelled"
                ):  # the client may see that the turn is over, not only asked to end
                    task.status_message = "cancelled by the client; the grove turn stopped"
                    task.updated_at = _now()
            task.turn_ended.set()

    # -- tasks/* ------------------------------------------------------------------------------------------------
    def _find(self, ctx: Any, task_id: str) -> Task:
        """The caller's task; an unknown id and another owner's get the same answer, so neither is revealed."""
        require_client_extension(ctx, IDENTIFIER)
        with self._lock:
            task = self._tasks.get(task_id)
        if task is None or task.owner != owner_of(ctx) or self._expired(task):
            raise MCPError(types.INVALID_PARAMS, "Failed to retrieve task: Task not found")
        return task

    async def get(self, ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        task = self._find(ctx, params.task_id)
        with self._lock:
            return {**task.body(), "resultType": "complete"}

    async def update(self, ctx: Any, params: UpdateParams) -> dict[str, Any]:
        self._find(ctx, params.task_id)  # grove's turns run unattended and never ask: nothing is outstanding
        return {"resultType": "complete"}

    async def cancel(self, ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        task = self._find(ctx, params.task_id)
        with self._lock:
            task.set("cancelled", "cancelled by the client; the grove turn stops before its next step")
        task.stop.set()
        return {"resultType": "complete"}

    def methods(self) -> list[MethodBinding]:
        modern = frozenset(MODERN_PROTOCOL_VERSIONS)
        return [
            MethodBinding("tasks/get", TaskIdParams, self.get, modern),
            MethodBinding("tasks/update", UpdateParams, self.update, modern),
            MethodBinding("tasks/cancel", TaskIdParams, self.cancel, modern),
        ]

    # -- keeping memory bounded -----------------------------------------------------------------------------------
    @staticmethod
    def _expired(task: Task) -> bool:
        return (time.monotonic() - task.created) * 1000 > TTL_MS

    def _forget_old(self, owner: str) -> None:
        """Expired tasks go; past KEPT_PER_OWNER the owner's oldest ended ones too. Called under the lock."""
        for task_id in [t.task_id for t in self._tasks.values() if self._expired(t)]:
            self._tasks[task_id].stop.set()
            del self._tasks[task_id]
        ended = [t for t in self._tasks.values() if t.owner == owner and t.turn_ended.is_set()]
        mine = sum(1 for t in self._tasks.values() if t.owner == owner)
        for task in ended[: max(0, mine - KEPT_PER_OWNER + 1)]:
            del self._tasks[task.task_id]
