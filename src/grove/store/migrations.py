"""Append-only numbered schema migrations for state.db. Never edit a released one: add the next number."""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: sessions, messages, and two full-text indexes kept in sync by triggers
    """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        title TEXT,
        model TEXT NOT NULL,
        parent_id TEXT REFERENCES sessions(id),
        source TEXT NOT NULL DEFAULT 'cli',
        system_prompt TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        model_calls INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        cached_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0
    );
    CREATE INDEX sessions_updated ON sessions(updated_at);
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        content TEXT,
        tool_calls TEXT,
        tool_call_id TEXT,
        name TEXT,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        active INTEGER NOT NULL DEFAULT 1,
        created_at REAL NOT NULL
    );
    CREATE INDEX messages_session ON messages(session_id, id);
    CREATE VIRTUAL TABLE messages_fts USING fts5(
        content, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE messages_trigram USING fts5(
        content, content='messages', content_rowid='id', tokenize='trigram'
    );
    CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
        INSERT INTO messages_trigram(rowid, content) VALUES (new.id, new.content);
    END;
    CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
        INSERT INTO messages_trigram(messages_trigram, rowid, content) VALUES ('delete', old.id, old.content);
    END;
    CREATE TRIGGER messages_au AFTER UPDATE OF content ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
        INSERT INTO messages_trigram(messages_trigram, rowid, content) VALUES ('delete', old.id, old.content);
        INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
        INSERT INTO messages_trigram(rowid, content) VALUES (new.id, new.content);
    END;
    """,
    # 2: skill usage: one row of counters per skill, and the events they are counted from
    """
    CREATE TABLE skill_usage (
        name TEXT PRIMARY KEY,
        views INTEGER NOT NULL DEFAULT 0,
        uses INTEGER NOT NULL DEFAULT 0,
        patches INTEGER NOT NULL DEFAULT 0,
        created_by TEXT,
        created_session TEXT,
        created_at REAL,
        last_viewed_at REAL,
        last_used_at REAL,
        last_patched_at REAL
    );
    CREATE TABLE skill_events (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        session_id TEXT,
        detail TEXT,
        created_at REAL NOT NULL
    );
    CREATE INDEX skill_events_name ON skill_events(name, id);
    CREATE INDEX skill_events_session ON skill_events(session_id, name);
    """,
    # 3: approvals: every decision on a dangerous act, and the patterns the user approved "always"
    """
    CREATE TABLE IF NOT EXISTS approval_log (
        id INTEGER PRIMARY KEY,
        session_id TEXT,
        command TEXT NOT NULL,
        level TEXT NOT NULL,
        rules TEXT NOT NULL,
        decision TEXT NOT NULL,
        decided_by TEXT NOT NULL,
        reason TEXT,
        created_at REAL NOT NULL
    );
    CREATE INDEX IF NOT EXISTS approval_log_session ON approval_log(session_id, id);
    CREATE TABLE IF NOT EXISTS approval_always (
        pattern TEXT PRIMARY KEY,
        description TEXT,
        session_id TEXT,
        created_at REAL NOT NULL
    );
    """,
]
