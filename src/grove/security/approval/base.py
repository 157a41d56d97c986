"""The types the approval flow shares with the policy, the decision log and the front ends (the bottom layer:
imports nothing of the flow itself, so policy, approval and decisions never import each other in a circle)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from grove.security.commands.base import CommandVerdict

ANSWERS = ("once", "session", "always", "deny")


@dataclass(frozen=True)
class ApprovalRequest:
    """What the user (or the judge) is asked about."""

    command: str
    verdict: CommandVerdict
    session_id: str | None
    timeout: float  # seconds the approver has; it is asked again next time, never left waiting

    @property
    def reasons(self) -> str:
        return self.verdict.summary()

    @property
    def patterns(self) -> list[str]:
        return self.verdict.rules


# The front end's question to the user: returns one of ANSWERS, or None for "no answer".
Approver = Callable[[ApprovalRequest], "str | None"]
# Smart mode's model call: returns "approve", "deny" or "escalate" (to the user).
Judge = Callable[[ApprovalRequest], str]


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str  # shown to the model when denied: what was refused and why
    # rules | blocklist | mode-off | session | always | unattended | sandbox | judge | user | timeout
    decided_by: str
    verdict: CommandVerdict


class DecisionLog(Protocol):
    """Where decisions are recorded and "always" answers kept (grove.security.approval.decisions.DecisionStore)."""

    def record(self, decision: Decision, session_id: str | None) -> None: ...
    def always(self) -> set[str]: ...
    def remember_always(self, pattern: str, description: str, session_id: str | None) -> None: ...


class PolicyView(Protocol):
    """What the approval flow reads from a SafetyPolicy (grove.security.approval.policy), without importing it."""

    approval_mode: str
    unattended: bool
    approval_timeout: float
    session_approved: set[str]

    @property
    def approver(self) -> Approver | None: ...
    @property
    def judge(self) -> Judge | None: ...
    @property
    def decisions(self) -> DecisionLog | None: ...
    def sandbox_isolates(self) -> bool: ...
    def can_undo(self) -> bool: ...
