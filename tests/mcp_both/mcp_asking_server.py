"""An MCP server written with the SDK's MCPServer whose tools ask the client back: for a completion of its model
(sampling), for answers of its user (elicitation), for its roots, that log, and that run as tasks (Tasks). Run over stdio
(`python mcp_asking_server.py [--legacy]`) or in a thread on 127.0.0.1 over streamable HTTP (`running`).
`--task-only` lists `roots` as a tool run only as a task. `--legacy` refuses `server/discover`, so the client falls back to the initialize handshake (2025-11-25), where
the server asks with requests of its own mid-call instead of inside the call's answer (2026-07-28)."""

import json
import sys
import threading
import time
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from mcp import types
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, ListRoots, MCPServer, Resolve, Sample
from mcp.server.mcpserver.resolve import AcceptedElicitation
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field

LOGGED_SECRET = "sk-proj-" + "Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fE" * 2


class Order(BaseModel):
    name: str = Field(default="Ada", description="who orders")
    cups: int = Field(default=2, ge=1, le=9, description="how many cups")
    size: str = Field(default="small", json_schema_extra={"enum": ["small", "large"]})
    urgent: bool = False


TASKS = "io.modelcontextprotocol/tasks"


class TaskIdParams(types.RequestParams):
    task_id: str


class UpdateParams(TaskIdParams):
    input_responses: dict[str, Any]


class Tasks(Extension):
    """The tasks extension (SEP-2663) for three tools: `long_job` answers with a task done at the second poll,
    `long_question` asks the user's name through the task (input_required, then tasks/update), `endless` never
    ends (a client that gives up should cancel it). Each runs only as a task: a client without the extension is
    told so."""

    identifier = TASKS
    TOOLS = ("long_job", "long_question", "endless")

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, Any]] = {}
        self.cancelled = 0

    def _state(self, task_id: str) -> dict[str, Any]:
        task = self.tasks[task_id]
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        body = {"resultType": "complete", "taskId": task_id, "status": task["status"], "createdAt": now,
                "lastUpdatedAt": now, "ttlMs": 60_000, "pollIntervalMs": 20}  # fmt: skip
        if task["status"] == "completed":
            body["result"] = task["result"].model_dump(by_alias=True, mode="json", exclude_none=True)
        if task["status"] == "input_required":
            ask = types.ElicitRequest(
                params=types.ElicitRequestFormParams(
                    message="Your name, for the job?",
                    requested_schema={"type": "object", "properties": {"name": {"type": "string"}}},
                )
            )
            body["inputRequests"] = {"who": ask.model_dump(by_alias=True, mode="json", exclude_none=True)}
        return body

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        if params.name not in self.TOOLS:
            return await call_next(ctx)
        caps = ctx.session.client_capabilities
        if caps is None or TASKS not in (caps.extensions or {}):
            text = f"{params.name} runs only as a task: declare the {TASKS} extension"
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
        task_id = uuid.uuid4().hex
        first = "input_required" if params.name == "long_question" else "working"
        self.tasks[task_id] = {
            "tool": params.name,
            "status": first,
            "polls": 0,
            "result": await call_next(ctx),
        }
        return {**self._state(task_id), "resultType": "task"}

    async def get(self, _ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        task = self.tasks[params.task_id]
        task["polls"] += 1
        if task["tool"] == "long_job" and task["polls"] >= 2:
            task["status"] = "completed"
        return self._state(params.task_id)

    async def update(self, _ctx: Any, params: UpdateParams) -> dict[str, Any]:
        task = self.tasks[params.task_id]
        answer = params.input_responses["who"]
        name = (
            (answer.get("content") or {}).get("name", "?") if answer.get("action") == "accept" else "nobody"
        )
        text = f"job done for {name}"
        task["result"] = types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content={"result": text}
        )
        task["status"] = "completed"
        return {"resultType": "complete"}

    async def cancel(self, _ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        self.tasks[params.task_id]["status"] = "cancelled"
        self.cancelled += 1
        return {"resultType": "complete"}

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", TaskIdParams, self.get),
            MethodBinding("tasks/update", UpdateParams, self.update),
            MethodBinding("tasks/cancel", TaskIdParams, self.cancel),
        ]


