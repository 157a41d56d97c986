"""Skill usage in state.db: every event with its actor and kind, and the counters the curator and grades trust.

Only real use by a working session (actor `session`) counts as a view, a use or a run, and moves the freshness
clock; a reviewer reading a skill, the curator or evolution touching it are recorded, never counted as use.
Creation, a restore and a person's own edit also reset the clock (someone wants the skill now).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from grove.store.db import Database

WRITE_KINDS = {"create", "edit", "patch", "write_file", "remove_file", "rollback"}
USE_KINDS = {"view", "run"}  # a session loading a skill, or running a code skill
# who acted: a working session, the background reviewer, the curator, evolution, the user by hand, an import
ACTORS = ("session", "reviewer", "curator", "evolution", "user", "import", "agent")
SESSION_SOURCES = {
    "review": "reviewer",
    "evolve": "evolution",
    "evolution": "evolution",
    "curator": "curator",
}
OWN_ACTORS = {
    "curator": "curator",
    "user": "user",
    "import": "import",
    "evolve": "evolution",
    "evolution": "evolution",
}


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
    runs: int = 0
    fresh_at: float | None = None  # the curator's clock: last real use, creation, restore or a person's edit
    graded: int = 0  # uses with a recorded outcome
    succeeded: int = 0

    @property
    def success_rate(self) -> float | None:
        return self.succeeded / self.graded if self.graded else None

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "success_rate": self.success_rate}


def event_actor(c: sqlite3.Connection, session_id: str | None, actor: str | None) -> str:
    """Who really acted: a manager's own actor (curator, user, import, evolution) wins; else the session's source
    decides (a 'review' session is the reviewer); a session of any other source is a working session."""
    if actor in OWN_ACTORS:
        return OWN_ACTORS[actor]
    if session_id:
        row = c.execute("SELECT source FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is not None:
            return SESSION_SOURCES.get(str(row[0]), "session")
        return "session"
    return actor or "agent"


def record(
    db: Database | None,
    name: str,
    kind: str,
    session_id: str | None = None,
    detail: str | None = None,
    actor: str | None = None,
) -> str | None:
    """Keep one event and update the counters; returns the event's actor. No database: no-op (None)."""
    if db is None:
        return None
    with db.transaction() as c:
        return _record(c, time.time(), name, kind, session_id, detail, actor)


def record_many(db: Database | None, events: list[tuple[str, str]], kind: str, actor: str) -> None:
    """One kind of event by one actor for many skills, (name, detail) each, in one transaction: an import of
    thousands of skills would otherwise commit thousands of times."""
    if db is None or not events:
        return
    now = time.time()
    with db.transaction() as c:
        for name, detail in events:
            _record(c, now, name, kind, None, detail, actor)


def _record(
    c: sqlite3.Connection,
    now: float,
    name: str,
    kind: str,
    session_id: str | None,
    detail: str | None,
    actor: str | None,
) -> str:
    who = event_actor(c, session_id, actor)
    first_use = (
        kind in USE_KINDS
        and who == "session"
        and (
            session_id is None
            or c.execute(
                "SELECT 1 FROM skill_events WHERE name = ? AND session_id = ? AND kind IN ('view', 'run')"
                " AND actor = 'session' LIMIT 1",
                (name, session_id),
            ).fetchone()
            is None
        )
    )
    c.execute(
        "INSERT INTO skill_events (name, kind, session_id, detail, created_at, actor) VALUES (?, ?, ?, ?, ?, ?)",
        (name, kind, session_id, detail, now, who),
    )
    c.execute("INSERT OR IGNORE INTO skill_usage (name) VALUES (?)", (name,))
    if kind in USE_KINDS and who == "session":
        counter = "views" if kind == "view" else "runs"
        seen = ", last_viewed_at = ?" if kind == "view" else ""
        c.execute(
            f"UPDATE skill_usage SET {counter} = {counter} + 1, uses = uses + ?, last_used_at = ?,"
            f" fresh_at = ?{seen} WHERE name = ?",
            (int(first_use), now, now, *([now] if seen else []), name),
        )
    elif kind == "create":
        c.execute(
            "UPDATE skill_usage SET created_by = ?, created_session = ?, created_at = ?, fresh_at = ?"
            " WHERE name = ?",
            (actor, session_id, now, now, name),
        )
    elif kind == "restore":
        c.execute("UPDATE skill_usage SET fresh_at = ? WHERE name = ?", (now, name))
    elif kind in WRITE_KINDS:
        # a person's edit says they want the skill; a reviewer's or the curator's patch does not
        fresh = ", fresh_at = ?" if who == "user" else ""
        c.execute(
            f"UPDATE skill_usage SET patches = patches + 1, last_patched_at = ?{fresh} WHERE name = ?",
            (now, *([now] if fresh else []), name),
        )
    return who


def events(db: Database | None, name: str) -> list[dict[str, Any]]:
    """Every recorded event of one skill, oldest first."""
    if db is None:
        return []
    with db.lock:
        rows = db.conn.execute(
            "SELECT kind, actor, session_id, detail, created_at FROM skill_events WHERE name = ? ORDER BY id",
            (name,),
        ).fetchall()
    return [dict(r) for r in rows]


def made_by(db: Database | None, actors: frozenset[str]) -> list[str]:
    """Names of the skills whose creation `actors` recorded, newest first."""
    if db is None or not actors:
        return []
    marks = ", ".join("?" for _ in actors)
    with db.lock:
        rows = db.conn.execute(
            f"SELECT name FROM skill_usage WHERE created_by IN ({marks}) ORDER BY created_at DESC, name",
            tuple(sorted(actors)),
        ).fetchall()
    return [str(r[0]) for r in rows]


def stats(db: Database | None, names: list[str] | None = None) -> dict[str, UsageStats]:
    if db is None:
        return {}
    from grove.skills.outcomes import SUCCESS

    marks = ", ".join("?" for _ in SUCCESS)
    with db.lock:
        rows = db.conn.execute("SELECT * FROM skill_usage").fetchall()
        grades = db.conn.execute(
            f"SELECT name, count(*), sum(outcome IN ({marks})) FROM skill_outcomes GROUP BY name",
            tuple(SUCCESS),
        ).fetchall()
    fields = set(UsageStats.__dataclass_fields__)
    out = {r["name"]: UsageStats(**{k: r[k] for k in r.keys() if k in fields}) for r in rows}  # noqa: SIM118
    for name, graded, succeeded in grades:
        st = out.setdefault(name, UsageStats(name))
        st.graded, st.succeeded = int(graded), int(succeeded or 0)
    return {k: v for k, v in out.items() if k in names} if names is not None else out
