"""The safety policy of one session: an explicit object passed down, never a global or an env var read deep down."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SafetyPolicy:
    allow_terminal: bool = False  # shell commands run only when the user allowed them explicitly
    unattended: bool = False  # cron, workers, reviewers: whatever needs approval is denied

    def check_terminal(self) -> str | None:
        """None when allowed, else the reason to show the model (and the user)."""
        if self.allow_terminal and not self.unattended:
            return None
        return (
            "the terminal tool is disabled by this session's safety policy; the user can enable it with "
            "`--allow-terminal` or `grove config set security.allow_terminal true`"
        )
