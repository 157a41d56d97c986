"""What counts as a failed approach in a turn, for the failure memory: a tool call that failed and was then done
another way that worked (the same tool succeeding later in the turn, the answer delivered), and a user's message
that corrects the previous answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from grove.learning.failure_notes import FailureNote, record
from grove.learning.triggers import CORRECTION


def call_text(name: str, arguments: Any) -> str:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return f"{name}({arguments})"
    if isinstance(arguments, dict):
        return (
            f"{name}({', '.join(f'{k}={json.dumps(v, ensure_ascii=False)}' for k, v in arguments.items())})"
        )
    return f"{name}({arguments!r})"


def from_turn(home: Path, task: str, turn: Any, session_id: str = "") -> list[FailureNote]:
    """Notes for the tool errors of `turn` (an agent.loop.TurnResult) that a later call of the same tool got
    past; a turn that delivered nothing taught no workaround."""
    if not getattr(turn, "answer", "") or getattr(turn, "interrupted", False):
        return []
    calls = list(getattr(turn, "tool_calls", []) or [])
    notes = []
    for i, call in enumerate(calls):
        if call.ok:
            continue
        fix = next((c for c in calls[i + 1 :] if c.name == call.name and c.ok), None)
        if fix is None:
            continue
        note = record(
            home,
            "tool_error",
            task,
            call_text(call.name, call.arguments),
            getattr(call, "content", "") or "the call failed",
            call_text(fix.name, fix.arguments),
            session_id,
        )
        if note is not None:
            notes.append(note)
    return notes


def from_correction(
    home: Path, previous_task: str, previous_answer: str, message: str, session_id: str = ""
) -> FailureNote | None:
    """The user's `message` corrects the answer to `previous_task`: the answer was the failed approach."""
    if not previous_task or not previous_answer or not CORRECTION.search(message or ""):
        return None
    return record(
        home, "correction", previous_task, previous_answer, f"the user said: {message}", "", session_id
    )
