"""What an entrance asks of the runtime: which model chain, tools, policy and workspace, who can be asked, and
which loops run around its turns. A new entrance (gateway, cron, worker) is mostly a Profile."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from grove.llm.types import Model
    from grove.security.approval.flow import Approver
    from grove.tools.registry import ToolRegistry

# How self-reviews run after a turn: in a thread of this process, in a detached process (a one-shot run exits
# after its answer), or not at all.
ReviewMode = Literal["thread", "detached", "off"]


@dataclass
class Profile:
    source: str = "cli"  # stored with the session: run, chat, goal, review, a gateway's name...
    # a spec, built with the configured fallbacks and retries (None = settings', or a resumed session's own); or a
    # ready Model (tests, the reviewer, sub-agents, evolution), used as it is: routed already, if at all
    model: str | Model | None = None
    toolsets: list[str] | None = None  # None = settings.toolsets; [] = none (only `tools`)
    # tools added to the toolsets' (a kanban worker's board tools; the reviewer's own, with toolsets=[]): they keep
    # MCP and learned tools and are never left out for a small model
    tools: ToolRegistry | None = None
    system_prompt: str | None = None  # None = grove's assembled prompt (identity, memory, skills, project)
    resume: str | None = None  # session id (or prefix, or "last")
    title: str | None = None
    parent_id: str | None = None  # a child session (reviewer, sub-agent) names its parent
    max_iterations: int | None = None
    workspace: Path | None = None
    backend: str | None = None  # where the tools act: a spec or backends.named name; None = backends.use
    allow_terminal: bool = False
    yolo: bool = False  # approvals off (the hard blocklist still holds)
    allow_unisolated: bool = False  # unattended commands may run without sandbox isolation (rlimit fallback)
    approver: Approver | None = None  # who answers approval questions; None = nobody: denied at once
    long_lived: bool = False  # many calls ahead (chat, goal): see grove.llm.spec.build_model
    review: ReviewMode = "off"
    # the curator when it is due: True = a thread at open when idle (interactive sessions); "detached" = a process
    # after the session closes (one-shot entrances), at most once per learning.curator_interval_days
    curator: bool | Literal["detached"] = False
    # each sub-agent's model (`delegate`): a new one per child; None = delegation.model, else the parent's own
    child_model: Callable[[], Model] | None = None
    # spend scopes besides 'all' and 'profile:<source>' this entrance's requests count in: 'key:NAME', 'user:P:ID'
    spend_scopes: tuple[str, ...] = ()

    @property
    def unattended(self) -> bool:
        return self.approver is None
