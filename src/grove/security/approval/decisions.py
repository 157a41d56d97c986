"""Where approval decisions go: the `approval_log` table of state.db, and the patterns approved "always"."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grove.security.approval.base import Decision
    from grove.store.db import Database


class DecisionStore:
    """Backed by state.db when given a Database; in memory otherwise (tests, throwaway sessions)."""

    def __init__(self, db: Database | None = None) -> None:
        self.db = db
        self._always: dict[str, str] = {}
        self._log: list[tuple[str | None, str, str, str, str, str, str]] = []

    def record(self, decision: Decision, session_id: str | None) -> None:
        from grove.security.secrets.redact import redact

        row = (
            session_id,
            redact(decision.verdict.command),
            "unknown"
            if decision.verdict.level == "safe" and decision.verdict.unknown
            else decision.verdict.level,
            ",".join(decision.verdict.rules),
            "allow" if decision.allowed else "deny",
            decision.decided_by,
            redact(decision.reason),
        )
        if self.db is None:
            self._log.append(row)
            return
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO approval_log (session_id, command, level, rules, decision, decided_by, reason, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (*row, time.time()),
            )

    def log(self, session_id: str | None = None) -> list[dict[str, str | None]]:
        keys = ("session_id", "command", "level", "rules", "decision", "decided_by", "reason")
        if self.db is None:
            rows = [r for r in self._log if session_id is None or r[0] == session_id]
            return [dict(zip(keys, r, strict=True)) for r in rows]
        sql = f"SELECT {', '.join(keys)} FROM approval_log"
        args: tuple[str, ...] = ()
        if session_id is not None:
            sql, args = sql + " WHERE session_id = ?", (session_id,)
        with self.db.lock:
            return [dict(r) for r in self.db.conn.execute(sql + " ORDER BY id", args)]

    def always(self) -> set[str]:
        if self.db is None:
            return set(self._always)
        with self.db.lock:
            return {r[0] for r in self.db.conn.execute("SELECT pattern FROM approval_always")}

    def remember_always(self, pattern: str, description: str, session_id: str | None) -> None:
        if self.db is None:
            self._always[pattern] = description
            return
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO approval_always (pattern, description, session_id, created_at) "
                "VALUES (?, ?, ?, ?)",
                (pattern, description, session_id, time.time()),
            )

    def forget_always(self, pattern: str) -> bool:
        if self.db is None:
            return self._always.pop(pattern, None) is not None
        with self.db.transaction() as conn:
            return conn.execute("DELETE FROM approval_always WHERE pattern = ?", (pattern,)).rowcount > 0
