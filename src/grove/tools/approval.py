"""The registry's approval gate for tools flagged `needs_approval`: the whole call is the act to approve, through
the session's policy (rules, remembered answers, judge, user; unattended = denied)."""

from __future__ import annotations

import json
from typing import Any

from grove.security.commands.base import CommandVerdict, Finding
from grove.tools.context import ToolContext


def approve_call(ctx: ToolContext, name: str, args: dict[str, Any]) -> str | None:
    """None when the policy lets this call run, else the refusal the model sees."""
    from grove.security.approval.flow import decide_verdict

    shown = json.dumps(args, ensure_ascii=False, sort_keys=True)
    act = f"{name} {shown if len(shown) <= 300 else shown[:300] + '…'}"
    verdict = CommandVerdict(act, [Finding(f"tool:{name}", f"the tool {name} acts on its own authority")])
    decision = decide_verdict(ctx.policy, verdict, session_id=ctx.session_id)
    return None if decision.allowed else decision.reason
