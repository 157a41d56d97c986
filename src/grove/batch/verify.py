"""A finished card's label: its verifiers run against the task's workspace and final answer; a blocked card
fails without running them."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from grove.batch.dataset import Check, CommandCheck, FileCheck, Item, OutputCheck


@dataclass
class Label:
    passed: bool
    detail: str  # what failed, or "ok"
    outcome: str  # the card's status when labelled: done, review, blocked

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _file(check: FileCheck, workspace: Path) -> str | None:
    path = (workspace / check.file).resolve()
    if not path.is_relative_to(workspace.resolve()):
        return f"{check.file} is outside the workspace"
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        return f"{check.file}: {e.strerror or e}"
    if check.equals is not None and text != check.equals and text.rstrip("\n") != check.equals.rstrip("\n"):
        return f"{check.file} reads {text[:80]!r}, expected {check.equals[:80]!r}"
    if check.contains is not None and check.contains not in text:
        return f"{check.file} does not contain {check.contains[:80]!r}"
    if check.regex is not None and not re.search(check.regex, text, re.MULTILINE):
        return f"{check.file} does not match /{check.regex}/"
    return None


def _command(check: CommandCheck, workspace: Path) -> str | None:
    # the workspace holds what the agent wrote: the command runs sandboxed, like the agent's own commands
    from grove.sandbox import Limits, run

    result = run(["sh", "-c", check.command], workspace, Limits(timeout=check.timeout), merge_stderr=True)
    if result.refused:
        return f"`{check.command}` was not run: {result.stderr.strip()[:200]}"
    if result.timed_out:
        return f"`{check.command}` timed out after {check.timeout:g}s"
    if result.exit_code != check.exit:
        tail = result.stdout.strip()[-200:]
        return f"`{check.command}` exited {result.exit_code}, expected {check.exit}: {tail}"
    return None


def _output(check: OutputCheck, answer: str) -> str | None:
    if re.search(check.output_regex, answer, re.MULTILINE):
        return None
    return f"the answer does not match /{check.output_regex}/: {answer[:80]!r}"


def _one(check: Check, workspace: Path, answer: str) -> str | None:
    if isinstance(check, FileCheck):
        return _file(check, workspace)
    if isinstance(check, CommandCheck):
        return _command(check, workspace)
    return _output(check, answer)


def verify(item: Item, status: str, workspace: Path, answer: str, error: str = "") -> Label:
    """The label; its detail quotes what the agent wrote, so it is redacted (it is printed, stored, exported)."""
    from grove.security.secrets.redact import redact

    if status not in ("done", "review"):
        return Label(False, redact(f"the card is {status}: {error or 'no reason given'}")[:400], status)
    failures = [why for check in item.verifier if (why := _one(check, workspace, answer)) is not None]
    return Label(not failures, redact("; ".join(failures))[:400] or "ok", status)
