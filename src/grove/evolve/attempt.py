"""What a grader sees and says: an attempt (the final answer, the workspace left behind, the tool calls made) and
a grade (0..1 with the reason, for reflection)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Grade:
    score: float
    feedback: str


@dataclass(frozen=True)
class Attempt:
    answer: str
    workspace: Path | None = None
    tool_calls: tuple[str, ...] = field(default_factory=tuple)


Grader = Callable[[Any, Any], Grade]  # (Attempt or answer text, expected) -> Grade


def as_attempt(value: Any) -> Attempt:
    return value if isinstance(value, Attempt) else Attempt(str(value))
