"""What a tool handler receives besides its arguments: the workspace, the safety policy and session state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.security.approval.policy import SafetyPolicy

if TYPE_CHECKING:
    from grove.checkpoints.turn import TurnCheckpoints
    from grove.config import Settings
    from grove.store.sessions import SessionStore


@dataclass
class ToolContext:
    workspace: Path
    policy: SafetyPolicy = field(default_factory=SafetyPolicy)
    settings: Settings | None = None
    store: SessionStore | None = None
    session_id: str | None = None
    # the session's workspace checkpoints (taken before a turn's first change); None = no undo
    checkpoints: TurnCheckpoints | None = None
    state: dict[str, Any] = field(default_factory=dict)  # per-session scratch, e.g. the todo list
    # the session's one notice stream (the runtime connects it to the front end); a bare context drops notices
    notify: Callable[[str], None] = field(default=lambda _text: None, repr=False)
