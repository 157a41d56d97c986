"""A finished card's label: its verifiers (grove.learning.checks) run against the task's workspace and final
answer; a blocked card fails without running them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from grove.batch.dataset import Item
from grove.learning.checks import failed_checks


@dataclass
class Label:
    passed: bool
    detail: str  # what failed, or "ok"
    outcome: str  # the card's status when labelled: done, review, blocked

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def verify(item: Item, status: str, workspace: Path, answer: str, error: str = "") -> Label:
    """The label; its detail quotes what the agent wrote, so it is redacted (it is printed, stored, exported)."""
    from grove.security.secrets.redact import redact

    if status not in ("done", "review"):
        return Label(False, redact(f"the card is {status}: {error or 'no reason given'}")[:400], status)
    failures = failed_checks(item.verifier, workspace, answer)
    return Label(not failures, "; ".join(failures)[:400] or "ok", status)
