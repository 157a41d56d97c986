"""The board's own numbered migrations, one list for both backends (a few words differ per dialect). Append only:
a released migration never changes. The applied number lives in kanban_meta."""

from __future__ import annotations

# {pk}: an auto-numbered key; {real}: a float; events are append-only (triggers refuse UPDATE and DELETE)
MIGRATIONS: list[str] = [
    # 1: tasks, dependencies, runs, comments, events
    """
    CREATE TABLE kanban_tasks (
        id {pk},
        title TEXT NOT NULL,
        body TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL,
        assignee TEXT,
        priority INTEGER NOT NULL DEFAULT 0,
        skills TEXT NOT NULL DEFAULT '[]',
        workspace TEXT,
        idempotency_key TEXT UNIQUE,
        max_retries INTEGER NOT NULL DEFAULT 3,
        failures INTEGER NOT NULL DEFAULT 0,
        fence INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_host TEXT,
        lease_pid INTEGER,
        lease_start TEXT,
        lease_expires {real},
        result TEXT,
        artifacts TEXT NOT NULL DEFAULT '[]',
        error TEXT,
        created_by INTEGER,
        created_at {real} NOT NULL,
        updated_at {real} NOT NULL,
        completed_at {real}
    );
    CREATE INDEX kanban_tasks_status ON kanban_tasks(status, priority);
    CREATE TABLE kanban_deps (
        task_id INTEGER NOT NULL REFERENCES kanban_tasks(id),
        parent_id INTEGER NOT NULL REFERENCES kanban_tasks(id),
        PRIMARY KEY (task_id, parent_id)
    );
    CREATE INDEX kanban_deps_parent ON kanban_deps(parent_id);
    CREATE TABLE kanban_runs (
        id {pk},
        task_id INTEGER NOT NULL REFERENCES kanban_tasks(id),
        fence INTEGER NOT NULL,
        worker TEXT NOT NULL,
        host TEXT NOT NULL,
        pid INTEGER,
        started_at {real} NOT NULL,
        ended_at {real},
        outcome TEXT NOT NULL,
        summary TEXT,
        error TEXT
    );
    CREATE INDEX kanban_runs_task ON kanban_runs(task_id, id);
    CREATE TABLE kanban_comments (
        id {pk},
        task_id INTEGER NOT NULL REFERENCES kanban_tasks(id),
        author TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at {real} NOT NULL
    );
    CREATE TABLE kanban_events (
        id {pk},
        task_id INTEGER,
        kind TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{{}}',
        created_at {real} NOT NULL
    );
    CREATE INDEX kanban_events_task ON kanban_events(task_id, id);
    {append_only}
    """,
    # 2: board-wide settings its workers read wherever they run (`backend`: where their tools act)
    """
    CREATE TABLE kanban_settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
]

SQLITE_APPEND_ONLY = """
    CREATE TRIGGER kanban_events_no_update BEFORE UPDATE ON kanban_events
    BEGIN SELECT RAISE(ABORT, 'kanban_events is append-only'); END;
    CREATE TRIGGER kanban_events_no_delete BEFORE DELETE ON kanban_events
    BEGIN SELECT RAISE(ABORT, 'kanban_events is append-only'); END;
"""

POSTGRES_APPEND_ONLY = """
    CREATE FUNCTION kanban_events_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'kanban_events is append-only'; END; $$;
    CREATE TRIGGER kanban_events_append_only BEFORE UPDATE OR DELETE ON kanban_events
    FOR EACH ROW EXECUTE FUNCTION kanban_events_refuse();
"""

DIALECTS = {
    "sqlite": {"pk": "INTEGER PRIMARY KEY AUTOINCREMENT", "real": "REAL", "append_only": SQLITE_APPEND_ONLY},
    "postgres": {
        "pk": "BIGSERIAL PRIMARY KEY",
        "real": "DOUBLE PRECISION",
        "append_only": POSTGRES_APPEND_ONLY,
    },
}


def migration(number: int, dialect: str) -> str:
    """Migration `number` (1-based) in the dialect's words."""
    return MIGRATIONS[number - 1].format(**DIALECTS[dialect])
