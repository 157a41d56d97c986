"""The safety policy of one session: an explicit object passed down, never a global or an env var read deep down.

It holds the approval mode, whether anyone can be asked (unattended or not), the sandbox level, the allowed
toolsets, and the callables the front end supplies: `approver` asks the user, `judge` is the smart-mode model call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from grove.security.approval.taint import Taint

if TYPE_CHECKING:
    from grove.security.approval.base import Approver, Decision, Judge
    from grove.security.approval.decisions import DecisionStore

APPROVAL_MODES = ("manual", "smart", "off")
SANDBOX_LEVELS = ("auto", "bwrap", "landlock", "rlimit")


@dataclass
class SafetyPolicy:
    allow_terminal: bool = False  # shell commands run only when the user allowed them explicitly
    unattended: bool = False  # cron, workers, reviewers, no TTY: whatever needs approval is denied at once
    approval_mode: str = "manual"  # manual: ask; smart: a model decides, may escalate to the user; off: allow
    sandbox: str = "auto"  # which sandbox backend commands run in; auto = the best this machine offers
    network: bool = False  # whether sandboxed commands may reach the network
    # unattended runs may execute commands and code even where the sandbox does not isolate (rlimits only)
    allow_unisolated: bool = False
    toolsets: tuple[str, ...] | None = None  # toolsets this session may use; None = no restriction
    approver: Approver | None = field(default=None, repr=False)
    judge: Judge | None = field(default=None, repr=False)
    decisions: DecisionStore | None = field(default=None, repr=False)  # the log and the "always" answers
    approval_timeout: float = 300.0  # seconds to wait for an answer; no answer = deny
    session_approved: set[str] = field(default_factory=set)  # rule ids answered "this session"
    # whether a checkpoint of the workspace exists (the runtime wires ctx.checkpoints.ready); None = none: an
    # unknown command unattended then runs nowhere, since what it changes in the workspace could not be undone
    checkpoint_ready: Callable[[], bool] | None = field(default=None, repr=False)
    taint: Taint = field(default_factory=Taint)  # untrusted sources already in the conversation

    def __post_init__(self) -> None:
        if self.approval_mode not in APPROVAL_MODES:
            raise ValueError(
                f"unknown approval mode {self.approval_mode!r}; use one of {', '.join(APPROVAL_MODES)} "
                "(e.g. `grove config set security.approval_mode manual`)"
            )
        if self.sandbox not in SANDBOX_LEVELS:
            raise ValueError(
                f"unknown sandbox level {self.sandbox!r}; use one of {', '.join(SANDBOX_LEVELS)}"
            )
        if self.approval_timeout <= 0:
            raise ValueError("approval_timeout must be > 0 seconds")

    def check_terminal(self) -> str | None:
        """None when the terminal tool may run at all, else the reason to show the model (and the user)."""
        if not self.allow_terminal:
            return (
                "the terminal tool is disabled by this session's safety policy; the user can enable it with "
                "`--allow-terminal` or `grove config set security.allow_terminal true`"
            )
        if not self.allows_toolset("terminal"):
            return "the terminal toolset is not allowed in this session"
        return None

    def allows_toolset(self, name: str) -> bool:
        return self.toolsets is None or name in self.toolsets

    def check_command(
        self, command: str, *, session_id: str | None = None, workspace: str | None = None
    ) -> Decision:
        """Whether a shell command may run: rules, hard blocklist, remembered answers, then judge or user."""
        from grove.security.approval.flow import decide

        return decide(self, command, session_id=session_id, workspace=workspace)

    def sandbox_isolates(self) -> bool:
        """Whether commands run isolated (bwrap or Landlock): what cannot be resolved before it runs is then
        confined. rlimit isolates nothing; `auto` asks the machine (once per process)."""
        if self.sandbox == "rlimit":
            return False
        if self.sandbox in ("bwrap", "landlock"):
            return True
        return _detected_isolation()

    def can_undo(self) -> bool:
        """Whether a checkpoint of the workspace exists now (a failing check counts as none)."""
        if self.checkpoint_ready is None:
            return False
        try:
            return bool(self.checkpoint_ready())
        except Exception:  # a broken checkpoint store must not let an unknown command run unattended
            return False

    def unattended_copy(self) -> SafetyPolicy:
        """The same policy for a background job: nobody to ask, so whatever needs approval is denied."""
        return replace(
            self,
            unattended=True,
            approver=None,
            session_approved=set(self.session_approved),
            taint=Taint(list(self.taint.sources)),
        )


@functools.cache
def _detected_isolation() -> bool:
    from grove.sandbox import detect_backend

    return detect_backend().isolated
