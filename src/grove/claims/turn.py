"""Checking a turn: every claim of its answer against its tool record, and the one line that marks for the user
what the record contradicts or cannot show."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from grove.claims.check import check
from grove.claims.consequence import joined
from grove.claims.extract import extract
from grove.claims.record import TurnRecord
from grove.claims.relevance import applies
from grove.claims.types import Verdict

SYMBOL = {"supported": "✓", "contradicted": "✗", "unverifiable": "?"}


def check_answer(answer: str, calls: Iterable[Any]) -> list[Verdict]:
    """The verdict on each claim the answer makes, from `calls` (the turn's ToolCallRecords or dicts)."""
    if not answer.strip():
        return []
    record = TurnRecord.from_calls(calls)
    return joined(answer, [check(claim, record) for claim in extract(answer) if applies(claim, record)])


def marks(verdicts: list[Verdict]) -> str:
    """One line naming each claim the record contradicts (✗) or cannot show (?); empty when there is none."""
    flagged = [v for v in verdicts if v.marked]
    if not flagged:
        return ""
    parts = [f'{SYMBOL[v.label]} {v.label}: "{_quote(v.claim.text)}" ({v.reason})' for v in flagged]
    return "claims checked against this turn's tool calls: " + "; ".join(parts)


def with_marks(answer: str, verdicts: list[Verdict]) -> str:
    """The answer followed by its marks line, for an entrance that can show the user only the message itself
    (a chat platform): the marks never go unseen."""
    line = marks(verdicts)
    return f"{answer}\n\n⚠ {line}" if line else answer


def _quote(text: str, limit: int = 80) -> str:
    text = " ".join(text.split()).rstrip(".,;:")
    return text if len(text) <= limit else text[: limit - 1] + "…"
