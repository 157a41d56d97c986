"""What a tool handler receives besides its arguments: the workspace, the safety policy and session state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from grove.llm.profiles import FULL, ModelNeeds
from grove.security.approval.policy import SafetyPolicy

if TYPE_CHECKING:
    from grove.backends.base import Backend
    from grove.checkpoints.turn import TurnCheckpoints
    from grove.config import Settings
    from grove.llm.types import Model
    from grove.store.sessions import SessionStore


class SessionTools(Protocol):
    """What a tool reaches of the session's registry (grove.tools.registry.ToolRegistry, which imports this
    module): a tool by name, the names, a call through the tool's own gates."""

    def get(self, name: str) -> Any: ...

    def names(self) -> list[str]: ...

    def call(self, ctx: ToolContext, name: str, raw_arguments: Any) -> Any: ...


@dataclass
class ToolContext:
    workspace: Path
    policy: SafetyPolicy = field(default_factory=SafetyPolicy)
    settings: Settings | None = None
    store: SessionStore | None = None
    session_id: str | None = None
    # the session's workspace checkpoints (taken before a turn's first change); None = no undo
    checkpoints: TurnCheckpoints | None = None
    # a tool's own scratch for the session (the todo list, the pages seen); what the runtime or the loop hands
    # the tools has a typed field below
    state: dict[str, Any] = field(default_factory=dict)
    # what the session's model needs of the agent (grove.llm.profiles), built once by the runtime
    needs: ModelNeeds = FULL
    # the session's model (set by the agent): whom an MCP server's sampling request asks, under its spend caps
    model: Model | None = field(default=None, repr=False)
    # the session's tools (set by the agent): those a tool script may call, through their own gates
    registry: SessionTools | None = field(default=None, repr=False)
    # the runner of the `delegate` tool, tasks -> reports (grove.tools.delegate.ChildRunner; set by the runtime
    # when the session has the tool); None = no delegation
    children: Callable[[list[Any]], list[Any]] | None = field(default=None, repr=False)
    # files read or written this session (absolute, normalised): with needs.read_before_write, write_file
    # overwrites only these
    seen_files: set[str] = field(default_factory=set, repr=False)
    # image parts tools opened (view_image); the loop sends them after the batch's tool results
    pending_images: list[dict[str, Any]] = field(default_factory=list, repr=False)
    # the session's one notice stream (the runtime connects it to the front end); a bare context drops notices
    notify: Callable[[str], None] = field(default=lambda _text: None, repr=False)
    # where the tools act (grove.backends); None = this machine's sandbox, or the one `backends.use` names,
    # opened on first use and kept for the session (one SSH connection per session)
    backend: Backend | None = field(default=None, repr=False)


def backend_of(ctx: ToolContext) -> Backend:
    """The session's backend: the one set or configured, else the local sandbox (made per call, so a policy
    changed mid-session applies at once, as before backends existed)."""
    if ctx.backend is not None:
        return ctx.backend
    backends = getattr(ctx.settings, "backends", None)
    use = getattr(backends, "use", "local") or "local"
    from grove.backends.local import LocalBackend

    def local() -> LocalBackend:
        return LocalBackend(ctx.workspace, ctx.policy, ctx.settings, ctx.session_id)

    if use != "local":
        from grove.backends.open import open_backend

        # a name may stand for local: None then
        ctx.backend = open_backend(use, ctx.settings, local, lambda: ctx.policy)
        if ctx.backend is not None:
            return ctx.backend
    return local()
