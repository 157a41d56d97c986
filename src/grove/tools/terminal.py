"""The `terminal` toolset: run a shell command in the workspace, only where the session's policy allows it."""

from __future__ import annotations

import os
import signal
import subprocess

from grove.tools.context import ToolContext
from grove.tools.registry import Tool, ToolError, make_tool

MAX_OUTPUT_CHARS = 20_000
# Provider keys never reach child processes.
SECRET_ENV = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GROVE_API_KEY")


def terminal(ctx: ToolContext, command: str, timeout: int = 60) -> str:
    """Run a shell command in the workspace and return its exit code and output (truncated when long).

    Args:
        command: the shell command line
        timeout: seconds before the command is killed (max 600)
    """
    refusal = ctx.policy.check_terminal()
    if refusal:
        raise ToolError(refusal)
    env = {k: v for k, v in os.environ.items() if k not in SECRET_ENV and not k.endswith("_API_KEY")}
    proc = subprocess.Popen(
        ["/bin/sh", "-c", command],
        cwd=ctx.workspace,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=max(1, min(timeout, 600)))
        note = ""
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        try:
            out, _ = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # a child that escaped the group still holds the pipe
            out = b""
        note = f"\n[killed after {timeout}s]"
    text = out.decode("utf-8", errors="replace")
    if len(text) > MAX_OUTPUT_CHARS:
        half = MAX_OUTPUT_CHARS // 2
        text = f"{text[:half]}\n[... {len(text) - MAX_OUTPUT_CHARS} chars cut ...]\n{text[-half:]}"
    return f"exit={proc.returncode}{note}\n{text}"


def tools() -> list[Tool]:
    return [make_tool(terminal, toolset="terminal", mutating=True, needs_approval=True, subagent_ok=False)]
