"""The MCP server: grove's own tools (skills, memory, sessions) called through its registry with an unattended
policy, and `run_task` as a full turn of a runtime Session. Everything leaving is redacted."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grove.agent.events import AgentEvents
from grove.config import Settings
from grove.llm.types import Model
from grove.runtime import Profile, Session
from grove.runtime.assemble import build_policy, open_store
from grove.security.secrets.redact import redact
from grove.tools.builtin import builtin_registry
from grove.tools.context import ToolContext
from grove.tools.registry import ToolRegistry

INSTRUCTIONS = (
    "grove: a self-improving agent. Find its skills with skills_search / skills_list and read one with "
    "skill_view; recall past work with session_search; read its memory with memory_read; hand it a whole task "
    "with run_task (it runs unattended: whatever needs approval is denied)."
)


class GroveMcpError(Exception):
    """A call the client can fix (unknown skill, refused memory entry); its text is the error result."""


class StopWhenSet(AgentEvents):
    """Ends a turn early once its event is set (the MCP task running it was cancelled)."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop

    def stop_requested(self) -> bool:
        return self.stop.is_set()


@dataclass
class GroveService:
    """The grove side of every MCP tool, synchronous (the server runs each call in a worker thread)."""

    settings: Settings
    workspace: Path
    model: str | Model | None = None  # a spec, or a ready Model (tests)
    _registry: ToolRegistry = field(init=False)
    _ctx: ToolContext = field(init=False)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._registry = builtin_registry().select(["skills", "memory", "sessions"])
        store = open_store(self.settings)
        self._ctx = ToolContext(
            workspace=self.workspace,
            policy=build_policy(
                self.settings, store
            ),  # no approver: unattended, what needs approval is denied
            settings=self.settings,
            store=store,
        )

    def _tool(self, name: str, args: dict[str, Any]) -> str:
        with self._lock:  # calls arrive on worker threads; the context's store connection is one
            result = self._registry.call(self._ctx, name, {k: v for k, v in args.items() if v is not None})
        text = redact(result.content)
        if not result.ok:
            raise GroveMcpError(text.removeprefix("Error: "))
        return text

    def skills_list(self) -> str:
        from grove.skills.discover import discover

        skills = discover(self.settings, self.workspace).sorted()
        return redact(
            "\n".join(f"{s.name} [{s.category}]: {s.description}" for s in skills) or "no skills yet"
        )

    def skill_view(self, name: str, file_path: str | None = None) -> str:
        return self._tool("skill_view", {"name": name, "file_path": file_path})

    def skills_search(self, query: str, limit: int = 5) -> str:
        return self._tool("skills_search", {"query": query, "limit": limit})

    def memory_read(self, target: str = "memory") -> str:
        from grove.config.memory import memory_config
        from grove.memory.files import MemoryFiles

        if target not in ("memory", "user"):
            raise GroveMcpError("target is 'memory' (the agent's notes) or 'user' (the user's profile)")
        files = MemoryFiles(self.settings.home, memory_config(self.settings))
        return redact(files.read_text(target) or "(empty)")

    def memory_propose(self, content: str, target: str = "memory") -> str:
        return self._tool("memory", {"action": "add", "target": target, "content": content})

    def session_search(self, query: str = "", session_id: str | None = None, limit: int = 5) -> str:
        return self._tool("session_search", {"query": query, "session_id": session_id, "limit": limit})

    def run_task(self, task: str, stop: threading.Event | None = None) -> str:
        """One full grove turn in a new session (source "mcp"); nobody can approve, so nothing risky runs.
        `stop` set (its task cancelled) ends the turn before its next model call or tool batch."""
        profile = Profile(
            source="mcp",
            model=self.model,
            toolsets=[
                t for t in self.settings.toolsets if t != "mcp"
            ],  # never calls MCP servers, itself included
            workspace=self.workspace,
            approver=None,
            review="off",
        )
        session = Session.open(self.settings, profile, StopWhenSet(stop) if stop is not None else None)
        try:
            result = session.run_turn(task)
            answer = "(stopped: the task was cancelled)" if result.interrupted else result.answer
        finally:
            session.close()
        return redact(answer)


def build_server(service: GroveService) -> Any:
    """The SDK's MCPServer with grove's tools; each call runs in a worker thread (grove is synchronous)."""
    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from grove import __version__
    from grove.mcp_server.protocol import add_protocol_handlers
    from grove.mcp_server.tasks import GroveTasks, stop_event

    server = MCPServer("grove", instructions=INSTRUCTIONS, version=__version__, extensions=[GroveTasks()])
    add_protocol_handlers(server)

    async def run(fn: Any, *args: Any) -> str:
        try:
            return await anyio.to_thread.run_sync(fn, *args)
        except GroveMcpError as e:
            raise ToolError(str(e)) from e

    @server.tool()
    async def skills_list() -> str:
        """List grove's skills: name [category]: description."""
        return await run(service.skills_list)

    @server.tool()
    async def skills_search(query: str, limit: int = 5) -> str:
        """Find grove skills for a task by keywords."""
        return await run(service.skills_search, query, limit)

    @server.tool()
    async def skill_view(name: str, file_path: str | None = None) -> str:
        """Read a grove skill's SKILL.md, or one of its files (file_path relative to the skill folder)."""
        return await run(service.skill_view, name, file_path)

    @server.tool()
    async def memory_read(target: str = "memory") -> str:
        """Read grove's memory: 'memory' (the agent's notes) or 'user' (what it knows of the user)."""
        return await run(service.memory_read, target)

    @server.tool()
    async def memory_propose(content: str, target: str = "memory") -> str:
        """Propose one durable fact for grove's memory ('memory' or 'user'); checked like grove's own entries
        (size limits, safety scan) and saved if it passes; it shows from grove's next session."""
        return await run(service.memory_propose, content, target)

    @server.tool()
    async def session_search(query: str = "", session_id: str | None = None, limit: int = 5) -> str:
        """Search grove's past sessions (full text), or read one by its id."""
        return await run(service.session_search, query, session_id, limit)

    @server.tool()
    async def run_task(task: str) -> str:
        """Give grove a task; it runs one full agent turn (its tools, skills and memory) unattended and returns
        the answer. Anything that needs a person's approval is denied. A client that declares the tasks extension
        gets a task to poll (tasks/get) or cancel (tasks/cancel) instead of waiting."""
        return await run(service.run_task, task, stop_event())

    return server