def build(legacy: bool = False, task_only: bool = False) -> Any:
    tasks = Tasks()
    server = MCPServer("asking", extensions=[tasks])

    @server.tool()
    def long_job() -> str:
        """A job the server runs as a task."""
        return "long job done"

    @server.tool()
    def long_question() -> str:
        """A job that asks a question through its task."""
        return "(replaced by the answer)"

    @server.tool()
    def endless() -> str:
        """A job whose task never ends."""
        return "never shown"

    @server.tool()
    def tasks_cancelled() -> str:
        """How many tasks a client cancelled."""
        return str(tasks.cancelled)

    changes: list[int] = []  # roots/list_changed notifications heard

    def ask_model(question: str) -> Sample:
        return Sample(
            [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=question))],
            max_tokens=50,
            system_prompt="Answer in one word.",
        )

    @server.tool()
    def summarize(question: str, answer: Annotated[types.CreateMessageResult, Resolve(ask_model)]) -> str:
        """Ask the client's model, then report what it said."""
        text = answer.content.text if isinstance(answer.content, types.TextContent) else str(answer.content)
        return f"model {answer.model} said: {text}"

    def ask_order() -> Elicit[Order]:
        return Elicit("Your coffee order?", Order)

    @server.tool()
    def order(answer: Annotated[ElicitationResult[Order], Resolve(ask_order)]) -> str:
        """Ask the user for an order and report the outcome."""
        if isinstance(answer, AcceptedElicitation):
            return "accepted " + json.dumps(answer.data.model_dump(), sort_keys=True)
        return f"outcome {answer.action}"

    def ask_roots() -> ListRoots:
        return ListRoots()

    @server.tool()
    def roots(found: Annotated[types.ListRootsResult, Resolve(ask_roots)]) -> str:
        """The client's roots."""
        return " ".join(str(r.uri) for r in found.roots) or "(no roots)"

    @server.tool()
    async def chatty(ctx: Context) -> str:
        """Log twice (once with a secret in it), then answer."""
        # logging is deprecated from 2026-07-28 on, still served to a client that opts in
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await ctx.log("info", "starting the chatty work")
            await ctx.log("warning", {"note": "token in use", "token": LOGGED_SECRET})
        return "chatted"

    @server.tool()
    async def open_page(ctx: Context) -> str:
        """Send the user to a page (URL elicitation; its address carries a terminal escape)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            answer = await ctx.elicit_url("Sign in to continue", "https://example.com/login\x1b[2J", "e1")
        return f"outcome {answer.action}"

    @server.tool()
    def roots_changes() -> str:
        """How many roots/list_changed notifications the server heard."""
        return str(len(changes))

    lowlevel = server._lowlevel_server

    async def heard_change(_ctx: Any, _params: Any) -> None:
        changes.append(1)

    lowlevel.add_notification_handler(
        "notifications/roots/list_changed", types.NotificationParams, heard_change
    )
    if legacy:

        async def no_discover(_ctx: Any, _params: Any) -> Any:
            raise MCPError(types.METHOD_NOT_FOUND, "server/discover: this server speaks the handshake only")

        lowlevel.add_request_handler("server/discover", types.RequestParams, no_discover)
    if task_only:  # `roots` listed as a tool the server runs only as a task (2025-11-25 task augmentation)
        listing = lowlevel.get_request_handler("tools/list").handler

        async def list_tools(ctx: Any, params: Any) -> Any:
            result = await listing(ctx, params)
            for tool in result.tools:
                if tool.name == "roots":
                    tool.execution = types.ToolExecution(task_support="required")
            return result

        lowlevel.add_request_handler("tools/list", types.PaginatedRequestParams, list_tools)
    return server


@contextmanager
def running(legacy: bool = False) -> Iterator[str]:
    """The server over streamable HTTP on 127.0.0.1 in a thread; yields its URL."""
    import uvicorn

    app = build(legacy).streamable_http_app(host="127.0.0.1")
    userver = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=userver.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not userver.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the asking MCP server did not start")
        time.sleep(0.02)
    port = userver.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        userver.should_exit = True
        thread.join(10)


async def serve_stdio(legacy: bool, task_only: bool) -> None:
    """Over stdio; `legacy` serves the handshake era only (a dual-era stdio loop is decided by the client's first
    request, and a refused `server/discover` would already have made it modern)."""
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    server = build(legacy, task_only)
    if not legacy:
        await server.run_stdio_async()
        return
    low = server._lowlevel_server
    async with stdio_server() as (read, write), low.lifespan(low) as state:
        await serve_loop(
            low, read, write, lifespan_state=state, init_options=low.create_initialization_options()
        )


if __name__ == "__main__":
    import anyio

    anyio.run(serve_stdio, "--legacy" in sys.argv, "--task-only" in sys.argv)
