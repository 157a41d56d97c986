"""Goal state in state.db: text, criteria, turn budget, turns used, status and every verdict, so goals survive
restarts."""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from grove.errors import GroveError
from grove.store.db import Database

ACTIVE, PAUSED, DONE, BLOCKED, EXHAUSTED = "active", "paused", "done", "blocked", "exhausted"
VERDICTS = ("done", "continue", "blocked")


class GoalNotFound(GroveError, LookupError):
    pass


@dataclass
class Verdict:
    verdict: str  # done | continue | blocked
    reason: str
    turn: int = 0
    raw: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "reason": self.reason, "turn": self.turn}


@dataclass
class Goal:
    id: str
    session_id: str | None
    text: str
    criteria: list[str]
    max_turns: int
    turns_used: int
    status: str
    reason: str | None
    created_at: float
    updated_at: float
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def awaiting_verdict(self) -> bool:
        """A turn ran but was never judged (the process stopped in between): judge it before a new turn."""
        return self.turns_used > len(self.verdicts)

    def as_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "verdicts"}
        data["verdicts"] = [v.as_dict() for v in self.verdicts]
        return data


class GoalStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, text: str, criteria: list[str], max_turns: int, session_id: str | None) -> Goal:
        gid = "g-" + secrets.token_hex(4)
        now = time.time()
        with self.db.transaction() as c:
            c.execute(
                "INSERT INTO goals (id, session_id, text, criteria, max_turns, status, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    gid,
                    session_id,
                    text,
                    json.dumps(criteria, ensure_ascii=False),
                    max_turns,
                    ACTIVE,
                    now,
                    now,
                ),
            )
        return self.get(gid)

    def resolve_id(self, prefix: str) -> str:
        with self.db.lock:
            if prefix == "last":
                rows = self.db.conn.execute(
                    "SELECT id FROM goals ORDER BY updated_at DESC LIMIT 1"
                ).fetchall()
            else:
                rows = self.db.conn.execute(
                    "SELECT id FROM goals WHERE id = ? OR id LIKE ? || '%' LIMIT 2", (prefix, prefix)
                ).fetchall()
        if not rows:
            raise GoalNotFound(f"no goal '{prefix}'; `grove goal status` lists them")
        if len(rows) > 1 and rows[0]["id"] != prefix:
            raise GoalNotFound(f"'{prefix}' matches several goals; give more of the id")
        return str(rows[0]["id"])

    def get(self, goal_id: str) -> Goal:
        gid = self.resolve_id(goal_id)
        with self.db.lock:
            row = self.db.conn.execute("SELECT * FROM goals WHERE id = ?", (gid,)).fetchone()
            verdicts = self.db.conn.execute(
                "SELECT * FROM goal_verdicts WHERE goal_id = ? ORDER BY id", (gid,)
            ).fetchall()
        return Goal(
            id=row["id"],
            session_id=row["session_id"],
            text=row["text"],
            criteria=json.loads(row["criteria"] or "[]"),
            max_turns=row["max_turns"],
            turns_used=row["turns_used"],
            status=row["status"],
            reason=row["reason"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            verdicts=[Verdict(v["verdict"], v["reason"] or "", v["turn"], v["raw"] or "") for v in verdicts],
        )

    def list(self, limit: int = 20, session_id: str | None = None) -> list[Goal]:
        where, args = ("WHERE session_id = ?", (session_id,)) if session_id else ("", ())
        with self.db.lock:
            ids = [
                r["id"]
                for r in self.db.conn.execute(
                    f"SELECT id FROM goals {where} ORDER BY updated_at DESC LIMIT ?", (*args, limit)
                )
            ]
        return [self.get(i) for i in ids]

    def _update(self, goal_id: str, sql: str, args: tuple[Any, ...]) -> Goal:
        with self.db.transaction() as c:
            c.execute(f"UPDATE goals SET {sql}, updated_at = ? WHERE id = ?", (*args, time.time(), goal_id))
        return self.get(goal_id)

    def turn_done(self, goal_id: str) -> Goal:
        return self._update(goal_id, "turns_used = turns_used + 1", ())

    def set_status(self, goal_id: str, status: str, reason: str | None = None) -> Goal:
        return self._update(goal_id, "status = ?, reason = ?", (status, reason))

    def set_session(self, goal_id: str, session_id: str) -> Goal:
        return self._update(goal_id, "session_id = ?", (session_id,))

    def set_max_turns(self, goal_id: str, max_turns: int) -> Goal:
        return self._update(goal_id, "max_turns = ?", (max_turns,))

    def add_verdict(self, goal_id: str, verdict: Verdict) -> Goal:
        with self.db.transaction() as c:
            c.execute(
                "INSERT INTO goal_verdicts (goal_id, turn, verdict, reason, raw, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (goal_id, verdict.turn, verdict.verdict, verdict.reason, verdict.raw, time.time()),
            )
        return self.get(goal_id)
