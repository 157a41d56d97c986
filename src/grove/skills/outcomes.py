"""Skill grades in state.db: one outcome per use of a skill by a working session (per turn), and its updates.

Outcomes: `answered` (the turn delivered an answer, no tool error after the skill was loaded), `done` (a goal's
judge said done), `failed` (no answer, out of budget, or a goal blocked/exhausted), `corrected` (the user's next
message corrected the agent), `tool_errors` (a tool call failed after the skill was loaded).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from grove.store.db import Database

SUCCESS = ("answered", "done")
OUTCOMES = ("answered", "done", "failed", "corrected", "tool_errors")


@dataclass
class Outcome:
    name: str
    session_id: str
    turn_key: int  # the last message id of the turn the skill was used in
    outcome: str
    detail: str = ""


def record_outcomes(db: Database, outcomes: list[Outcome]) -> None:
    """One row per (skill, session, turn); a later grade of the same turn replaces the earlier one."""
    if not outcomes:
        return
    now = time.time()
    with db.transaction() as c:
        for o in outcomes:
            c.execute(
                "INSERT INTO skill_outcomes (name, session_id, turn_key, outcome, detail, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(name, session_id, turn_key)"
                " DO UPDATE SET outcome = excluded.outcome, detail = excluded.detail",
                (o.name, o.session_id, o.turn_key, o.outcome, o.detail, now),
            )


def regrade_last_turn(db: Database, session_id: str, outcome: str, detail: str, only: tuple[str, ...]) -> int:
    """Change the outcome of the session's latest graded turn (e.g. the user corrected it); returns rows changed."""
    marks = ", ".join("?" for _ in only)
    with db.transaction() as c:
        cur = c.execute(
            f"UPDATE skill_outcomes SET outcome = ?, detail = ? WHERE session_id = ? AND outcome IN ({marks})"
            " AND turn_key = (SELECT max(turn_key) FROM skill_outcomes WHERE session_id = ?)",
            (outcome, detail, session_id, *only, session_id),
        )
        return cur.rowcount


def regrade_since(db: Database, session_id: str, after_key: int, outcome: str, detail: str) -> int:
    """Grade every use in the session after message `after_key` (a goal's turns, once the judge has ruled)."""
    with db.transaction() as c:
        cur = c.execute(
            "UPDATE skill_outcomes SET outcome = ?, detail = ? WHERE session_id = ? AND turn_key > ?"
            " AND outcome != 'corrected'",
            (outcome, detail, session_id, after_key),
        )
        return cur.rowcount


def outcomes_of(db: Database, name: str) -> list[Outcome]:
    with db.lock:
        rows = db.conn.execute(
            "SELECT name, session_id, turn_key, outcome, detail FROM skill_outcomes WHERE name = ? ORDER BY id",
            (name,),
        ).fetchall()
    return [Outcome(*r) for r in rows]
