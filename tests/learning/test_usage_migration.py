"""A state.db written before usage had actors: its events get their actor from their session's source, and the
counters are recomputed from working sessions only, so the reviewer's old reads stop counting as uses."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from grove.skills.usage import stats
from grove.store.db import Database
from grove.store.migrations import MIGRATIONS

ACTORS = next(i for i, m in enumerate(MIGRATIONS, 1) if "skill_outcomes" in m)  # the migration adding actors


def test_old_counts_are_recomputed_without_the_reviewers_reads(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    for number, script in enumerate(MIGRATIONS[: ACTORS - 1], 1):
        conn.executescript(f"{script}\nPRAGMA user_version = {number};")
    for sid, source in (("work", "chat"), ("rev", "review")):
        conn.execute(
            "INSERT INTO sessions (id, model, source, created_at, updated_at) VALUES (?, 'm', ?, 1, 1)",
            (sid, source),
        )
    events = [
        ("create", None, 100.0),
        ("view", "work", 200.0),
        ("view", "rev", 900.0),
        ("view", "rev", 901.0),
    ]
    conn.executemany(
        "INSERT INTO skill_events (name, kind, session_id, created_at) VALUES ('deploy', ?, ?, ?)", events
    )
    # what the old code counted: three views, two uses, last used by the reviewer at 901
    conn.execute(
        "INSERT INTO skill_usage (name, views, uses, created_at, last_viewed_at, last_used_at)"
        " VALUES ('deploy', 3, 2, 100, 901, 901)"
    )
    conn.commit()
    conn.close()
    db = Database(path)
    st = stats(db)["deploy"]
    assert (st.views, st.uses, st.last_used_at, st.fresh_at) == (1, 1, 200.0, 200.0)
    with db.lock:
        actors = [r[0] for r in db.conn.execute("SELECT actor FROM skill_events ORDER BY id")]
    assert actors == ["user", "session", "reviewer", "reviewer"]
    db.close()
