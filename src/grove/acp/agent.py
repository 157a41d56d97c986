"""The ACP agent: sessions in the editor's cwd, prompts as grove turns (in a worker thread), streamed updates,
approvals as `session/request_permission`, cancel as a stop request between model calls and tool batches, and
file reads and writes through the editor when it declares them (grove.acp.editor_files)."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import acp
from acp import schema

from grove.acp.editor_files import EditorConnection, through_editor
from grove.agent.events import AgentEvents
from grove.llm.types import ToolCall
from grove.runtime import Profile, Session
from grove.security.approval.base import ApprovalRequest
from grove.tools.registry import ToolResult

# ACP permission options -> grove approval answers (grove's "session" scope has no ACP kind of its own)
OPTIONS: list[tuple[str, str, Literal["allow_once", "allow_always", "reject_once"]]] = [
    ("once", "Allow once", "allow_once"),
    ("always", "Allow always", "allow_always"),
    ("deny", "Reject", "reject_once"),
]

# what the editor shows a tool call as (an icon, follow-along for edits)
KINDS: dict[str, schema.ToolKind] = {
    "terminal": "execute", "read_file": "read", "write_file": "edit", "patch": "edit", "search_files": "search",
    "web_search": "fetch", "web_fetch": "fetch",
}  # fmt: skip


@dataclass
class Options:
    """What `grove acp` was started with: the model spec and whether commands may run at all."""

    model: str | None = None
    toolsets: list[str] | None = None
    allow_terminal: bool = False


@dataclass
class Open:
    session: Session
    stop: threading.Event = field(default_factory=threading.Event)


class Events(AgentEvents):
    """A grove turn's events as ACP session/update notifications, sent on the connection's loop."""

    streaming = True

    def __init__(self, agent: GroveAcpAgent, stop: threading.Event, workspace: str) -> None:
        self.agent, self.stop, self.workspace = agent, stop, workspace
        self.session_id = ""  # known once the session is open

    def send(self, update: Any) -> None:
        self.agent.call(self.agent.conn.session_update(session_id=self.session_id, update=update))

    def on_text(self, delta: str) -> None:
        self.send(acp.update_agent_message_text(delta))

    def on_tool_start(self, call: ToolCall) -> None:
        kind = KINDS.get(call.name, "read" if call.name.startswith("read") else "other")
        self.send(
            acp.start_tool_call(
                call.id, call.name, kind=kind, status="in_progress", raw_input={"arguments": call.arguments},
                locations=_locations(self.workspace, call.arguments),
            )
        )  # fmt: skip

    def on_tool_end(self, call: ToolCall, result: ToolResult) -> None:
        content = [acp.tool_content(acp.text_block(result.content))]
        status = "completed" if result.ok else "failed"
        self.send(acp.update_tool_call(call.id, status=status, content=content))

    def stop_requested(self) -> bool:
        return self.stop.is_set()


class GroveAcpAgent:
    """One ACP connection: its grove sessions by id. Turns run in threads so the loop keeps reading (cancel)."""

    def __init__(self, settings: Any, options: Options) -> None:
        self.settings, self.options = settings, options
        self.sessions: dict[str, Open] = {}
        self.conn: Any = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.fs = schema.FileSystemCapabilities()  # the file acts the client declared at initialize

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    def call(self, coro: Any, timeout: float | None = None) -> Any:
        """Run a client call from a turn's thread on the connection's loop, and wait for its answer."""
        assert self.loop is not None
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()  # the request is given up on: its answer, if it comes, goes nowhere
            raise

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: schema.ClientCapabilities | None = None,
        **kwargs: Any,
    ) -> schema.InitializeResponse:
        self.loop = asyncio.get_running_loop()
        if client_capabilities is not None and client_capabilities.fs is not None:
            self.fs = client_capabilities.fs
        return schema.InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=schema.AgentCapabilities(load_session=False),
            agent_info=schema.Implementation(name="grove", title="grove", version=_version()),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> schema.NewSessionResponse:
        stop = threading.Event()
        events = Events(self, stop, cwd)
        profile = Profile(
            source="acp",
            model=self.options.model,
            toolsets=self.options.toolsets,
            workspace=Path(cwd),
            allow_terminal=self.options.allow_terminal,
            approver=lambda request: self.approve(events.session_id, request),
            long_lived=True,
        )
        session = await asyncio.to_thread(Session.open, self.settings, profile, events)
        events.session_id = session.id
        through_editor(session.agent.ctx, EditorConnection(self.conn, session.id, self.fs, self.call))
        self.sessions[session.id] = Open(session, stop)
        return schema.NewSessionResponse(session_id=session.id)

    def approve(self, session_id: str, request: ApprovalRequest) -> str | None:
        """grove's approval question as session/request_permission; a cancelled or unknown answer denies."""
        options = [schema.PermissionOption(option_id=o, name=n, kind=k) for o, n, k in OPTIONS]
        tool_call = schema.ToolCallUpdate(
            tool_call_id=f"approval-{abs(hash(request.command))}", title=f"Run: {request.command}",
            kind="execute", status="pending", raw_input={"command": request.command, "reasons": request.reasons},
        )  # fmt: skip
        response = self.call(
            self.conn.request_permission(session_id=session_id, options=options, tool_call=tool_call)
        )
        outcome = response.outcome
        if getattr(outcome, "outcome", None) != "selected":
            return None
        return outcome.option_id if outcome.option_id in {o for o, _, _ in OPTIONS} else None

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> schema.PromptResponse:
        open_ = self.sessions.get(session_id)
        if open_ is None:
            raise acp.RequestError.invalid_params({"sessionId": session_id, "reason": "no such session"})
        text = "\n".join(block.text for block in prompt if getattr(block, "type", None) == "text")
        open_.stop.clear()
        result = await asyncio.to_thread(open_.session.run_turn, text)
        return schema.PromptResponse(stop_reason="cancelled" if result.interrupted else "end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        if (open_ := self.sessions.get(session_id)) is not None:
            open_.stop.set()

    def close(self) -> None:
        for open_ in self.sessions.values():
            open_.session.close()


def _locations(workspace: str, arguments: str) -> list[schema.ToolCallLocation] | None:
    """The file a call names (its `path`), absolute, for the editor to follow; only shown, never acted on."""
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return None
    path = args.get("path") if isinstance(args, dict) else None
    if not isinstance(path, str) or not path:
        return None
    return [schema.ToolCallLocation(path=os.path.normpath(os.path.join(workspace, os.path.expanduser(path))))]


def _version() -> str:
    from grove import __version__

    return __version__
