"""The approval flow for dangerous acts, in order: rules → hard blocklist → mode off → remembered answers →
nobody to ask (deny; unknown acts run only in an isolating sandbox with a workspace checkpoint) → smart judge → ask the user (no answer within
the timeout = deny). Every decision is logged. Types live in approval.base (re-exported here)."""

from __future__ import annotations

import threading

from grove.security.approval.base import (
    ANSWERS,
    ApprovalRequest,
    Approver,
    Decision,
    Judge,
    PolicyView,
)
from grove.security.commands.classify import CommandVerdict, classify_command

__all__ = ["ANSWERS", "ApprovalRequest", "Approver", "Decision", "Judge", "decide", "decide_verdict"]


def decide(
    policy: PolicyView, command: str, *, session_id: str | None = None, workspace: str | None = None
) -> Decision:
    """Classify a shell command and run the approval flow on it (safe and fully resolved: allowed, not logged)."""
    verdict = classify_command(command, workspace)
    if verdict.level == "safe" and not verdict.unknown:
        return Decision(True, "no dangerous pattern", "rules", verdict)
    return decide_verdict(policy, verdict, session_id=session_id)


def decide_verdict(policy: PolicyView, verdict: CommandVerdict, *, session_id: str | None = None) -> Decision:
    """The flow for an act already classified (a command, or a file act with its own findings): blocklist →
    approvals off → remembered answers → nobody to ask → smart judge → the user. The decision is logged.

    Unknown acts (nothing known to be dangerous, but not resolvable statically) are allowed without asking only
    when nobody can be asked AND the sandbox isolates (it confines what they do); with a non-isolating sandbox
    they are denied, and when someone can be asked they are asked like dangerous ones."""
    if verdict.level == "safe" and not verdict.unknown:
        decision = Decision(True, "no dangerous pattern", "rules", verdict)
    else:
        decision = _decide(policy, verdict, session_id)
    if policy.decisions is not None:
        policy.decisions.record(decision, session_id)
    return decision


def _decide(policy: PolicyView, verdict: CommandVerdict, session_id: str | None) -> Decision:
    why = verdict.summary()
    if verdict.level == "blocked":
        return Decision(
            False,
            f"refused: {why}. This is on grove's hard blocklist: it is never allowed, whoever approves.",
            "blocklist",
            verdict,
        )
    if policy.approval_mode == "off":
        return Decision(True, f"approvals are off ({why})", "mode-off", verdict)
    patterns = set(verdict.rules)
    if patterns <= policy.session_approved:
        return Decision(True, "approved earlier in this session", "session", verdict)
    if policy.decisions is not None and patterns <= (policy.decisions.always() | policy.session_approved):
        return Decision(True, "approved always by the user", "always", verdict)
    if policy.unattended or (policy.approver is None and policy.judge is None):
        # what the classifier cannot read runs unattended only where both hold: the sandbox confines what it
        # does outside the workspace, and a checkpoint can undo what it does inside
        isolates = verdict.level == "safe" and policy.sandbox_isolates()
        if isolates and policy.can_undo():
            return Decision(
                True,
                f"not resolvable before it runs ({why}); runs confined by the sandbox, the workspace checkpointed",
                "sandbox",
                verdict,
            )
        if isolates:
            why += " — and no checkpoint of the workspace exists to undo what it changes"
        elif verdict.level == "safe":
            why += " — and the sandbox here does not isolate (rlimit only)"
        return Decision(
            False,
            f"denied: {why}. It needs the user's approval and nobody can be asked here "
            "(unattended run); do it another way or ask the user to run it",
            "unattended",
            verdict,
        )
    request = ApprovalRequest(verdict.command, verdict, session_id, policy.approval_timeout)
    if policy.approval_mode == "smart" and policy.judge is not None:
        try:
            ruling = policy.judge(request).strip().lower()
        except Exception as e:  # a failing judge must not approve anything; the user decides instead
            ruling = f"escalate ({type(e).__name__})"
        if ruling == "approve":
            return Decision(True, f"approved by the smart judge ({why})", "judge", verdict)
        if ruling == "deny":
            return Decision(False, f"denied by the smart judge: {why}", "judge", verdict)
    if policy.approver is None:
        return Decision(
            False, f"denied: {why}. The judge escalated and nobody can be asked", "unattended", verdict
        )
    answer = _ask(policy.approver, request, policy.approval_timeout)
    if answer is None:
        return Decision(
            False,
            f"denied: no answer within {policy.approval_timeout:g}s to approve: {why}",
            "timeout",
            verdict,
        )
    if answer == "session":
        policy.session_approved.update(patterns)
    elif answer == "always":
        policy.session_approved.update(patterns)
        if policy.decisions is not None:
            for p in patterns:
                policy.decisions.remember_always(p, why, session_id)
    if answer == "deny":
        return Decision(
            False, f"the user denied it ({why}); do not retry it, ask what they want instead", "user", verdict
        )
    return Decision(True, f"approved by the user ({answer})", "user", verdict)


NOTICE_GRACE = 2.0  # seconds


def _ask(approver: Approver, request: ApprovalRequest, timeout: float) -> str | None:
    """Ask in a thread so a prompt nobody answers cannot hold the turn past the timeout."""
    box: list[str | None] = []

    def target() -> None:
        try:
            box.append(approver(request))
        except Exception:  # a broken prompt counts as no answer
            box.append(None)

    thread = threading.Thread(target=target, name="grove-approval", daemon=True)
    thread.start()
    thread.join(timeout)
    if not box:
        # no answer in time is a deny, whatever comes later; an approver that keeps its own clock (a chat says "No
        # answer in N s: denied.") gets a moment to say so before the turn moves on and its session may close
        thread.join(NOTICE_GRACE)
        return None
    answer = (box[0] or "").strip().lower()
    return answer if answer in ANSWERS else None


JUDGE_PROMPT = """You review what an AI agent wants to do on the user's machine: a shell command, a file it wants to read or
write outside its workspace, or a tool call that needs approval.
Answer with exactly one word: approve (clearly safe in context and reversible), deny (destructive, exfiltrating,
or not what a user would want), or escalate (unsure: the user decides).
Act: {command}
Flagged because: {reasons}"""


def judge_prompt(request: ApprovalRequest) -> str:
    """The text for smart mode's model call; feed the reply to `parse_judge_reply`."""
    return JUDGE_PROMPT.format(command=request.command, reasons=request.reasons)


def parse_judge_reply(text: str) -> str:
    words = text.strip().lower().split()
    first = words[0].strip(".!:\"'") if words else ""
    return first if first in ("approve", "deny") else "escalate"
