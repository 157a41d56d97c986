"""Skill usage in state.db: views, uses (sessions that loaded a skill), patches, creation, last use."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from grove.store.db import Database

WRITE_KINDS = {"create", "edit", "patch", "write_file", "remove_file", "rollback"}


@dataclass
class UsageStats:
    name: str
    views: int = 0
    uses: int = 0
    patches: int = 0
    created_by: str | None = None
    created_session: str | None = None
    created_at: float | None = None
    last_viewed_at: float | None = None
    last_used_at: float | None = None
    last_patched_at: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def record(
    db: Database | None,
    name: str,
    kind: str,
    session_id: str | None = None,
    detail: str | None = None,
    actor: str | None = None,
) -> None:
    """Count one event. A view is also a use the first time a session loads the skill. No database: no-op."""
    if db is None:
        return
    now = time.time()
    with db.transaction() as c:
        first_in_session = session_id is None or (
            c.execute(
                "SELECT 1 FROM skill_events WHERE name = ? AND session_id = ? AND kind = 'view' LIMIT 1",
                (name, session_id),
            ).fetchone()
            is None
        )
        c.execute(
            "INSERT INTO skill_events (name, kind, session_id, detail, created_at) VALUES (?, ?, ?, ?, ?)",
            (name, kind, session_id, detail, now),
        )
        c.execute("INSERT OR IGNORE INTO skill_usage (name) VALUES (?)", (name,))
        if kind == "view":
            c.execute(
                "UPDATE skill_usage SET views = views + 1, last_viewed_at = ?,"
                " uses = uses + ?, last_used_at = CASE WHEN ? THEN ? ELSE last_used_at END WHERE name = ?",
                (now, int(first_in_session), int(first_in_session), now, name),
            )
        elif kind == "create":
            c.execute(
                "UPDATE skill_usage SET created_by = ?, created_session = ?, created_at = ? WHERE name = ?",
                (actor, session_id, now, name),
            )
        elif kind in WRITE_KINDS:
            c.execute(
                "UPDATE skill_usage SET patches = patches + 1, last_patched_at = ? WHERE name = ?",
                (now, name),
            )


def stats(db: Database | None, names: list[str] | None = None) -> dict[str, UsageStats]:
    if db is None:
        return {}
    with db.lock:
        rows = db.conn.execute("SELECT * FROM skill_usage").fetchall()
    out = {r["name"]: UsageStats(**{k: r[k] for k in r.keys()}) for r in rows}  # noqa: SIM118 (Row iterates values)
    return {k: v for k, v in out.items() if k in names} if names is not None else out
