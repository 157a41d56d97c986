"""Checks of a finished task, with no model: a file equals / contains / matches a text, a command run in the
workspace (sandboxed, no network) exits as expected, the final answer matches a regex. Used by `grove batch`
labels and by the probes a prose skill is held to."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator


class FileCheck(BaseModel):
    """A file in the task's workspace: equal to, containing, or matching (regex) a text."""

    model_config = ConfigDict(extra="forbid")
    file: str
    equals: str | None = None
    contains: str | None = None
    regex: str | None = None

    @model_validator(mode="after")
    def _one(self) -> FileCheck:
        if sum(x is not None for x in (self.equals, self.contains, self.regex)) != 1:
            raise ValueError("a file verifier takes exactly one of equals, contains, regex")
        return self


class CommandCheck(BaseModel):
    """A command run in the task's workspace (sandboxed, no network) must exit with `exit`."""

    model_config = ConfigDict(extra="forbid")
    command: str
    exit: int = 0
    timeout: float = Field(60.0, gt=0, le=3600)


class OutputCheck(BaseModel):
    """The worker's final answer must match a regex (re.search)."""

    model_config = ConfigDict(extra="forbid")
    output_regex: str


Check = FileCheck | CommandCheck | OutputCheck


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

    # unattended: where no isolation exists the command is refused (and the check fails), as for the agent
    result = run(
        ["sh", "-c", check.command],
        workspace,
        Limits(timeout=check.timeout),
        merge_stderr=True,
        unattended=True,
    )
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


def failed_checks(checks: list[Check], workspace: Path, answer: str) -> list[str]:
    """What each failing check says (empty: all passed); redacted, since it quotes what the agent wrote."""
    from grove.security.secrets.redact import redact

    out = []
    for check in checks:
        if isinstance(check, FileCheck):
            why = _file(check, workspace)
        elif isinstance(check, CommandCheck):
            why = _command(check, workspace)
        else:
            why = _output(check, answer)
        if why is not None:
            out.append(redact(why))
    return out
