"""The `terminal` toolset: a shell command, approved by the session's policy, run in the sandbox, output redacted."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grove.backends.base import Backend, BackendError
from grove.tools.context import ToolContext, backend_of
from grove.tools.registry import Tool, ToolError, make_tool

if TYPE_CHECKING:
    from grove.security.approval.policy import SafetyPolicy
    from grove.security.commands.base import Finding

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
    from grove.security.injection.scan import screen
    from grove.security.secrets.redact import redact

    try:
        backend = backend_of(ctx)
        result = backend.run(command, timeout=max(1, min(timeout, MAX_TIMEOUT)))
    except BackendError as e:
        raise ToolError(str(e)) from None
    named = (
        _named_secrets(ctx.workspace, command)
        if backend.kind == "local"
        else _remote_secrets(backend, command)
    )
    text = _mask_learned(redact(result.stdout), named)
    if len(text) > MAX_OUTPUT_CHARS:
        half = MAX_OUTPUT_CHARS // 2
        text = f"{text[:half]}\n[... {len(text) - MAX_OUTPUT_CHARS} chars cut ...]\n{text[-half:]}"
    notes = "".join(f"\n[{n}]" for n in result.notes)
    # terminal output is untrusted: planted instructions come back quoted as data, as read_file does
    return f"exit={result.exit_code}{notes}\n{screen(text, source=f'terminal output of {command[:80]!r}')}"


LEARN_MAX_FILES = 16
LEARN_MAX_BYTES = 4 * 1024 * 1024  # total read from the named files to learn their secret values
_PIECE = re.compile(r"[^\s\"'`,;:=()\[\]{}<>|&]{8,}")


def _named_secrets(workspace: Path, command: str) -> list[str]:
    """The secret values in the workspace files the command's words name (bounded): output that prints them
    bare (grep -o, cut -c, awk substr) has lost the name redact would recognise them by."""
    from grove.security.secrets.redact import secret_values

    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    root = workspace.resolve()
    values: set[str] = set()
    budget, files = LEARN_MAX_BYTES, 0
    for word in dict.fromkeys(p for w in words for p in (w, w.partition("=")[2]) if p):
        if files >= LEARN_MAX_FILES or budget <= 0:
            break
        try:
            path = (root / word).resolve()
            if not path.is_relative_to(root) or not path.is_file():
                continue
            size = path.stat().st_size
            if size > budget:
                continue
            data = path.read_bytes()
        except (OSError, ValueError):
            continue
        files += 1
        budget -= size
        values.update(secret_values(data.decode("utf-8", errors="replace")))
    return sorted(values, key=len, reverse=True)


def _remote_secrets(backend: Backend, command: str) -> list[str]:
    """As _named_secrets, for the files a command names in a remote workspace (read over the backend)."""
    from grove.security.files.confine import Refused
    from grove.security.secrets.redact import secret_values

    values: set[str] = set()
    budget, files = LEARN_MAX_BYTES, 0
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    try:
        with backend.files() as fs:
            for word in dict.fromkeys(p for w in words for p in (w, w.partition("=")[2]) if p):
                if files >= LEARN_MAX_FILES or budget <= 0:
                    break
                try:
                    spot = fs.locate(word, write=False)
                except (Refused, OSError):
                    continue
                try:
                    if not spot.exists or not spot.name or getattr(spot, "size", 0) > budget:
                        continue
                    data = fs.read(spot, word)
                except (Refused, OSError):
                    continue
                finally:
                    spot.close()
                files += 1
                budget -= len(data)
                values.update(secret_values(data.decode("utf-8", errors="replace")))
    except BackendError:
        return []
    return sorted(values, key=len, reverse=True)


def _mask_learned(text: str, values: list[str]) -> str:
    """`text` with those values masked, and any run of 8+ characters cut out of one (cut -c, substr)."""
    from grove.security.secrets.redact import mask

    if not values:
        return text
    for value in values:
        text = text.replace(value, mask(value))
    return _PIECE.sub(lambda m: "***" if any(m.group() in v for v in values) else m.group(), text)


def approve_command(ctx: ToolContext, _name: str, args: dict[str, Any]) -> str | None:
    """The terminal's approval check, run by the registry before the command: the session must allow the
    terminal at all, and the command itself must pass the policy (rules, remembered answers, judge, user)."""
    refusal = ctx.policy.check_terminal()
    if refusal:
        return refusal
    command = str(args.get("command") or "")
    if not command.strip():
        return None  # the handler says what is wrong
    policy, where = _judged_where(ctx)
    egress = _egress(ctx, command)
    if egress is None:
        decision = policy.check_command(command, session_id=ctx.session_id, workspace=where)
    else:  # one question naming both what the classifier found and the untrusted source in context
        from grove.security.approval.flow import decide_verdict
        from grove.security.commands.classify import classify_command

        verdict = classify_command(command, where)
        verdict.findings.append(egress)
        decision = decide_verdict(policy, verdict, session_id=ctx.session_id)
    return None if decision.allowed else decision.reason


def _judged_where(ctx: ToolContext) -> tuple[SafetyPolicy, str]:
    """The policy a command is judged by and the workspace its paths are read against, where it runs. On an SSH
    host the workspace is the remote one (a path inside the local folder means nothing there), and what isolates
    there is the host's bubblewrap, not this machine's sandbox: what cannot be resolved runs unattended only
    inside it, with the remote workspace checkpointed (the session's checkpoints are of the backend's tree)."""
    try:
        backend = backend_of(ctx)
    except BackendError:
        return ctx.policy, str(ctx.workspace)  # the handler reports the bad backend
    if backend.kind != "ssh":
        return ctx.policy, str(ctx.workspace)
    from dataclasses import replace

    try:
        with backend.files():  # connects, so the remote workspace's real path is known
            pass
        where = backend.root
    except (BackendError, OSError):
        where = "/nonexistent/remote-workspace"  # unknown: then no path counts as inside it
    isolated = "bwrap" if getattr(backend, "sandboxed", False) else "rlimit"
    return replace(ctx.policy, sandbox=isolated), where  # shares the session's approvals and decision log


def _egress(ctx: ToolContext, command: str) -> Finding | None:
    """With untrusted content in context, a command that can reach the network needs approval of its own."""
    from grove.security.approval.taint import egress_finding, reaches_network

    policy = ctx.policy
    if not policy.taint or not (policy.network or reaches_network(command)):
        return None
    why = "the sandbox lets commands reach the network" if policy.network else "it reaches the network"
    return egress_finding(policy.taint, why)


def tools() -> list[Tool]:
    return [
        make_tool(
            terminal,
            toolset="terminal",
            mutating=True,
            needs_approval=True,
            subagent_ok=False,
            approve=approve_command,
            untrusted_output=True,
        )
    ]
