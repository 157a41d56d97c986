"""Grading skills by what happened after a working session used them: one outcome per skill per turn.

After a turn: every skill the session loaded (skill_view) or ran (skill_run) gets `answered`, `tool_errors` (a tool
call failed after it was loaded, or the run itself failed) or `failed` (nothing delivered). The user's next message
may turn `answered` into `corrected`; a goal's final verdict turns its turns' uses into `done` or `failed`.
"""

from __future__ import annotations

import json
from typing import Any

from grove.learning.triggers import CORRECTION
from grove.skills.outcomes import Outcome, record_outcomes, regrade_last_turn, regrade_since
from grove.store.db import Database

USE_TOOLS = ("skill_view", "skill_run")


def _skill_name(arguments: Any) -> str | None:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    name = arguments.get("name") if isinstance(arguments, dict) else None
    return str(name) if name else None


def turn_outcomes(turn: Any, session_id: str, turn_key: int) -> list[Outcome]:
    """The outcome of each skill used in `turn` (an agent.loop.TurnResult), in the order they were first used."""
    calls = list(getattr(turn, "tool_calls", []) or [])
    first: dict[str, int] = {}
    for i, call in enumerate(calls):
        name = _skill_name(call.arguments) if call.name in USE_TOOLS else None
        if name and name not in first and (call.ok or call.name == "skill_run"):
            first[name] = i
    delivered = bool(getattr(turn, "answer", "")) and not getattr(turn, "interrupted", False)
    out = []
    for name, at in first.items():
        errors = [c.name for c in calls[at:] if not c.ok]
        if errors:
            outcome, detail = (
                "tool_errors",
                f"{len(errors)} failed call(s) after loading it: {', '.join(errors[:3])}",
            )
        elif not delivered or getattr(turn, "budget_exhausted", False):
            outcome, detail = "failed", "the turn delivered no answer" if not delivered else "out of budget"
        else:
            outcome, detail = "answered", ""
        out.append(Outcome(name, session_id, turn_key, outcome, detail))
    return out


def grade_turn(db: Database, session_id: str, turn: Any, turn_key: int) -> list[Outcome]:
    graded = turn_outcomes(turn, session_id, turn_key)
    record_outcomes(db, graded)
    return graded


def note_user_message(db: Database, session_id: str, text: str) -> int:
    """A new user message: when it corrects the agent, the last graded turn's uses become `corrected`."""
    if not CORRECTION.search(text or ""):
        return 0
    return regrade_last_turn(
        db, session_id, "corrected", "the user's next message corrected the agent", ("answered",)
    )


def grade_goal(db: Database, session_id: str, started_after: int, status: str, reason: str) -> int:
    """A goal ended: its turns' uses are `done` when the judge said done, `failed` when blocked or out of turns."""
    if status == "done":
        return regrade_since(db, session_id, started_after, "done", reason or "the judge said done")
    if status in ("blocked", "exhausted"):
        return regrade_since(db, session_id, started_after, "failed", f"goal {status}: {reason}".strip())
    return 0  # paused or still active: not judged yet
