"""Whether an MCP server may act on the session's authority (run its tool, use the session's model): per the
server's trust and the session's policy, through the one approval flow."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from grove.config.mcp import McpServerConfig
from grove.security.commands.base import CommandVerdict, Finding
from grove.tools.context import ToolContext

SEP = "__"  # a server's tool as grove names it: <server>__<tool>


def approve_act(ctx: ToolContext, server: McpServerConfig, act: str, rule: str, why: str) -> str | None:
    """None when the server's trust and the session's policy let `act` happen, else the refusal.
    trusted: allowed. ask: the policy decides (remembered answers, judge, user; unattended = denied).
    untrusted: the policy decides with no remembered answer honoured or kept: every act is asked."""
    if server.trust == "trusted":
        return None
    from grove.security.approval.flow import decide_verdict

    verdict = CommandVerdict(act, [Finding(rule, why)])
    policy = ctx.policy
    if server.trust == "untrusted":
        policy = dataclasses.replace(policy, session_approved=set(), decisions=None)
    decision = decide_verdict(policy, verdict, session_id=ctx.session_id)
    if policy is not ctx.policy and ctx.policy.decisions is not None:
        ctx.policy.decisions.record(decision, ctx.session_id)  # logged, never remembered
    return None if decision.allowed else decision.reason


def approve_mcp(ctx: ToolContext, server: McpServerConfig, tool: str, args: dict[str, Any]) -> str | None:
    """A call of the server's tool `tool` with `args`."""
    shown = json.dumps(args, ensure_ascii=False, sort_keys=True)
    return approve_act(
        ctx,
        server,
        f"{server.name}{SEP}{tool} {shown if len(shown) <= 300 else shown[:300] + '…'}",
        f"mcp:{server.name}{SEP}{tool}",
        f"the MCP server '{server.name}' ({server.trust}) runs its tool '{tool}' on its own authority",
    )
