"""state.db `installed_skills`: where each hub-installed skill came from (source, ref, commit, content hash)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from grove.store.db import Database


@dataclass
class Installed:
    name: str
    source: str  # the SOURCE spec, as `install` was given it (local paths made absolute)
    kind: str
    ref: str | None
    commit_id: str | None
    path_in_source: str  # the skill's folder inside the fetched source ('' = its root)
    content_hash: str
    installed_at: float
    updated_at: float
    removed_at: float | None = None


def record(
    db: Database,
    name: str,
    source: str,
    kind: str,
    ref: str | None,
    commit_id: str | None,
    path_in_source: str,
    content_hash: str,
) -> None:
    now = time.time()
    with db.transaction() as c:
        c.execute(
            "INSERT INTO installed_skills (name, source, kind, ref, commit_id, path_in_source, content_hash,"
            " installed_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET"
            " source = excluded.source, kind = excluded.kind, ref = excluded.ref, commit_id = excluded.commit_id,"
            " path_in_source = excluded.path_in_source, content_hash = excluded.content_hash,"
            " installed_at = CASE WHEN installed_skills.removed_at IS NULL THEN installed_skills.installed_at"
            " ELSE excluded.installed_at END, updated_at = excluded.updated_at, removed_at = NULL",
            (name, source, kind, ref or None, commit_id, path_in_source, content_hash, now, now),
        )


def get(db: Database, name: str) -> Installed | None:
    row = db.conn.execute("SELECT * FROM installed_skills WHERE name = ?", (name,)).fetchone()
    return Installed(**dict(row)) if row else None


def active(db: Database) -> list[Installed]:
    rows = db.conn.execute("SELECT * FROM installed_skills WHERE removed_at IS NULL ORDER BY name").fetchall()
    return [Installed(**dict(r)) for r in rows]


def mark_removed(db: Database, name: str) -> None:
    with db.transaction() as c:
        c.execute("UPDATE installed_skills SET removed_at = ? WHERE name = ?", (time.time(), name))
