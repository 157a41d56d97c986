"""The log of learning runs in state.db (`learning_runs`): each review and curator run, what it saw and changed."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from grove.store.db import Database

KINDS = ("skill_review", "memory_review", "curator")


@dataclass
class RunRecord:
    id: int
    kind: str
    session_id: str | None
    reviewer_session_id: str | None
    up_to_message_id: int | None
    status: str
    dry_run: bool
    changes: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    started_at: float = 0.0
    finished_at: float | None = None


def start_run(
    db: Database, kind: str, session_id: str | None = None, up_to: int | None = None, dry_run: bool = False
) -> int:
    if kind not in KINDS:
        raise ValueError(f"unknown learning run kind {kind!r}; one of {', '.join(KINDS)}")
    with db.transaction() as c:
        cur = c.execute(
            "INSERT INTO learning_runs (kind, session_id, up_to_message_id, status, dry_run, started_at)"
            " VALUES (?, ?, ?, 'running', ?, ?)",
            (kind, session_id, up_to, int(dry_run), time.time()),
        )
        return int(cur.lastrowid or 0)


def finish_run(
    db: Database,
    run_id: int,
    status: str,
    changes: list[dict[str, Any]] | None = None,
    error: str | None = None,
    reviewer_session_id: str | None = None,
) -> None:
    with db.transaction() as c:
        c.execute(
            "UPDATE learning_runs SET status = ?, changes = ?, error = ?, reviewer_session_id = ?, finished_at = ?"
            " WHERE id = ?",
            (
                status,
                json.dumps(changes or [], ensure_ascii=False),
                error,
                reviewer_session_id,
                time.time(),
                run_id,
            ),
        )


def _record(row: Any) -> RunRecord:
    return RunRecord(
        id=row["id"],
        kind=row["kind"],
        session_id=row["session_id"],
        reviewer_session_id=row["reviewer_session_id"],
        up_to_message_id=row["up_to_message_id"],
        status=row["status"],
        dry_run=bool(row["dry_run"]),
        changes=json.loads(row["changes"] or "[]"),
        error=row["error"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
    )


def runs(
    db: Database, kind: str | None = None, session_id: str | None = None, limit: int = 50
) -> list[RunRecord]:
    """Most recent first."""
    sql, args = "SELECT * FROM learning_runs WHERE 1=1", []
    if kind:
        sql += " AND kind = ?"
        args.append(kind)
    if session_id:
        sql += " AND session_id = ?"
        args.append(session_id)
    with db.lock:
        rows = db.conn.execute(sql + " ORDER BY id DESC LIMIT ?", (*args, limit)).fetchall()
    return [_record(r) for r in rows]


def last_reviewed_message(db: Database, kind: str, session_id: str) -> int:
    """The last message id a (non-dry) review of this kind already covered in this session; 0 if none."""
    with db.lock:
        row = db.conn.execute(
            "SELECT max(up_to_message_id) FROM learning_runs WHERE kind = ? AND session_id = ? AND dry_run = 0"
            " AND status != 'failed'",
            (kind, session_id),
        ).fetchone()
    return int(row[0] or 0)
