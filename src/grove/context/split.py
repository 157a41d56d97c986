"""Phase 2: a protected head and a token-sized protected tail; the middle between them gets summarised.

A boundary never separates an assistant message that calls tools from the results of those calls.
"""

from __future__ import annotations

from dataclasses import dataclass

from grove.context.tokens import message_tokens
from grove.llm.types import Message


@dataclass
class Split:
    head_end: int  # messages[:head_end] are the head
    tail_start: int  # messages[tail_start:] are the tail; the middle is between

    @property
    def middle(self) -> range:
        return range(self.head_end, self.tail_start)


def _pair_start(messages: list[Message], i: int) -> int:
    """Move an index back so it does not land on a tool result (it would lose its calling message)."""
    while 0 < i < len(messages) and messages[i].get("role") == "tool":
        i -= 1
    return i


def _pair_end(messages: list[Message], i: int) -> int:
    """Move an index forward past tool results, so a call and its results stay on one side."""
    while i < len(messages) and messages[i].get("role") == "tool":
        i += 1
    return i


def split_conversation(messages: list[Message], head_messages: int, tail_tokens: int) -> Split:
    """`messages` excludes the system prompt. The tail holds at least the last message, however large."""
    head_end = _pair_end(messages, min(head_messages, len(messages)))
    used = 0
    tail_start = len(messages)
    while tail_start > head_end:
        cost = message_tokens(messages[tail_start - 1])
        if used + cost > tail_tokens and tail_start < len(messages):
            break
        used += cost
        tail_start -= 1
    tail_start = max(head_end, _pair_start(messages, tail_start))
    return Split(head_end, tail_start)
