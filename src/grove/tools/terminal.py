"""The `terminal` toolset: a shell command, approved by the session's policy, run in the sandbox, output redacted."""

from __future__ import annotations

from typing import Any

from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool

MAX_OUTPUT_CHARS = 20_000
MAX_TIMEOUT = 600


def terminal(ctx: ToolContext, command: str, timeout: int = 60) -> str:
    """Run a shell command (bash) in the workspace and return its exit code and output (truncated when long).
    Commands run sandboxed: only the workspace is writable, no network unless the session allows it.

    Args:
        command: the shell command line
        timeout: seconds before the command is killed (max 600)
    """
    if not command.strip():
        raise ToolError("the command is empty; pass a shell command line such as `ls -la`")
    from grove.sandbox import Limits, run
    from grove.security.protected import existing_protected
    from grove.security.redact import redact

    policy = ctx.policy
    result = run(
        ["/bin/bash", "-c", command],
        ctx.workspace,
        Limits(timeout=max(1, min(timeout, MAX_TIMEOUT))),
        network=policy.network,
        merge_stderr=True,
        backend=None if policy.sandbox == "auto" else policy.sandbox,
        unattended=policy.unattended,
        allow_unisolated=policy.allow_unisolated,
        protect_home=ctx.settings.home if ctx.settings else None,
        read_only=existing_protected(ctx.workspace),
    )
    text = redact(result.stdout)
    if len(text) > MAX_OUTPUT_CHARS:
        half = MAX_OUTPUT_CHARS // 2
        text = f"{text[:half]}\n[... {len(text) - MAX_OUTPUT_CHARS} chars cut ...]\n{text[-half:]}"
    notes = "".join(f"\n[{n}]" for n in result.notes)
    return f"exit={result.exit_code}{notes}\n{text}"


def approve_command(ctx: ToolContext, _name: str, args: dict[str, Any]) -> str | None:
    """The terminal's approval check, run by the registry before the command: the session must allow the
    terminal at all, and the command itself must pass the policy (rules, remembered answers, judge, user)."""
    refusal = ctx.policy.check_terminal()
    if refusal:
        return refusal
    command = str(args.get("command") or "")
    if not command.strip():
        return None  # the handler says what is wrong
    decision = ctx.policy.check_command(command, session_id=ctx.session_id, workspace=str(ctx.workspace))
    return None if decision.allowed else decision.reason


def tools() -> list[Tool]:
    return [
        make_tool(
            terminal,
            toolset="terminal",
            mutating=True,
            needs_approval=True,
            subagent_ok=False,
            approve=approve_command,
        )
    ]
