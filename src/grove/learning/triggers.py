"""When to review: counters computed from the stored session, so they survive restarts and `--resume`.

Skill review: the turn or the session since the last skill write (or the last review) reached N model calls, or
the turn showed a pattern worth keeping (many tool calls, recovery from an error, a correction by the user).
Memory review: every N user turns since the last memory write or memory review. Each counter resets when the
agent itself wrote to what that counter guards (a skill, or memory).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from grove.config.learning import LearningConfig
from grove.lazy_regex import later
from grove.llm.types import Message

SKILL_WRITE_TOOLS = {"skill_manage"}
MEMORY_WRITE_TOOLS = {"memory"}
CORRECTION = later(
    r"^\s*(no\b|nope\b|wrong\b|that'?s (not|wrong)|not what i|actually\b|instead\b|you (forgot|missed|broke)|"
    r"don'?t\b|do not\b|stop\b|undo\b|why did you)|\b(that is|that's|this is) (wrong|incorrect|not right)\b",
    re.IGNORECASE,
)


@dataclass
class Window:
    """What happened in a session after a given message: the raw material of the counters."""

    model_calls: int = 0
    tool_calls: int = 0
    user_turns: int = 0
    last_skill_write: int = 0  # message ids; 0 = never
    last_memory_write: int = 0


@dataclass
class Decision:
    skill_review: bool = False
    memory_review: bool = False
    reasons: list[str] = field(default_factory=list)
    up_to: int = 0  # the last message id the review will see


def _calls(message: Message) -> list[tuple[str, str]]:
    return [(c.get("id", ""), c["function"]["name"]) for c in message.get("tool_calls") or []]


def write_marks(messages: list[tuple[int, Message]]) -> tuple[int, int]:
    """Message ids of the last successful skill write and memory write in the session (0 when none)."""
    names: dict[str, str] = {}
    skill = memory = 0
    for mid, m in messages:
        for call_id, name in _calls(m):
            names[call_id] = name
        if m["role"] == "tool" and not str(m.get("content") or "").startswith("Error"):
            name = names.get(m.get("tool_call_id", ""), m.get("name", ""))
            if name in SKILL_WRITE_TOOLS:
                skill = mid
            elif name in MEMORY_WRITE_TOOLS:
                memory = mid
    return skill, memory


def count_after(messages: list[tuple[int, Message]], after: int) -> Window:
    w = Window()
    for mid, m in messages:
        if mid <= after:
            continue
        if m["role"] == "assistant":
            w.model_calls += 1
            w.tool_calls += len(m.get("tool_calls") or [])
        elif m["role"] == "user" and not str(m.get("content") or "").startswith("[grove]"):
            w.user_turns += 1
    return w


def turn_patterns(turn: Any, last_user_text: str, answered_before: bool, config: LearningConfig) -> list[str]:
    """Why this one turn is worth a review (empty when it is not). `turn` is an agent.loop.TurnResult."""
    reasons = []
    if turn.model_calls >= config.review_model_calls:
        reasons.append(f"the turn took {turn.model_calls} model calls")
    if len(turn.tool_calls) >= config.review_tool_calls:
        reasons.append(f"the turn made {len(turn.tool_calls)} tool calls")
    oks = [c.ok for c in turn.tool_calls]
    if False in oks and True in oks[oks.index(False) + 1 :]:
        reasons.append("the turn recovered from a failed tool call")
    if answered_before and CORRECTION.search(last_user_text or ""):
        reasons.append("the user corrected the agent")
    return reasons


def decide(
    messages: list[tuple[int, Message]],
    turn: Any,
    config: LearningConfig,
    reviewed_skill_upto: int = 0,
    reviewed_memory_upto: int = 0,
) -> Decision:
    """Whether to run a skill review and/or a memory review after `turn`, given the session's stored messages."""
    decision = Decision(up_to=messages[-1][0] if messages else 0)
    if turn is not None and (getattr(turn, "interrupted", False) or not getattr(turn, "answer", "")):
        return decision  # nothing was delivered: nothing to learn from yet
    skill_mark, memory_mark = write_marks(messages)
    since_skill = count_after(messages, max(skill_mark, reviewed_skill_upto))
    wrote_skill_this_turn = turn is not None and any(
        c.name in SKILL_WRITE_TOOLS and c.ok for c in getattr(turn, "tool_calls", [])
    )
    if not wrote_skill_this_turn:
        if since_skill.model_calls >= config.review_model_calls:
            decision.reasons.append(
                f"{since_skill.model_calls} model calls since the last skill write or review"
            )
        if turn is not None and since_skill.model_calls:
            user_at = [i for i, (_, m) in enumerate(messages) if m["role"] == "user"]
            last_user = str(messages[user_at[-1]][1].get("content") or "") if user_at else ""
            answered_before = bool(user_at) and any(
                m["role"] == "assistant" for _, m in messages[: user_at[-1]]
            )
            decision.reasons += turn_patterns(turn, last_user, answered_before, config)
        decision.skill_review = bool(decision.reasons)
    since_memory = count_after(messages, max(memory_mark, reviewed_memory_upto))
    if since_memory.user_turns >= config.memory_review_turns:
        decision.memory_review = True
        decision.reasons.append(f"{since_memory.user_turns} user turns since the last memory write or review")
    return decision
