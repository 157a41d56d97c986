"""Verdicts kept with their session in state.db (migration 14), one row per claim, next to the answer's message."""

from __future__ import annotations

import time
from typing import Any

from grove.claims.types import Verdict


def save_verdicts(db: Any, session_id: str, message_id: int | None, verdicts: list[Verdict]) -> None:
    """Store a turn's verdicts in one transaction (grove.store.db.Database)."""
    if not verdicts:
        return
    now = time.time()
    rows = [
        (session_id, message_id, v.claim.text, v.claim.kind, v.claim.target, v.label, v.reason, now)
        for v in verdicts
    ]
    with db.transaction() as conn:
        conn.executemany(
            "INSERT INTO claim_verdicts (session_id, message_id, claim, kind, target, verdict, reason, created_at)"
            " VALUES (?,?,?,?,?,?,?,?)",
            rows,
        )


def session_verdicts(db: Any, session_id: str) -> list[dict[str, Any]]:
    """A session's verdicts in turn order: message_id, claim, kind, target, verdict, reason."""
    with db.lock:
        rows = db.conn.execute(
            "SELECT message_id, claim, kind, target, verdict, reason FROM claim_verdicts WHERE session_id = ? "
            "ORDER BY id",
            (session_id,),
        ).fetchall()
    keys = ("message_id", "claim", "kind", "target", "verdict", "reason")
    return [dict(zip(keys, tuple(r), strict=True)) for r in rows]
